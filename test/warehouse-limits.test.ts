// Limits of a warehouse project that a request waits on or an operator set (issue 30): a slow
// view's sample read and row count run under URSA_WAREHOUSE_SAMPLE_TIMEOUT_SECONDS, not the
// query limit (a view with pg_sleep held a request for minutes); replicas are held to the
// connector network rules when the binding is saved, by REST and by MCP, as the primary is.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from './helpers/fixtures.js';
import { connectMcp } from './helpers/mcp-client.js';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';
import {
  bindWarehouse,
  grantReader,
  SHOP_SCHEMA,
  startWarehouse,
  type TestWarehouse,
} from './helpers/warehouse.js';

let s: TestServer;
let w: TestWarehouse;
let p: string;

// Far past the test's own time limit: without a limit of its own, the request waits for it.
const SLOW = 'pg_sleep(600)';

beforeAll(async () => {
  w = await startWarehouse();
  await w.exec(SHOP_SCHEMA);
  await w.exec(`
    CREATE VIEW shop.slow AS SELECT r.region_code, r."Region Name" FROM shop.regions r, ${SLOW};
    CREATE VIEW shop.later AS SELECT region_code, "Region Name" FROM shop.regions;`);
  await grantReader(w, 'shop');
  s = await startTestServer({
    URSA_DEFAULT_PLAN: 'enterprise',
    URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1',
    URSA_WAREHOUSE_CACHE_SECONDS: '0',
    URSA_WAREHOUSE_SAMPLE_TIMEOUT_SECONDS: '0.5',
  });
  p = await createProject(s, 'whlim', 'Warehouse limits');
  await bindWarehouse(s, p, w, 'shop');
}, 120_000);
afterAll(async () => {
  await s?.close();
  await w?.stop();
});

describe('a slow table or view', () => {
  it('its structure guess stops at the sample limit: a 400 naming the view and the limit', async () => {
    const r = await s.api('GET', `/projects/${p}/data/guesstable/shop.slow`);
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toBe(
      'the warehouse (PostgreSQL) could not answer reading shop.slow: reading the sample rows of shop.slow took longer than its limit of 0.5 s (URSA_WAREHOUSE_SAMPLE_TIMEOUT_SECONDS)',
    );
    // The connection is not left in a failed transaction: the next guess answers.
    const ok = await s.api('GET', `/projects/${p}/data/guesstable/shop.regions`);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.prescription.data).toHaveLength(2);
  }, 30_000);

  it('a mapped view that became slow is not counted on kodiak/dataload: its rows are estimated', async () => {
    const m = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
      body: {
        type: 'cluster',
        clusters: { later: { source_type: 'table', source: 'shop.later' } },
      },
      headers: { prefer: 'wait=20' },
    });
    expect(m.status, m.text).toBeLessThan(300);
    const job = await s.engine.jobs.waitFor(m.json.link[0].id, 20_000);
    expect(job.status, job.message).toBe('OK');
    await w.exec(
      `CREATE OR REPLACE VIEW shop.later AS
         SELECT r.region_code, r."Region Name" FROM shop.regions r, ${SLOW}`,
    );
    const r = await s.api('GET', `/projects/${p}/kodiak/dataload`);
    expect(r.status, r.text).toBe(200);
    const later = (r.json.dataload.datasets as { name: string; rowsEstimated?: boolean }[]).find(
      (d) => d.name === 'later',
    );
    expect(later?.rowsEstimated).toBe(true);
  }, 30_000);
});

describe('replicas follow the network rules on save', () => {
  const replicated = (ident: string, replicas: string[]) => ({
    ident,
    type: 'credentials',
    name: ident,
    def: {
      kind: 'postgres',
      host: w.db.host,
      port: w.db.port,
      user: w.db.reader!.user,
      database: w.db.database,
      secret: w.db.reader!.password,
      replicas,
    },
  });

  it('PUT /projects/{p}: a replica on a loopback address not allowed is refused (400), the binding unchanged', async () => {
    const q = await createProject(s, 'whrep', 'Replica rules');
    const cred = await s.api('POST', `/projects/${q}/pmd/obj`, {
      body: replicated('cred.rep', ['127.0.0.2:5432']),
    });
    expect(cred.status, cred.text).toBe(201);
    const r = await s.api('PUT', `/projects/${q}`, {
      body: { warehouse: { credentials: 'cred.rep', schema: 'shop' } },
    });
    expect(r.status, r.text).toBe(400);
    expect(r.json.context).toMatchObject({ field: 'warehouse.replicas.0' });
    expect(r.json.message).toContain('a replica is refused');
    expect(r.json.message).toContain('127.0.0.2');
    expect(r.json.message).toContain('URSA_CONNECTOR_ALLOW_HOSTS');
    expect(r.text).not.toContain(w.db.reader!.password);
    const d = await s.api('GET', `/projects/${q}`);
    expect(d.json.project?.warehouse ?? d.json.warehouse ?? null).toBeNull();
    // An allowed replica is saved.
    const fine = await s.api('POST', `/projects/${q}/pmd/obj`, {
      body: replicated('cred.fine', [`127.0.0.1:${w.db.port}`]),
    });
    expect(fine.status, fine.text).toBe(201);
    const ok = await s.api('PUT', `/projects/${q}`, {
      body: { warehouse: { credentials: 'cred.fine', schema: 'shop' } },
    });
    expect(ok.status, ok.text).toBe(200);
  });

  it('MCP create_project: a refused replica creates nothing and says why', async () => {
    const c: Client = await connectMcp(s, ADMIN);
    try {
      const before = await s.api('GET', '/projects');
      const r = (await c.callTool({
        name: 'create_project',
        arguments: {
          id: 'whrepmcp',
          title: 'Replica over MCP',
          warehouse: {
            host: w.db.host,
            port: w.db.port,
            database: w.db.database,
            user: w.db.reader!.user,
            password: w.db.reader!.password,
            schema: 'shop',
            replicas: ['127.0.0.2:5432'],
          },
        },
      })) as CallToolResult;
      const text = JSON.stringify(r.content);
      expect(r.isError, text).toBe(true);
      expect(text).toContain('a replica is refused');
      expect(text).toContain('URSA_CONNECTOR_ALLOW_HOSTS');
      expect(text).toContain('the project was not created');
      expect(text).not.toContain(w.db.reader!.password);
      const after = await s.api('GET', '/projects');
      expect(after.text).toBe(before.text);
    } finally {
      await c.close();
    }
  });
});
