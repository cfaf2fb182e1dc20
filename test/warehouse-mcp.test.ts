// A warehouse project from zero entirely over MCP (issue 22, "Done means"), with the SDK's own
// client against a throwaway PostgreSQL: create_project with a warehouse binding (checked on
// save; a refused one creates nothing and never shows the password), list_warehouse_tables,
// map_tables (waits for the mapping job, with progress), then get_model and run_aql answered
// by PostgreSQL. Permissions are the REST ones.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from './helpers/mcp-client.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';
import {
  grantReader,
  SHOP_SCHEMA,
  startWarehouse,
  type TestWarehouse,
} from './helpers/warehouse.js';

const MD = 'md@example.com';

let s: TestServer;
let w: TestWarehouse;
let admin: Client;
let project: string;

interface Called {
  isError: boolean;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
  data: any;
}

async function call(
  c: Client,
  name: string,
  args: Record<string, unknown>,
  onprogress?: (p: Progress) => void,
): Promise<Called> {
  const r = (await c.callTool(
    { name, arguments: args },
    undefined,
    onprogress ? { onprogress } : undefined,
  )) as CallToolResult;
  const text = r.content
    .filter((b) => b.type === 'text')
    .map((b) => (b as { text: string }).text)
    .join('\n');
  return { isError: r.isError === true, text, data: r.structuredContent };
}

const warehouseArg = (password: string) => ({
  host: w.db.host,
  port: w.db.port,
  database: w.db.database,
  user: w.db.reader!.user,
  password,
  schema: 'shop',
});

beforeAll(async () => {
  w = await startWarehouse();
  await w.exec(SHOP_SCHEMA);
  await grantReader(w, 'shop');
  s = await startTestServer({
    URSA_DEFAULT_PLAN: 'enterprise',
    URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1',
    URSA_WAREHOUSE_CACHE_SECONDS: '0',
  });
  admin = await connectMcp(s, ADMIN);
}, 120_000);
afterAll(async () => {
  await admin?.close();
  await s?.close();
  await w?.stop();
});

