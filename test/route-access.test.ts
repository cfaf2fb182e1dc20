// The route table's level is enforced by the router for every project route, before the
// body is parsed: a handler that forgets to check cannot be reached below its level, and a
// caller below it learns nothing from how their body is read.
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toErrorBody } from '../src/http/errors.js';
import { mountRoutes, type RouteDef } from '../src/http/router.js';
import { createProject } from './helpers/fixtures.js';
import { invite, startTestServer, type TestServer } from './helpers/server.js';

const MEMBER = 'route-member@example.com';
const MD = 'route-md@example.com';

describe('route levels are enforced centrally', () => {
  let s: TestServer;
  let p: string;
  beforeAll(async () => {
    s = await startTestServer();
    p = await createProject(s, 'routes', 'Routes');
    await invite(s, p, MEMBER);
    await invite(s, p, MD, { mdadmin: true });
  });
  afterAll(async () => {
    await s.close();
  });

  it('a handler that checks nothing is still closed below the route level', async () => {
    // The route table of a front door that forgot the check in its handler.
    const forgetful: RouteDef[] = [
      {
        group: 'test',
        path: '/projects/:project/forgetful',
        ops: {
          POST: {
            access: 'mdadmin',
            description: 'reached only at MD Admin',
            handler: ({ body }) => ({ title: 'reached', body: { reached: true, body } }),
          },
        },
      },
    ];
    const app = express();
    app.use(mountRoutes(s.engine, forgetful));
    app.use(
      (err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
        const e = toErrorBody(err);
        res.status(e.body.statusCode).json(e.body);
      },
    );
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/projects/${p}/forgetful`;
      const post = async (email: string) =>
        fetch(url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${await s.token(email)}`,
            'content-type': 'application/json',
            accept: 'application/json',
          },
          body: '{"a":1}',
        });
      const member = await post(MEMBER);
      expect(member.status).toBe(403);
      expect(((await member.json()) as { message: string }).message).toMatch(/MD Admin/);
      const md = await post(MD);
      expect(md.status).toBe(200);
      expect(await md.json()).toEqual({ reached: true, body: { a: 1 } });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('a project level on a route without :project is a mistake found at start', () => {
    expect(() =>
      mountRoutes(s.engine, [
        {
          group: 'test',
          path: '/nowhere',
          ops: { GET: { access: 'member', description: '', handler: () => undefined } },
        },
      ]),
    ).toThrow(/needs a :project route/);
  });

  it('below the level, the body is not read: 403 (and 401 without credentials), not 400', async () => {
    const raw = { type: 'application/json', data: '{"not json' };
    const path = `/projects/${p}/pmd/obj`;
    expect((await s.api('POST', path, { as: MEMBER, raw })).status).toBe(403);
    expect((await s.api('POST', path, { as: null, raw })).status).toBe(401);
    expect((await s.api('POST', path, { as: MD, raw })).status).toBe(400);
  });
});
