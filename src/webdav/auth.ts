// Who is calling over WebDAV: HTTP Basic with the user id (e-mail) and the project's WebDAV
// token, or a bearer token like the rest of the API. The project member's rights are then
// resolved by the engine like for any request, and storage needs MD Admin. Token checks are
// limited per user and address and per address (engine throttle): 429 with Retry-After.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Request } from 'express';
import type { ProjectActor } from '../engine/access/actor.js';
import type { Engine } from '../engine/engine.js';
import { verifyPassword } from '../engine/identity/passwords.js';
import { EngineError } from '../engine/errors.js';
import type { Guess } from '../engine/identity/throttle.js';
import { identify, challenge, type AuthedRequest } from '../http/auth.js';
import { HttpError } from '../http/errors.js';
import { guessOrRefuse } from '../http/throttle.js';
import { unstorableError } from '../http/storable.js';
import { findUnstorable } from '../shared/storable-text.js';

// scrypt takes tens of milliseconds by design and clients such as litmus or davfs2 send
// hundreds of requests, each with the same Basic credentials: a verified credential is
// remembered briefly. The key covers the token hash, so a changed token is never matched.
const verified = new LRUCache<string, true>({ max: 1000, ttl: 60_000 });

function cacheKey(project: string, user: string, password: string, tokenHash: string): string {
  return createHash('sha256')
    .update([project, user, password, tokenHash].join('\0'))
    .digest('base64url');
}

function basicChallenge(project: string): string {
  return `Basic realm="Ursa WebDAV ${project.replace(/["\\]/g, '')}", charset="UTF-8"`;
}

/** A 401 whose Bearer challenge names the API's resource metadata and scope. */
function unauthorized(engine: Engine, project: string, message: string): HttpError {
  return new HttpError(401, message, { project }, { 'WWW-Authenticate': challenge(engine) });
}

/**
 * The WWW-Authenticate values of a WebDAV 401: Basic first (what WebDAV clients use), then
 * Bearer (naming the resource metadata when the engine is at hand).
 */
export function challenges(project: string, engine?: Engine): string[] {
  return [basicChallenge(project), engine ? challenge(engine) : 'Bearer realm="ursa"'];
}

/**
 * Wrong token, unknown user, and a user with the right token who may not use the files (not
 * MD Admin, or the project is under maintenance) all get this same answer: nobody learns
 * from it that a guessed token was right.
 */
const WRONG_CREDENTIALS =
  'wrong user or WebDAV token, or this user may not use the project files over WebDAV now (MD Admin needed, not during maintenance)';

/** The caller's rights when they may use the project files, else null. */
async function storageActor(
  engine: Engine,
  email: string,
  project: string,
): Promise<ProjectActor | null> {
  try {
    const actor = await engine.actor({ email }, project);
    engine.files.authorize(actor);
    return actor;
  } catch (err) {
    if (err instanceof EngineError && (err.kind === 'unauthenticated' || err.kind === 'forbidden'))
      return null;
    throw err;
  }
}

async function basicActor(
  engine: Engine,
  req: Request,
  project: string,
  header: string,
): Promise<ProjectActor> {
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw unauthorized(engine, project, 'the Basic credentials must be "user:token"');
  const user = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  // The user id is looked up and counted in the metadata database: NUL is refused first.
  const unstorable = findUnstorable(user, 'Authorization (the Basic user id)');
  if (unstorable) throw unstorableError({ ...unstorable, field: 'Authorization' });
  const tokenHash = await engine.projects.webdavTokenHash(project);
  if (!tokenHash) {
    throw unauthorized(
      engine,
      project,
      'WebDAV is not enabled for this project (no WebDAV token is set), or the project does not exist',
    );
  }
  const key = cacheKey(project, user, password, tokenHash);
  let guess: Guess | undefined;
  if (!verified.get(key)) {
    // Counted as a failure until the user turns out to be allowed (429 when too many).
    guess = await guessOrRefuse(engine, req, `webdav:${project}`, user);
    if (!(await verifyPassword(password, tokenHash)))
      throw unauthorized(engine, project, WRONG_CREDENTIALS);
  }
  const actor = await storageActor(engine, user, project);
  if (!actor) throw unauthorized(engine, project, WRONG_CREDENTIALS);
  await guess?.succeeded();
  verified.set(key, true);
  return actor;
}

/** Authenticates the request and resolves the caller's rights; storage needs MD Admin. */
export async function davActor(
  engine: Engine,
  req: Request,
  project: string,
): Promise<ProjectActor> {
  const header = req.headers.authorization;
  let email: string | null = null;
  if (header && /^basic /i.test(header)) return basicActor(engine, req, project, header);
  if (header && /^bearer /i.test(header))
    email = (await identify(engine, req as AuthedRequest))?.email ?? null;
  else if (!header && (req.method === 'GET' || req.method === 'HEAD'))
    // A signed-in browser may read the HTML listing; changes need Basic or Bearer
    // credentials, never the cookie alone (cross-site requests carry cookies).
    email = (await identify(engine, req as AuthedRequest))?.email ?? null;
  else if (header)
    throw unauthorized(engine, project, 'use HTTP Basic (user id, WebDAV token) or Bearer');
  if (!email) {
    throw unauthorized(
      engine,
      project,
      'authentication required: HTTP Basic with your user id and the project WebDAV token, or a Bearer token',
    );
  }
  return engine.actor({ email }, project);
}