describe('a warehouse project from zero over MCP', () => {
  it('create_project refuses a binding that fails its check, creates nothing and hides the password', async () => {
    const before = (await call(admin, 'list_projects', {})).data.projects.length;
    const bad = await call(admin, 'create_project', {
      id: 'shop',
      title: 'Shop',
      warehouse: warehouseArg('wrong-password-456'),
    });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/could not connect to 127\.0\.0\.1:\d+: .*password authentication/);
    expect(bad.text).toContain('the project was not created');
    expect(bad.text).not.toContain('wrong-password-456');
    const noSchema = await call(admin, 'create_project', {
      id: 'shop',
      title: 'Shop',
      warehouse: { ...warehouseArg(w.db.reader!.password), schema: 'nope' },
    });
    expect(noSchema.isError).toBe(true);
    expect(noSchema.text).toContain('schema "nope" does not exist');
    const badReplica = await call(admin, 'create_project', {
      id: 'shop',
      title: 'Shop',
      warehouse: { ...warehouseArg(w.db.reader!.password), replicas: ['not a host'] },
    });
    expect(badReplica.isError).toBe(true);
    expect(badReplica.text).toContain('warehouse.replicas.0: must be host:port');
    expect((await call(admin, 'list_projects', {})).data.projects).toHaveLength(before);
  });

  it('create_project follows the network rules: a loopback warehouse needs URSA_CONNECTOR_ALLOW_HOSTS', async () => {
    const strict = await startTestServer({ URSA_DEFAULT_PLAN: 'enterprise' });
    const c = await connectMcp(strict, ADMIN);
    try {
      const before = (await call(c, 'list_projects', {})).data.projects.length;
      const r = await call(c, 'create_project', {
        id: 'shop',
        title: 'Shop',
        warehouse: warehouseArg(w.db.reader!.password),
      });
      expect(r.isError).toBe(true);
      expect(r.text).toContain('URSA_CONNECTOR_ALLOW_HOSTS');
      expect(r.text).toContain('the project was not created');
      expect(r.text).not.toContain(w.db.reader!.password);
      expect((await call(c, 'list_projects', {})).data.projects).toHaveLength(before);
    } finally {
      await c.close();
      await strict.close();
    }
  });

  it('create_project binds a new project to the schema', async () => {
    const r = await call(admin, 'create_project', {
      id: 'shop',
      title: 'Shop',
      description: 'Orders where they live',
      warehouse: warehouseArg(w.db.reader!.password),
    });
    expect(r.isError, r.text).toBe(false);
    project = r.data.project;
    expect(project).toMatch(/^shop-/);
    expect(r.data.warehouse).toEqual({ credentials: 'credentials.warehouse', schema: 'shop' });
    expect(r.text).not.toContain(w.db.reader!.password);
    // The same project over REST: bound, the secret stored but never shown.
    const d = await s.api('GET', `/projects/${project}`);
    expect(d.json.project.warehouse).toEqual(r.data.warehouse);
    const cred = await s.api('GET', `/projects/${project}/pmd/obj/credentials.warehouse`);
    expect(cred.status, cred.text).toBe(200);
    expect(cred.text).not.toContain(w.db.reader!.password);
  });

  it('list_warehouse_tables shows the schema; map_tables maps tables together and waits, with progress', async () => {
    const list = await call(admin, 'list_warehouse_tables', { project });
    expect(list.isError, list.text).toBe(false);
    expect(list.data.schema).toBe('shop');
    expect(
      list.data.tables.map((t: { table: string; mapped: null }) => [t.table, t.mapped]),
    ).toEqual([
      ['shop.customers', null],
      ['shop.orders', null],
      ['shop.regions', null],
    ]);
    const progress: Progress[] = [];
    const mapped = await call(
      admin,
      'map_tables',
      {
        project,
        // With and without the schema: both are the bound schema's tables.
        tables: [{ table: 'shop.regions' }, { table: 'customers' }, { table: 'shop.orders' }],
      },
      (p) => progress.push(p),
    );
    expect(mapped.isError, mapped.text).toBe(false);
    expect(mapped.data.status).toBe('OK');
    expect(mapped.data.datasets.map((d: { dataset: string; table: string }) => d)).toEqual([
      expect.objectContaining({ dataset: 'regions', table: 'shop.regions' }),
      expect.objectContaining({ dataset: 'customers', table: 'shop.customers' }),
      expect.objectContaining({ dataset: 'orders', table: 'shop.orders' }),
    ]);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]!.message).toContain('mapping');
    // A mapping's jobId (from an answer that said RUNNING) is waited for again.
    const waited = await call(admin, 'map_tables', { project, jobId: mapped.data.jobId });
    expect(waited.data).toMatchObject({ status: 'OK', jobId: mapped.data.jobId });
    const notMapping = await call(admin, 'map_tables', { project, jobId: 'nope' });
    expect(notMapping.isError).toBe(true);
    // Mapping a mapped table again refreshes it from the catalog (a column added outside).
    await w.exec('ALTER TABLE shop.orders ADD COLUMN channel text');
    await w.exec(`UPDATE shop.orders SET channel = 'web'`);
    const again = await call(admin, 'map_tables', { project, tables: [{ table: 'shop.orders' }] });
    expect(again.isError, again.text).toBe(false);
    const channel = await call(admin, 'get_attribute_values', { project, attribute: 'channel' });
    expect(channel.data.values).toEqual([{ value: 'web', count: 5 }]);
    const listed = await call(admin, 'list_warehouse_tables', { project });
    expect(listed.data.tables.map((t: { mapped: string }) => t.mapped)).toEqual([
      'customers',
      'orders',
      'regions',
    ]);
  });

  it('get_model and run_aql answer from PostgreSQL, joining through the mapped foreign keys', async () => {
    const model = await call(admin, 'get_model', { project });
    expect(model.isError, model.text).toBe(false);
    expect(model.text).toContain('Region Name');
    const r = await call(admin, 'run_aql', {
      project,
      aql: 'SELECT [Region Name], SUM([amount]) ORDER BY 1',
    });
    expect(r.isError, r.text).toBe(false);
    expect(r.data.rows).toEqual([
      ['Europe', 230.75],
      ['United States', 200],
    ]);
    const ex = await call(admin, 'explain_aql', { project, aql: 'SELECT SUM([amount])' });
    expect(ex.text).toContain('\\"shop\\".\\"orders\\"');
    // PostgreSQL's own errors reach the model as an error it can read, never an internal one.
    await w.exec('ALTER TABLE shop.orders RENAME COLUMN amount TO amount_eur');
    try {
      const broken = await call(admin, 'run_aql', { project, aql: 'SELECT SUM([amount])' });
      expect(broken.isError).toBe(true);
      expect(broken.text).toContain('could not answer reading dataset orders');
      expect(broken.text).not.toContain('internal error');
    } finally {
      await w.exec('ALTER TABLE shop.orders RENAME COLUMN amount_eur TO amount');
    }
  });

  it('errors a model can act on: a missing table, a running job handle, an embedded project', async () => {
    const missing = await call(admin, 'map_tables', { project, tables: [{ table: 'shop.nope' }] });
    expect(missing.isError).toBe(true);
    expect(missing.text).toContain('no table or view "nope" in schema "shop"');
    const twice = await call(admin, 'map_tables', {
      project,
      tables: [{ table: 'shop.orders' }, { table: 'orders' }],
    });
    expect(twice.isError).toBe(true);
    expect(twice.text).toContain('two tables would be mapped as dataset "orders"');
    const embedded = await call(admin, 'list_warehouse_tables', { project: s.demo });
    expect(embedded.isError).toBe(true);
    expect(embedded.text).toContain('is not a warehouse project');
    const none = await call(admin, 'map_tables', { project });
    expect(none.isError).toBe(true);
    expect(none.text).toContain('pass tables');
  });

  it('permissions are the REST ones: an MD Admin maps but cannot create projects; a member neither', async () => {
    await invite(s, project, MD, { mdadmin: true });
    await invite(s, project, 'viewer@example.com');
    const md = await connectMcp(s, MD);
    const viewer = await connectMcp(s, 'viewer@example.com');
    try {
      const names = (await md.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['list_warehouse_tables', 'map_tables']));
      expect(names).not.toContain('create_project');
      const list = await call(md, 'list_warehouse_tables', { project });
      expect(list.isError, list.text).toBe(false);
      const viewerNames = (await viewer.listTools()).tools.map((t) => t.name);
      expect(viewerNames).not.toContain('map_tables');
      expect(viewerNames).toContain('run_aql');
      const r = await call(viewer, 'run_aql', { project, aql: 'SELECT COUNT([Order ID])' });
      expect(r.data.rows).toEqual([[5]]);
    } finally {
      await md.close();
      await viewer.close();
    }
    // The engine refuses the catalog below MD Admin, whichever door asks.
    const rest = await s.api('GET', `/projects/${project}/data/guesstable`, {
      as: 'viewer@example.com',
    });
    expect(rest.status).toBe(403);
  });
});
