// COPY and MOVE within one project's WebDAV root. Overwrite: F refuses an existing target
// (412); COPY of a collection is Depth infinity or 0 (the collection alone). Dead properties
// go with the items; locks stay with their URLs (a moved resource leaves its locks behind).
import { forbidden, notFound } from '../engine/errors.js';
import { isWithin } from '../engine/storage/paths.js';
import { HttpError } from '../http/errors.js';
import { requireTokens, type Dav } from './context.js';
import { destinationOf } from './urls.js';

function overwriteOf(header: string | undefined): boolean {
  if (header === undefined || header.trim().toUpperCase() === 'T') return true;
  if (header.trim().toUpperCase() === 'F') return false;
  throw new HttpError(400, `Overwrite must be T or F, not "${header.slice(0, 20)}"`);
}

function shallowOf(method: 'COPY' | 'MOVE', header: string | undefined): boolean {
  const d = header?.trim().toLowerCase();
  if (d === undefined || d === 'infinity') return false;
  if (d === '0' && method === 'COPY') return true;
  throw new HttpError(
    400,
    method === 'COPY' ? 'COPY takes Depth 0 or infinity' : 'MOVE is always Depth infinity',
  );
}

export async function copyOrMove(dav: Dav, method: 'COPY' | 'MOVE'): Promise<void> {
  const { req, res, engine, actor, project, path, item: from } = dav;
  const to = destinationOf(req, project, engine.config.siteUrl);
  const overwrite = overwriteOf(req.headers.overwrite as string | undefined);
  const shallow = shallowOf(method, req.headers.depth as string | undefined);
  if (!from) throw notFound(`no file or folder at "${path}"`, { path });
  if (path === '/')
    throw forbidden(`the WebDAV root folder cannot be ${method === 'COPY' ? 'copied' : 'moved'}`);
  if (to === path) throw forbidden('the source and the destination are the same resource');
  if (isWithin(to, path))
    throw new HttpError(409, `cannot ${method} "${path}" into itself ("${to}")`, { path, to });
  // Overwriting a collection that holds the source would delete the source first.
  if (isWithin(path, to))
    throw new HttpError(409, `cannot ${method} "${path}" over its own parent "${to}"`, {
      path,
      to,
    });
  const target = await engine.files.stat(actor, to);
  if (target && !overwrite)
    throw new HttpError(412, `"${to}" exists and Overwrite is F`, { destination: to });
  const destination = { path: to, tree: true, membership: true };
  requireTokens(
    dav,
    method === 'MOVE' ? [{ path, tree: true, membership: true }, destination] : [destination],
  );
  let replaced: boolean;
  // Dead properties go with the item (the engine moves and copies them).
  if (method === 'MOVE') {
    ({ replaced } = await engine.files.move(actor, path, to, { overwrite }));
    await dav.locks.removeTree(path);
  } else {
    ({ replaced } = await engine.files.copy(actor, path, to, { overwrite, recursive: !shallow }));
  }
  res.status(replaced ? 204 : 201).end();
}
