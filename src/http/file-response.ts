// Answering with a stored file, the same way from REST downloads and WebDAV GET: type,
// length, a strong ETag, conditional requests (304), single byte ranges (206/416), HEAD.
// A stored file is never active content on our origin (anyone with storage access may have
// put an HTML page with a script there): it is always a download, never sniffed, and
// sandboxed should a browser render it anyway.
import type { Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import type { Engine } from '../engine/engine.js';
import type { ProjectActor } from '../engine/access/actor.js';
import type { StorageItem } from '../engine/storage/project-files.js';
import { HttpError } from './errors.js';

/** A strong entity tag from size and modification time: it changes whenever the file does. */
export function etagOf(item: StorageItem): string {
  return `"${item.size.toString(16)}-${Date.parse(item.modified).toString(16)}"`;
}

const TYPES: Record<string, string> = {
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  txt: 'text/plain',
  json: 'application/json',
  xml: 'application/xml',
  html: 'text/html',
  htm: 'text/html',
  yaml: 'text/yaml',
  yml: 'text/yaml',
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  zip: 'application/zip',
  gz: 'application/gzip',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xls: 'application/vnd.ms-excel',
  parquet: 'application/vnd.apache.parquet',
};

export function contentTypeOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return (dot > 0 && TYPES[name.slice(dot + 1).toLowerCase()]) || 'application/octet-stream';
}

/** One byte range of `bytes=a-b`; 'whole' for what is not one range (multiple ranges too). */
export function rangeOf(
  header: string,
  size: number,
): { start: number; end: number } | 'whole' | null {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return 'whole';
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return null;
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return null;
  return { start, end };
}

/** The headers that keep a stored file inert in a browser. */
export const INERT_FILE_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "sandbox; default-src 'none'",
};

/** A file name from a title: no path separators, reserved or control characters. */
export function fileNameOf(title: string): string {
  const name = title
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '_')
    .replace(/\s+/g, ' ')
    .replace(/^[\s.]+|[\s.]+$/g, '')
    .slice(0, 120);
  return name || 'export';
}

/**
 * `attachment` with the name twice (RFC 6266): `filename*` exact (RFC 8187, UTF-8), and
 * `filename` in plain ASCII for clients that do not read the other.
 */
export function attachmentOf(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const exact = encodeURIComponent(name).replace(
    /['()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

/**
 * A file made for this caller (a PDF, a chart's PNG) as a download named by its title: never
 * kept by a cache (it holds the caller's rows), never sniffed as another type.
 */
export function sendMadeFile(
  res: Response,
  bytes: Buffer,
  type: string,
  title: string,
  extension: string,
): void {
  res.status(200);
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', bytes.length);
  res.setHeader('Content-Disposition', attachmentOf(`${fileNameOf(title)}.${extension}`));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'private, no-store');
  res.setHeader('Vary', 'Accept');
  res.end(bytes);
}

export async function sendStoredFile(
  engine: Engine,
  actor: ProjectActor,
  item: StorageItem,
  req: Request,
  res: Response,
): Promise<void> {
  const etag = etagOf(item);
  const modified = new Date(item.modified);
  res.setHeader('ETag', etag);
  res.setHeader('Last-Modified', modified.toUTCString());
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('Content-Type', contentTypeOf(item.name));
  res.setHeader('Content-Disposition', attachmentOf(item.name));
  for (const [k, v] of Object.entries(INERT_FILE_HEADERS)) res.setHeader(k, v);
  const inm = req.headers['if-none-match'];
  const ims = req.headers['if-modified-since'];
  const unchanged = inm
    ? inm.split(',').some((t) => t.trim() === etag || t.trim() === '*')
    : ims !== undefined && Math.floor(modified.getTime() / 1000) * 1000 <= Date.parse(ims);
  if (unchanged) {
    res.status(304).end();
    return;
  }
  let range: { start: number; end: number } | undefined;
  const rangeHeader = req.headers.range;
  const ifRange = req.headers['if-range'];
  // If-Range: a range only applies while the file is still the version the client saw.
  if (rangeHeader && (!ifRange || ifRange === etag)) {
    const r = rangeOf(rangeHeader, item.size);
    if (r === null) {
      res.setHeader('Content-Range', `bytes */${item.size}`);
      throw new HttpError(
        416,
        `the range "${rangeHeader}" is outside the file (${item.size} bytes)`,
        { size: item.size },
      );
    }
    if (r !== 'whole') range = r;
  }
  if (range) {
    res.status(206);
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${item.size}`);
    res.setHeader('Content-Length', range.end - range.start + 1);
  } else {
    res.status(200);
    res.setHeader('Content-Length', item.size);
  }
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const { stream } = await engine.files.readStream(actor, item.path, range);
  try {
    await pipeline(stream, res);
  } catch (err) {
    // A client that hangs up mid-download is no error of ours; the file is closed either way.
    if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
    throw err;
  }
}
