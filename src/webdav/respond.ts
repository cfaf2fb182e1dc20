// WebDAV answers: XML bodies (207 Multi-Status, lock discovery, 423 preconditions) and, for
// plain HTTP failures (400 401 402 403 404 …), the spec's JSON error body.
import { STATUS_CODES } from 'node:http';
import type { Request, Response } from 'express';
import type { Engine } from '../engine/engine.js';
import { toErrorBody } from '../http/errors.js';
import { challenges } from './auth.js';
import { LockedError } from './locks.js';
import { escapeXml, XML_DECL } from './xml.js';

export function statusLine(code: number): string {
  return `HTTP/1.1 ${code} ${STATUS_CODES[code] ?? ''}`;
}

export function sendXml(
  res: Response,
  status: number,
  xml: string,
  headers: Record<string, string> = {},
): void {
  const body = XML_DECL + xml;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.status(status);
  res.setHeader('Content-Type', 'application/xml; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

/** One <D:response> of a multistatus: an href and its propstats (status → props XML). */
export function responseXml(href: string, propstats: Map<number, string[]>): string {
  let out = `<D:response><D:href>${escapeXml(href)}</D:href>`;
  for (const [status, props] of propstats) {
    out += `<D:propstat><D:prop>${props.join('')}</D:prop><D:status>${statusLine(status)}</D:status></D:propstat>`;
  }
  return `${out}</D:response>`;
}

export function multistatus(responses: string[]): string {
  return `<D:multistatus xmlns:D="DAV:">${responses.join('')}</D:multistatus>`;
}

/** The error handler of the WebDAV router. */
export function davErrorHandler(engine: Engine) {
  return (err: unknown, req: Request, res: Response): void => {
    const { body, headers, internal } = toErrorBody(err);
    if (internal) engine.log.error({ err, errorId: body.errorId }, 'unhandled WebDAV error');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // Node discards an unread request body after the response; a large one (a refused
    // upload) is not worth receiving, so the connection ends instead.
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (!req.complete && !(declared <= 64 * 1024)) res.setHeader('Connection', 'close');
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    if (body.statusCode === 401) {
      const project = String(req.params.project ?? '');
      const bearer = headers['WWW-Authenticate'];
      const [basic, plainBearer] = challenges(project);
      res.setHeader('WWW-Authenticate', [basic!, bearer ?? plainBearer!]);
    }
    if (err instanceof LockedError) {
      sendXml(
        res,
        423,
        `<D:error xmlns:D="DAV:"><D:${err.condition}><D:href>${escapeXml(err.lock.href)}</D:href></D:${err.condition}></D:error>`,
      );
      return;
    }
    const json = JSON.stringify(body);
    res.status(body.statusCode);
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(json));
    res.end(req.method === 'HEAD' ? undefined : json);
  };
}
