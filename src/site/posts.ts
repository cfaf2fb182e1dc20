// Blog posts: site/blog/<slug>.md, each with YAML front matter (title, date, author, summary,
// slug). Read, validated and rendered once at start-up; newest first.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { splitFrontMatter } from '../shared/front-matter.js';
import { markdownToHtml } from './markdown.js';
import { SITE_DIR } from './paths.js';

export const BLOG_DIR = path.join(SITE_DIR, 'blog');

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const frontMatterSchema = z
  .object({
    title: z.string().min(1).max(200),
    // A string, not a YAML timestamp: the file is read with the core schema (see below).
    date: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD')
      .refine((d) => new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), 'no such date'),
    author: z.string().min(1),
    summary: z.string().min(1).max(400),
    slug: z.string().regex(SLUG, 'lowercase words joined by -'),
  })
  .strict();

export interface Post extends z.infer<typeof frontMatterSchema> {
  /** The Markdown body, without front matter. */
  markdown: string;
  /** The body rendered to (sanitized) HTML. */
  html: string;
}

export function parsePost(file: string, text: string): Post {
  const m = splitFrontMatter(text);
  if (!m) throw new Error(`blog post ${file}: no front matter (--- … ---) at the top`);
  // The core schema keeps 2026-03-01 a string instead of turning it into a Date.
  const parsed = frontMatterSchema.safeParse(m.data);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`blog post ${file}: invalid front matter:\n${lines.join('\n')}`);
  }
  const markdown = m.body;
  if (!markdown) throw new Error(`blog post ${file}: empty body`);
  return { ...parsed.data, markdown, html: markdownToHtml(markdown) };
}

export function loadPosts(dir = BLOG_DIR): Post[] {
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.md')) : [];
  const posts = files.map((f) => {
    const post = parsePost(f, fs.readFileSync(path.join(dir, f), 'utf8'));
    // The URL is the file name, so one look at the folder tells where each post is served.
    if (`${post.slug}.md` !== f) throw new Error(`blog post ${f}: slug "${post.slug}" ≠ file name`);
    return post;
  });
  return posts.sort((a, b) => b.date.localeCompare(a.date) || a.slug.localeCompare(b.slug));
}
