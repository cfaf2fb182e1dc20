// LOCK (new lock, or refresh when there is no body) and UNLOCK. A LOCK on an unmapped URL
// creates an empty file, as RFC 4918 §7.3 asks (the old "lock-null" resources are gone).
import { parentOf } from '../engine/storage/paths.js';
import { HttpError } from '../http/errors.js';
import { href, requireTokens, type Dav } from './context.js';
import { submittedTokens } from './if-header.js';
import { activeLockXml } from './live-props.js';
import {
  LockedError,
  parseTimeout,
  type DavLock,
  type LockDepth,
  type LockScope,
} from './locks.js';
import { sendXml } from './respond.js';
import { children, davChild, innerXml, isDav, parseXml, readBody } from './xml.js';

function discovery(lock: DavLock): string {
  return `<D:prop xmlns:D="DAV:"><D:lockdiscovery>${activeLockXml(lock)}</D:lockdiscovery></D:prop>`;
}

function depthOf(header: string | undefined): LockDepth {
  const d = header?.trim().toLowerCase();
  if (d === undefined || d === 'infinity') return 'infinity';
  if (d === '0') return '0';
  throw new HttpError(400, 'LOCK takes Depth 0 or infinity');
}

async function refresh(dav: Dav, timeout: number): Promise<void> {
  const tokens = submittedTokens(dav.ifLists);
  if (tokens.size === 0)
    throw new HttpError(
      400,
      'a LOCK without a body refreshes a lock: send its token in the If header',
    );
  // The If header was already checked: a token that names no lock here answered 412.
  const lock = dav.locks.covering(dav.path).find((l) => tokens.has(l.token));
  if (!lock) throw new HttpError(412, 'no lock named in the If header applies to this resource');
  if (lock.principal !== dav.actor.email)
    throw new HttpError(403, 'this lock belongs to another user', { lockRoot: lock.root });
  await dav.locks.refresh(lock, timeout);
  sendXml(dav.res, 200, discovery(lock));
}

export async function lock(dav: Dav): Promise<void> {
  const { req, engine, actor, path } = dav;
  const timeout = parseTimeout(req.headers.timeout as string | undefined);
  const body = await readBody(req);
  if (!body) return refresh(dav, timeout);
  const info = parseXml(body).documentElement!;
  if (!isDav(info, 'lockinfo')) throw new HttpError(400, 'the LOCK body must be a DAV:lockinfo');
  const scopeEl = davChild(info, 'lockscope');
  const scopeName = scopeEl ? children(scopeEl)[0] : undefined;
  const scope: LockScope | undefined =
    scopeName && isDav(scopeName, 'exclusive')
      ? 'exclusive'
      : scopeName && isDav(scopeName, 'shared')
        ? 'shared'
        : undefined;
  if (!scope) throw new HttpError(400, 'DAV:lockscope must hold DAV:exclusive or DAV:shared');
  const typeEl = davChild(info, 'locktype');
  if (!typeEl || !children(typeEl).some((c) => isDav(c, 'write')))
    throw new HttpError(400, 'only DAV:write locks exist');
  const ownerEl = davChild(info, 'owner');
  const depth = depthOf(req.headers.depth as string | undefined);

  const conflict = dav.locks.conflicts(path, depth, scope)[0];
  if (conflict) throw new LockedError(conflict, 'no-conflicting-lock');
  // Looked up again: the body was read since the request arrived.
  let item = await engine.files.stat(actor, path);
  const created = !item;
  if (!item) {
    const parent = await engine.files.stat(actor, parentOf(path));
    if (parent?.type !== 'folder')
      throw new HttpError(409, `the parent collection "${parentOf(path)}" does not exist`, {
        path,
      });
    requireTokens(dav, [{ path, membership: true }]);
    ({ item } = await engine.files.writeFile(actor, path, Buffer.alloc(0), { expectedSize: 0 }));
  }
  const lock = await dav.locks.create({
    root: path,
    href: href(dav, path, item.type === 'folder'),
    depth,
    scope,
    owner: ownerEl ? innerXml(ownerEl) : '',
    principal: dav.actor.email,
    timeoutSeconds: timeout,
  });
  sendXml(dav.res, created ? 201 : 200, discovery(lock), { 'Lock-Token': `<${lock.token}>` });
}

export async function unlock(dav: Dav): Promise<void> {
  const header = dav.req.headers['lock-token'];
  const m = typeof header === 'string' ? /^\s*<([^>]+)>\s*$/.exec(header) : null;
  if (!m) throw new HttpError(400, 'UNLOCK needs a Lock-Token header: <token>');
  const lock = dav.locks.covering(dav.path).find((l) => l.token === m[1]);
  if (!lock)
    throw new HttpError(409, 'the Lock-Token names no lock on this resource', {
      condition: 'lock-token-matches-request-uri',
    });
  if (lock.principal !== dav.actor.email)
    throw new HttpError(403, 'this lock belongs to another user', { lockRoot: lock.root });
  await dav.locks.remove(lock.token);
  dav.res.status(204).end();
}
