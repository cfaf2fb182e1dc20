// The WebDAV server (class 1 and 2) at {base_url}/projects/{project}/webdav/<path>, over the
// same project files as the REST storage routes (engine.files). Every request is
// authenticated, looks up its URL's item through the engine, which refuses callers without
// the files' level (MD Admin) before any method runs, and has its If header checked. Request
// bodies are never parsed by express here: PUT streams straight into storage.
import express, { type Request, type Response, type Router } from 'express';
import type { Engine } from '../engine/engine.js';
import { davActor } from './auth.js';
import { checkIf, type Dav } from './context.js';
import { copyOrMove } from './copymove.js';
import {
  del,
  FILE_METHODS,
  FOLDER_METHODS,
  get,
  mkcol,
  notAllowed,
  put,
  UNMAPPED_METHODS,
} from './files.js';
import { parseIf } from './if-header.js';
import { lock, unlock } from './lock-methods.js';
import { locksOf } from './locks.js';
import { propfind } from './propfind.js';
import { proppatch } from './proppatch.js';
import { davErrorHandler } from './respond.js';
import { storagePathOf } from './urls.js';

async function options(dav: Dav): Promise<void> {
  const { item } = dav;
  const allow = !item ? UNMAPPED_METHODS : item.type === 'folder' ? FOLDER_METHODS : FILE_METHODS;
  dav.res.setHeader('Allow', allow);
  dav.res.setHeader('MS-Author-Via', 'DAV');
  dav.res.setHeader('Content-Length', 0);
  dav.res.status(200).end();
}

const METHODS: Record<string, (dav: Dav) => Promise<void> | void> = {
  OPTIONS: options,
  GET: get,
  HEAD: get,
  PUT: put,
  DELETE: del,
  MKCOL: mkcol,
  PROPFIND: propfind,
  PROPPATCH: proppatch,
  COPY: (dav) => copyOrMove(dav, 'COPY'),
  MOVE: (dav) => copyOrMove(dav, 'MOVE'),
  LOCK: lock,
  UNLOCK: unlock,
};

export function webdavRouter(engine: Engine): Router {
  const router = express.Router({ mergeParams: true });
  const onError = davErrorHandler(engine);
  router.use(async (req: Request, res: Response) => {
    try {
      const project = String(req.params.project);
      res.setHeader('DAV', '1, 2');
      const actor = await davActor(engine, req, project);
      const path = storagePathOf(req.url);
      // The engine's check of the caller's rights comes with this first look-up.
      const item = await engine.files.stat(actor, path);
      const ifHeader = req.headers.if;
      const dav: Dav = {
        engine,
        req,
        res,
        actor,
        project,
        path,
        item,
        locks: await locksOf(engine, project),
        ifLists: typeof ifHeader === 'string' ? parseIf(ifHeader) : null,
      };
      const handler = METHODS[req.method];
      if (!handler) throw notAllowed(req.method, item);
      await checkIf(dav);
      await handler(dav);
    } catch (err) {
      onError(err, req, res);
    }
  });
  return router;
}
