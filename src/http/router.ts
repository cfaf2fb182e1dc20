// The route table: each path lists its methods with the level they need, a description
// and a handler. From this one table come the express routes, 405 answers with Allow,
// and the interactive API index.
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import {
  LEVEL_TITLES,
  requireLevel,
  type Level,
  type Principal,
  type ProjectActor,
} from '../engine/access/actor.js';
import type { Engine } from '../engine/engine.js';
import { requirePrincipal, type AuthedRequest } from './auth.js';
import { parseBody } from './body.js';
import { HttpError } from './errors.js';
import { send, type Reply } from './respond.js';
import { changesState, refuseCrossSite } from './same-origin.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
export type Access = 'public' | 'authenticated' | Level;

export interface Ctx {
  engine: Engine;
  req: Request;
  res: Response;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  principal: Principal;
  /** The caller's rights in `:project` (project routes only). */
  actor: ProjectActor;
}

export interface Operation {
  /**
   * Who may call. A project level is enforced here, for every project route, before the body
   * is read; the engine checks again (and finer: ACLs, row filters) in what it is asked to do.
   */
  access: Access;
  description: string;
  /** Admins keep this operation while the project is under maintenance. */
  duringMaintenance?: boolean;
  /** 'structured' parses JSON/YAML/form bodies; 'raw' leaves the stream to the handler. */
  body?: 'structured' | 'raw';
  handler: (c: Ctx) => Reply | undefined | void | Promise<Reply | undefined | void>;
}

export interface RouteDef {
  group: string;
  path: string;
  ops: Partial<Record<Method, Operation>>;
}

export function mountRoutes(engine: Engine, defs: RouteDef[]): Router {
  const router = express.Router({ mergeParams: true });
  for (const def of defs) {
    const route = router.route(def.path);
    const allow = allowHeader(def);
    for (const [method, op] of Object.entries(def.ops) as [Method, Operation][]) {
      if (isLevel(op.access) && !def.path.includes(':project'))
        throw new Error(`${method} ${def.path}: a project level needs a :project route`);
      // Who may call is settled before a byte of the body is parsed.
      const handlers: express.RequestHandler[] = [authorize(engine, op)];
      if (op.body !== 'raw' && method !== 'GET') handlers.push(parseBody);
      handlers.push(wrap(engine, op));
      route[method.toLowerCase() as 'get'](...handlers);
    }
    route.options((_req, res) => {
      res.setHeader('Allow', allow);
      res.status(204).end();
    });
    route.all((req, _res, next) =>
      next(
        new HttpError(
          405,
          `method ${req.method} is not allowed on ${req.path}; allowed: ${allow}`,
          { allowed: allow.split(', ') },
          { Allow: allow },
        ),
      ),
    );
  }
  return router;
}

function allowHeader(def: RouteDef): string {
  const methods = Object.keys(def.ops);
  if (methods.includes('GET')) methods.push('HEAD');
  return [...methods, 'OPTIONS'].join(', ');
}

const isLevel = (a: Access): a is Level => Object.hasOwn(LEVEL_TITLES, a);

/** Request state settled by authorize() for the handler. */
interface Caller {
  principal?: Principal;
  actor?: ProjectActor;
}
const CALLER = Symbol('caller');
type WithCaller = Request & { [CALLER]?: Caller };

/**
 * Authenticates, resolves the caller's rights in `:project` and enforces the route's level.
 * A change made with the session cookie, or by a public route (signing in sets the cookie),
 * must come from this site's pages (same-origin.ts); a bearer token needs no such check.
 */
function authorize(engine: Engine, op: Operation) {
  return async (req: Request, _res: Response, next: NextFunction) => {
    try {
      const caller: Caller = {};
      if (op.access !== 'public') {
        caller.principal = await requirePrincipal(engine, req as AuthedRequest);
        const project = (req.params as Record<string, string>).project;
        if (project !== undefined) {
          caller.actor = await engine.actor(caller.principal, project, {
            adminDuringMaintenance: op.duringMaintenance,
          });
          if (isLevel(op.access)) requireLevel(caller.actor, op.access);
        }
      }
      if (changesState(req.method) && (req as AuthedRequest).authVia !== 'bearer')
        refuseCrossSite(engine, req);
      (req as WithCaller)[CALLER] = caller;
      next();
    } catch (err) {
      next(err);
    }
  };
}

function wrap(engine: Engine, op: Operation) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const caller = (req as WithCaller)[CALLER] ?? {};
      const ctx = {
        engine,
        req,
        res,
        params: req.params as Record<string, string>,
        query: req.query as Record<string, unknown>,
        body: req.body,
        principal: caller.principal,
        actor: caller.actor,
      } as Ctx;
      const reply = await op.handler(ctx);
      if (reply && !res.headersSent) send(req, res, reply);
    } catch (err) {
      next(err);
    }
  };
}

/** Express path (`/projects/:project`) in the spec's notation (`/projects/{project}`). */
export const specPath = (p: string): string => p.replace(/:(\w+)/g, '{$1}');
