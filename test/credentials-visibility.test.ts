// Who sees where a login goes (issue 30): a credentials object's host, port, user, database,
// replicas and host key are MD Admin's (and Admin's) to read; other members see its kind,
// which a box names, and whether a secret is set, through every door (pmd/obj in each
// format, lists, history, bulkobj, MCP). The secret is never shown to anyone.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from './helpers/mcp-client.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';

const READER = 'cred-reader@example.com';
const MD = 'cred-md@example.com';
const SECRET = 'pw-never-shown-7c2e';
// What only MD Admins see: each must be absent from every member's answer.
const WHERE = [
  'dwh-primary.example.com',
  'ursa_reporting',
  'warehouse_db',
  'dwh-replica.example.com',
];

let s: TestServer;
let p: string;
const obj = (ident: string) => `/projects/${p}/pmd/obj/${ident}`;

beforeAll(async () => {
  s = await startTestServer({ URSA_DEFAULT_PLAN: 'team' });
  p = s.demo;
  await invite(s, p, READER);
  await invite(s, p, MD, { mdadmin: true });
  const r = await s.api('POST', `/projects/${p}/pmd/obj`, {
    body: {
      ident: 'cred.dwh',
      type: 'credentials',
      name: 'Data warehouse',
      def: {
        kind: 'postgres',
        host: WHERE[0],
        port: 6543,
        user: WHERE[1],
        database: WHERE[2],
        replicas: [`${WHERE[3]}:5432`],
        secret: SECRET,
      },
    },
  });
  expect(r.status, r.text).toBe(201);
}, 60_000);
afterAll(async () => {
  await s?.close();
});

describe('credentials objects', () => {
  it('a member sees the kind and secretSet only, through every REST read', async () => {
    const get = await s.api('GET', obj('cred.dwh'), { as: READER });
    expect(get.status, get.text).toBe(200);
    expect(get.json.object.def).toEqual({ kind: 'postgres', secretSet: true });
    for (const [path, accept] of [
      [obj('cred.dwh'), 'text/yaml'],
      [obj('cred.dwh'), 'text/html'],
      [`/projects/${p}/pmd/obj?rel=object.credentials`, 'application/json'],
      [`${obj('cred.dwh')}/history/1`, 'application/json'],
      [`/projects/${p}/pmd/bulkobj?idents=cred.dwh`, 'application/json'],
    ] as const) {
      const r = await s.api('GET', path, { as: READER, accept });
      expect(r.status, `${path} ${accept}: ${r.text}`).toBe(200);
      expect(r.text, `${path} ${accept}`).toContain('cred.dwh');
      for (const hidden of [...WHERE, SECRET, '6543'])
        expect(r.text, `${path} ${accept}`).not.toContain(hidden);
    }
  });

  it('a member sees the same over MCP', async () => {
    const c = await connectMcp(s, READER);
    try {
      const r = (await c.callTool({
        name: 'get_object',
        arguments: { project: p, id: 'cred.dwh' },
      })) as CallToolResult;
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      const text = JSON.stringify(r);
      expect(text).toContain('secretSet');
      for (const hidden of [...WHERE, SECRET]) expect(text).not.toContain(hidden);
    } finally {
      await c.close();
    }
  });

  it('MD Admins and Admins see where it goes, never the secret', async () => {
    for (const who of [MD, ADMIN]) {
      const r = await s.api('GET', obj('cred.dwh'), { as: who });
      expect(r.status, r.text).toBe(200);
      expect(r.json.object.def).toEqual({
        kind: 'postgres',
        host: WHERE[0],
        port: 6543,
        user: WHERE[1],
        database: WHERE[2],
        replicas: [`${WHERE[3]}:5432`],
        secretSet: true,
      });
      expect(r.text).not.toContain(SECRET);
    }
  });
});
