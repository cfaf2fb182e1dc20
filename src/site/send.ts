// How every public resource is answered: a body prepared once (with its ETag), sent with
// CORS open to any origin (public content, read-only, no credentials), cache headers, and 304
// when the client already holds this version.
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { pageHeaders, type Page } from '../web/page.js';

export interface Prepared {
  type: string;
  body: string;
  etag: string;
  /** Seconds a shared cache may keep it; content changes only when the server restarts. */
  maxAge: number;
  headers: Record<string, string>;
}

export function prepare(
  type: string,
  body: string,
  opts: { maxAge?: number; headers?: Record<string, string> } = {},
): Prepared {
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 27);
  return {
    type,
    body,
    etag: `"${hash}"`,
    maxAge: opts.maxAge ?? 300,
    headers: opts.headers ?? {},
  };
}

/** A page of the kit, with its Content-Security-Policy (site pages allow no scripts). */
export const preparePage = (page: Page): Prepared => {
  const { 'Content-Type': type, ...headers } = pageHeaders(page);
  return prepare(type!, page.html, { headers });
};

export function sendPrepared(req: Request, res: Response, p: Prepared): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', 'ETag');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', `public, max-age=${p.maxAge}`);
  res.setHeader('ETag', p.etag);
  for (const [k, v] of Object.entries(p.headers)) res.setHeader(k, v);
  if (notModified(req.headers['if-none-match'], p.etag)) {
    res.status(304).end();
    return;
  }
  res.setHeader('Content-Type', p.type);
  res.setHeader('Content-Length', Buffer.byteLength(p.body));
  res.status(200).end(p.body);
}

/** RFC 9110 §13.1.2: weak comparison against a list of tags, or `*`. */
function notModified(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const tags = header.split(',').map((t) => t.trim().replace(/^W\//, ''));
  return tags.some((t) => t === '*' || t === etag);
}
