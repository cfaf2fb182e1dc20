// MCP prompts, loaded from prompts/*.md: YAML front matter (name, description, arguments)
// and a body with {{argument}} placeholders. Files without front matter (README.md) are not
// prompts. A malformed prompt file fails loudly with its file name.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { splitFrontMatter } from '../shared/front-matter.js';
import { findUnstorable } from '../shared/storable-text.js';
import { installed } from '../shared/install-root.js';

export const PROMPTS_DIR = installed('prompts') + path.sep;

const frontMatter = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9-]*$/, 'lowercase letters, digits and "-"'),
    description: z.string().min(1),
    arguments: z
      .array(
        z
          .object({
            name: z.string().regex(/^[a-z_][a-z0-9_]*$/i),
            description: z.string().default(''),
            required: z.boolean().default(false),
          })
          .strict(),
      )
      .default([]),
  })
  .strict();

export type PromptFile = z.infer<typeof frontMatter> & { body: string; file: string };

export function parsePrompt(text: string, file: string): PromptFile | null {
  const m = splitFrontMatter(text);
  if (!m) return null;
  const r = frontMatter.safeParse(m.data);
  if (!r.success)
    throw new Error(
      `prompt ${file}: ${r.error.issues.map((i) => `${i.path.join('.') || '(front matter)'}: ${i.message}`).join('; ')}`,
    );
  return { ...r.data, body: m.body, file };
}

const cache = new Map<string, PromptFile[]>();

/** The prompts of a folder, read once per process. */
export function loadPrompts(dir = PROMPTS_DIR): PromptFile[] {
  let hit = cache.get(dir);
  if (!hit) {
    hit = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => parsePrompt(fs.readFileSync(path.join(dir, f), 'utf8'), f))
      .filter((p): p is PromptFile => p !== null);
    cache.set(dir, hit);
  }
  return hit;
}

/** The body with every {{name}} replaced; an argument not given reads "(not given)". */
export function renderPrompt(p: PromptFile, args: Record<string, string | undefined>): string {
  return p.body.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (all, name: string) => {
    if (!p.arguments.some((a) => a.name === name)) return all;
    const v = args[name];
    return v === undefined || v === '' ? '(not given)' : v;
  });
}

export function registerPrompts(server: McpServer, dir = PROMPTS_DIR): void {
  for (const p of loadPrompts(dir)) {
    const shape = Object.fromEntries(
      p.arguments.map((a) => {
        const s = a.required ? z.string() : z.string().optional();
        return [a.name, s.describe(a.description)];
      }),
    );
    server.registerPrompt(p.name, { description: p.description, argsSchema: shape }, ((
      args: Record<string, string | undefined>,
    ) => {
      // Refused like a tool's arguments: what a prompt renders is sent back to be used.
      const unstorable = findUnstorable(args, 'arguments');
      if (unstorable) throw new McpError(ErrorCode.InvalidParams, unstorable.message);
      return {
        description: p.description,
        messages: [{ role: 'user', content: { type: 'text', text: renderPrompt(p, args ?? {}) } }],
      };
    }) as never);
  }
}
