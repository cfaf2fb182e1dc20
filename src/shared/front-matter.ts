// Markdown files with YAML front matter (blog posts, MCP prompts): `---`, YAML, `---`, body.
// The YAML is read by parseYaml (core schema, so 2026-03-01 stays a string; bounded aliases).
import { parseYaml } from './yaml.js';

const FRONT = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/;

/** The front matter's value and the body after it (trimmed); null when the text has none. */
export function splitFrontMatter(text: string): { data: unknown; body: string } | null {
  const m = FRONT.exec(text);
  return m ? { data: parseYaml(m[1]!), body: m[2]!.trim() } : null;
}
