// GET, HEAD, PUT, DELETE and MKCOL: plain resource methods over project storage. PUT streams
// the request into the storage layer, which writes atomically and enforces the plan limit.
import { forbidden, notFound } from '../engine/errors.js';
import { parentOf } from '../engine/storage/paths.js';
import type { StorageItem } from '../engine/storage/project-files.js';
import { HttpError } from '../http/errors.js';
import { href, requireTokens, type Dav } from './context.js';
import { etagOf, sendStoredFile } from '../http/file-response.js';
import { uploadedReply } from '../http/upload-reply.js';
import { readBody } from './xml.js';
import { html } from '../shared/html.js';
import { pageHeaders, renderPage, type Page } from '../web/page.js';

export const FILE_METHODS =
  'OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, PROPPATCH, COPY, MOVE, LOCK, UNLOCK';
export const FOLDER_METHODS =
  'OPTIONS, GET, HEAD, DELETE, PROPFIND, PROPPATCH, COPY, MOVE, LOCK, UNLOCK';
export const UNMAPPED_METHODS = 'OPTIONS, PUT, MKCOL, LOCK, UNLOCK';

export function notAllowed(method: string, item: StorageItem | null): HttpError {
  const allow = !item ? UNMAPPED_METHODS : item.type === 'folder' ? FOLDER_METHODS : FILE_METHODS;
  const what = !item ? 'an unmapped URL' : item.type === 'folder' ? 'a collection' : 'a file';
  return new HttpError(
    405,
    `${method} is not allowed on ${what}; allowed: ${allow}`,
    { allowed: allow.split(', ') },
    { Allow: allow },
  );
}

function requireItem(dav: Dav): StorageItem {
  const { item } = dav;
  if (!item) throw notFound(`no file or folder at "${dav.path}"`, { path: dav.path });
  return item;
}

function listing(dav: Dav, item: StorageItem, members: StorageItem[]): Page {
  const rows = members.map(
    (m) =>
      html`<tr><td><a href="${href(dav, m.path, m.type === 'folder')}">${m.name}${m.type === 'folder' && '/'}</a></td><td>${m.type === 'folder' ? '' : m.size}</td><td>${m.modified}</td></tr>\n`,
  );
  const title = `${dav.project}: ${item.path}`;
  // Our page, but the names in it are the users': the kit's policy lets nothing run or load.
  return renderPage({
    title,
    body: html`<h1>${title}</h1>
${item.path !== '/' && html`<p><a href="${href(dav, parentOf(item.path), true)}">Parent folder</a></p>`}
<table><thead><tr><th>Name</th><th>Size</th><th>Modified</th></tr></thead><tbody>
${rows}</tbody></table>`,
  });
}

export async function get(dav: Dav): Promise<void> {
  const { req, res } = dav;
  const item = requireItem(dav);
  if (item.type === 'folder') {
    const { children } = await dav.engine.files.list(dav.actor, item.path);
    const page = listing(dav, item, children);
    for (const [k, v] of Object.entries(pageHeaders(page))) res.setHeader(k, v);
    res.setHeader('Content-Length', Buffer.byteLength(page.html));
    res.status(200).end(req.method === 'HEAD' ? undefined : page.html);
    return;
  }
  await sendStoredFile(dav.engine, dav.actor, item, req, res);
}

export async function put(dav: Dav): Promise<void> {
  const { req, res, engine, actor, project, path, item: existing } = dav;
  if (existing?.type === 'folder') throw notAllowed('PUT', existing); // the root is one too
  const parent = await engine.files.stat(actor, parentOf(path));
  if (parent?.type !== 'folder')
    throw new HttpError(409, `the parent collection "${parentOf(path)}" does not exist`, { path });
  if (req.headers['content-range'])
    throw new HttpError(400, 'partial PUT (Content-Range) is not supported; send the whole file');
  requireTokens(dav, [{ path, membership: !existing }]);
  const length = req.headers['content-length'];
  // Storage borrows the request: a refused write (plan limit) stops only its copy, so the
  // client still gets its 402 instead of a reset connection; a client that hangs up ends
  // the write with nothing left behind.
  const { created, item } = await engine.files.writeFile(actor, path, req, {
    expectedSize: length === undefined ? undefined : Number(length),
  });
  res.setHeader('ETag', etagOf(item));
  if (!created) {
    res.status(204).end();
    return;
  }
  // Something to go on, as a REST upload gives: the file's fileId (also its uploadId for
  // the structure guess), its links, and its URL as Location.
  const { body, location } = uploadedReply(project, item.fileId, item);
  const json = JSON.stringify(body);
  res.setHeader('Location', location);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.status(201).end(json);
}

export async function del(dav: Dav): Promise<void> {
  const depth = dav.req.headers.depth as string | undefined;
  if (depth !== undefined && depth.trim().toLowerCase() !== 'infinity')
    throw new HttpError(400, 'DELETE of a collection is always Depth: infinity');
  if (dav.path === '/') throw forbidden('the WebDAV root folder cannot be deleted');
  requireItem(dav);
  requireTokens(dav, [{ path: dav.path, tree: true, membership: true }]);
  await dav.engine.files.remove(dav.actor, dav.path);
  await dav.locks.removeTree(dav.path); // dead properties follow through the storage change hook
  dav.res.status(204).end();
}

export async function mkcol(dav: Dav): Promise<void> {
  const { engine, actor, path } = dav;
  // RFC 4918 §9.3: a body we do not understand is a 415, whatever it holds.
  const declared = Number(dav.req.headers['content-length'] ?? 0);
  if (declared > 0 || (await readBody(dav.req, 64 * 1024)))
    throw new HttpError(415, 'MKCOL with a request body is not supported');
  if (dav.item) throw notAllowed('MKCOL', dav.item);
  const parent = await engine.files.stat(actor, parentOf(path));
  if (parent?.type !== 'folder')
    throw new HttpError(409, `the parent collection "${parentOf(path)}" does not exist`, { path });
  requireTokens(dav, [{ path, membership: true }]);
  await engine.files.mkdir(actor, path);
  dav.res.status(201).end();
}
