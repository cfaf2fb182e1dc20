// Writes a resource in the negotiated representation.
import type { Request, Response } from 'express';
import { API_PREFIX } from '../engine/config.js';
import { toYaml } from '../shared/yaml.js';
import { sendPage } from '../web/page.js';
import { mimeOf, negotiate, type Format } from './negotiate.js';
import { tabularFromList, toDelimited } from '../shared/delimited.js';
import { toXlsx, type Painter, type SheetColumn } from '../shared/xlsx.js';
import { attachmentOf, fileNameOf } from './file-response.js';
import { renderResourcePage } from './render/html.js';

export interface Tabular {
  columns: string[];
  rows: unknown[][];
  /** The cells an XLSX writes, when typed otherwise than `rows` (numbers as numbers). */
  sheet?: unknown[][];
  /** What each column holds, for XLSX: dates as dates, measures in their number format. */
  types?: SheetColumn[];
  /** Cell colours an XLSX keeps (a table's conditional formatting). */
  paint?: Painter;
}

export interface Reply {
  status?: number;
  body?: unknown;
  /** Title of the HTML page. */
  title?: string;
  /**
   * Offered as CSV/TSV/XLSX when present: the rows of a list resource. A function is called
   * only when one of those formats is asked for (most answers are JSON: no work for them).
   */
  tabular?: Tabular | object[] | (() => Tabular);
  headers?: Record<string, string>;
  /** A file name for CSV/TSV/XLSX downloads (a title: made safe, kept exact in `filename*`). */
  filename?: string;
}

export function send(req: Request, res: Response, reply: Reply): void {
  for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
  const status = reply.status ?? 200;
  if (reply.body === undefined) {
    res.status(status).end();
    return;
  }
  const offered: Format[] = reply.tabular
    ? ['json', 'yaml', 'csv', 'tsv', 'xlsx', 'html']
    : ['json', 'yaml', 'html'];
  const format = negotiate(
    { method: req.method, accept: req.headers.accept, formatParam: req.query.format },
    offered,
  );
  res.status(status);
  res.setHeader('Vary', 'Accept');
  write(req, res, format, reply, status);
}

/** JSON whatever Accept asks for: answers meant for machines only (health probes). */
export function sendJson(res: Response, status: number, body: unknown): void {
  res.status(status);
  end(res, 'application/json; charset=utf-8', JSON.stringify(body));
}

/** Writes a finished text body; express's res.send does far more work than a body needs. */
function end(res: Response, type: string, text: string): void {
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

export function write(
  req: Request,
  res: Response,
  format: Format,
  reply: Reply,
  status: number,
): void {
  const type = `${mimeOf(format)}; charset=utf-8`;
  switch (format) {
    case 'json':
      return end(res, type, JSON.stringify(reply.body));
    case 'yaml':
      return end(res, type, toYaml(reply.body));
    case 'csv':
    case 'tsv':
    case 'xlsx': {
      const raw = reply.tabular!;
      const t: Tabular =
        typeof raw === 'function'
          ? raw()
          : Array.isArray(raw)
            ? tabularFromList(raw as Record<string, unknown>[])
            : raw;
      const base = fileNameOf(reply.filename ?? 'data');
      res.setHeader('Content-Disposition', attachmentOf(`${base}.${format}`));
      if (format !== 'xlsx')
        return end(res, type, toDelimited(t.columns, t.rows, format === 'csv' ? ',' : '\t'));
      const book = toXlsx(t.columns, t.sheet ?? t.rows, base, t.types, t.paint);
      res.setHeader('Content-Type', mimeOf(format));
      res.setHeader('Content-Length', book.length);
      res.end(book);
      return;
    }
    default: {
      const user =
        (req as Request & { principal?: { email: string } | null }).principal?.email ?? null;
      const formats = reply.tabular ? ['json', 'yaml', 'csv', 'tsv', 'xlsx'] : ['json', 'yaml'];
      const page = renderResourcePage({
        title: reply.title ?? 'Ursa API',
        data: reply.body,
        path: req.originalUrl,
        apiBase: API_PREFIX,
        formats,
        user,
        status,
      });
      sendPage(res, status, page);
    }
  }
}
