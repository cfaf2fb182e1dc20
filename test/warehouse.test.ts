// Warehouse projects over real HTTP (issue 22) against a throwaway PostgreSQL 15: binding a
// project to a schema (checked on save), mapping tables and views from the catalog (types,
// primary keys, foreign keys as references), and AQL answered by PostgreSQL through the
// dialect seam, with row filters, read-only connections and errors as 400/ERROR.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from './helpers/fixtures.js';
import { REPLICA_RETRY_MS } from '../src/engine/warehouse/connection.js';
import { startReplica } from '../scripts/throwaway-postgres.js';
import {
  bindWarehouse,
  grantReader,
  startWarehouse,
  type TestWarehouse,
} from './helpers/warehouse.js';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;
let w: TestWarehouse;
let p: string;

const SCHEMA = `
  CREATE SCHEMA shop;
  CREATE TABLE shop.regions (region_code text PRIMARY KEY, "Region Name" text NOT NULL);
  CREATE TABLE shop.customers (
    customer_id integer PRIMARY KEY, customer_name text,
    region_code text REFERENCES shop.regions);
  CREATE TABLE shop.orders (
    order_id bigint PRIMARY KEY, customer_id integer REFERENCES shop.customers,
    ordered_on date NOT NULL, amount numeric(12, 2), qty integer, tags text[]);
  CREATE VIEW shop.big_orders AS SELECT * FROM shop.orders WHERE amount > 100;
  INSERT INTO shop.regions VALUES ('EU', 'Europe'), ('US', 'United States');
  INSERT INTO shop.customers VALUES (1, 'Ann', 'EU'), (2, 'Bob', 'US'), (3, 'Cleo', 'EU');
  INSERT INTO shop.orders VALUES
    (10, 1, '2024-01-05', 120.50, 2, '{a}'), (11, 1, '2024-02-10', 30.25, 1, NULL),
    (12, 2, '2024-02-11', 200.00, 5, NULL), (13, 3, '2024-03-01', NULL, 3, NULL),
    (14, 3, '2024-03-15', 80.00, 4, NULL);
  CREATE SCHEMA hidden;
  CREATE TABLE hidden.t (x int);
`;

async function aql(query: string, as?: string) {
  const r = await s.api('POST', `/projects/${p}/app/aql/execute`, {
    body: { aql: query },
    headers: { prefer: 'wait=20' },
    ...(as ? { as } : {}),
  });
  return r;
}

async function values(query: string, as?: string): Promise<string> {
  const r = await aql(query, as);
  expect(r.status, r.text).toBe(200);
  return r.json.data.values as string;
}

beforeAll(async () => {
  w = await startWarehouse({ own: true });
  await w.exec(SCHEMA);
  await grantReader(w, 'shop');
  s = await startTestServer({
    URSA_DEFAULT_PLAN: 'enterprise',
    URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1',
    URSA_WAREHOUSE_CACHE_SECONDS: '0',
  });
  p = await createProject(s, 'wh', 'Warehouse');
}, 120_000);
afterAll(async () => {
  await s?.close();
  await w?.stop();
});

describe('binding a project to a warehouse schema', () => {
  it('is checked on save: a missing schema, an unreadable one, wrong credentials are 400s saying what failed', async () => {
    await bindWarehouse(s, p, w, 'shop'); // creates cred.warehouse and binds
    const put = (body: unknown) => s.api('PUT', `/projects/${p}`, { body: { warehouse: body } });
    let r = await put({ credentials: 'cred.warehouse', schema: 'nope' });
    expect(r.status).toBe(400);
    expect(r.json.message).toContain('schema "nope" does not exist');
    r = await put({ credentials: 'cred.warehouse', schema: 'hidden' });
    expect(r.status).toBe(400);
    expect(r.json.message).toContain('may not use schema "hidden"');
    r = await put({ credentials: 'cred.none', schema: 'shop' });
    expect(r.status).toBe(400);
    expect(r.json.message).toContain('credentials "cred.none" do not exist');
    const bad = await s.api('POST', `/projects/${p}/pmd/obj`, {
      body: {
        ident: 'cred.bad',
        type: 'credentials',
        name: 'Bad password',
        def: {
          kind: 'postgres',
          host: w.db.host,
          port: w.db.port,
          user: w.db.reader!.user,
          database: w.db.database,
          secret: 'wrong-password-123',
        },
      },
    });
    expect(bad.status, bad.text).toBe(201);
    r = await put({ credentials: 'cred.bad', schema: 'shop' });
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(
      /could not connect to 127\.0\.0\.1:\d+: .*password authentication failed/,
    );
    expect(r.text).not.toContain('wrong-password-123');
    // The binding is unchanged and shown without any secret.
    const d = await s.api('GET', `/projects/${p}`);
    expect(d.json.project?.warehouse ?? d.json.warehouse).toEqual({
      credentials: 'cred.warehouse',
      schema: 'shop',
    });
    expect(d.text).not.toContain(w.db.reader!.password);
  });

  it('network rules apply: without URSA_CONNECTOR_ALLOW_HOSTS a loopback server is refused', async () => {
    const strict = await startTestServer({ URSA_DEFAULT_PLAN: 'enterprise' });
    try {
      const q = await createProject(strict, 'whs', 'Strict');
      const cred = await strict.api('POST', `/projects/${q}/pmd/obj`, {
        body: {
          ident: 'cred.wh',
          type: 'credentials',
          name: 'WH',
          def: {
            kind: 'postgres',
            host: w.db.host,
            port: w.db.port,
            user: w.db.reader!.user,
            database: w.db.database,
            secret: w.db.reader!.password,
          },
        },
      });
      expect(cred.status, cred.text).toBe(201);
      const r = await strict.api('PUT', `/projects/${q}`, {
        body: { warehouse: { credentials: 'cred.wh', schema: 'shop' } },
      });
      expect(r.status).toBe(400);
      expect(r.json.message).toContain('URSA_CONNECTOR_ALLOW_HOSTS');
    } finally {
      await strict.close();
    }
  });
});

describe('mapping tables and views', () => {
  it('lists the mappable tables and views of the bound schema', async () => {
    const r = await s.api('GET', `/projects/${p}/data/guesstable`);
    expect(r.status, r.text).toBe(200);
    const tables = r.json.tables as { ident: string; kind: string; readable: boolean }[];
    expect(tables.map((t) => [t.ident, t.kind, t.readable])).toEqual([
      ['shop.big_orders', 'view', true],
      ['shop.customers', 'table', true],
      ['shop.orders', 'table', true],
      ['shop.regions', 'table', true],
    ]);
  });

  it('guesses a table from the catalog: types, primary key, foreign keys as references, samples', async () => {
    const r = await s.api('GET', `/projects/${p}/data/guesstable/shop.orders`);
    expect(r.status, r.text).toBe(200);
    expect(r.json.ident).toBe('shop.orders');
    const pr = r.json.prescription;
    expect(pr.primarykey).toBe('order_id');
    expect(
      pr.columns.map((c: Record<string, string>) => [c.id, c.dataType, c.objectType, c.reference]),
    ).toEqual([
      ['order_id', 'integer', 'A', undefined],
      ['customer_id', 'integer', 'A', 'customers'],
      ['ordered_on', 'date', 'A', undefined],
      ['amount', 'number', 'F', undefined],
      ['qty', 'integer', 'F', undefined],
    ]);
    expect(r.json.skipped).toEqual([{ name: 'tags', type: 'text[]' }]);
    expect(pr.data[0]).toEqual(['10', '1', '2024-01-05', '120.50', '2']);
    const regions = await s.api('GET', `/projects/${p}/data/guesstable/shop.regions`);
    expect(regions.json.prescription.columns[1]).toMatchObject({
      id: 'region_name',
      originalheader: 'Region Name',
    });
    const none = await s.api('GET', `/projects/${p}/data/guesstable/shop.nothing`);
    expect(none.status).toBe(404);
    const other = await s.api('GET', `/projects/${p}/data/guesstable/hidden.t`);
    expect(other.status).toBe(400);
  });

  it('maps several tables at once, creating datasets with references and nothing in the database', async () => {
    const r = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
      body: {
        type: 'cluster',
        clusters: {
          regions: { source_type: 'table', source: 'shop.regions' },
          customers: {
            source_type: 'table',
            source: 'shop.customers',
          },
          orders: { source_type: 'table', source: 'shop.orders' },
        },
      },
    });
    expect(r.status, r.text).toBe(202);
    const job = await s.engine.jobs.waitFor(r.json.link[0].id);
    expect(job.status, job.message).toBe('OK');
    const idents = (await s.engine.model.all(p)).map((o) => o.ident);
    expect(idents).toEqual(
      expect.arrayContaining([
        'attr.orders.customer_id',
        'attr.regions.region_code',
        'fact.orders.amount',
      ]),
    );
    const ref = (await s.engine.model.get(p, 'attr.orders.customer_id'))!.def;
    expect(ref).toMatchObject({ reference: { dataset: 'customers' } });
    const status = await s.api('GET', `/projects/${p}/kodiak/dataload`);
    expect(status.json.warehouse).toMatchObject({
      schema: 'shop',
      resultsExpireSeconds: 0,
      rowsExactUpTo: 100_000,
    });
    expect(status.json.warehouse.note).toContain('a cached answer is served for at most 0 s');
    const tables = await w.exec(
      `SELECT count(*)::int AS n FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`,
    );
    expect(tables.rows[0].n).toBe(4); // regions, customers, orders, hidden.t: nothing added
  });

  it('an edited prescription may rename and retype; a column the table lacks is a 400', async () => {
    const bad = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
      body: {
        type: 'cluster',
        clusters: {
          big: {
            source_type: 'table',
            source: 'shop.big_orders',
            prescription: {
              primarykey: 'order_id',
              columns: [
                {
                  id: 'order_id',
                  originalheader: 'order_id',
                  objectType: 'A',
                  dataType: 'integer',
                  label: 'Big Order',
                },
                {
                  id: 'x',
                  originalheader: 'nope',
                  objectType: 'F',
                  dataType: 'number',
                  label: 'X',
                },
              ],
            },
          },
        },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain('reads "nope", which shop.big_orders does not have');
    const ok = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
      body: {
        type: 'cluster',
        clusters: {
          big: {
            source_type: 'table',
            source: 'shop.big_orders',
            prescription: {
              primarykey: 'order_id',
              columns: [
                {
                  id: 'order_id',
                  originalheader: 'order_id',
                  objectType: 'A',
                  dataType: 'integer',
                  label: 'Big Order',
                },
                {
                  id: 'big_amount',
                  originalheader: 'amount',
                  objectType: 'F',
                  dataType: 'number',
                  label: 'Big Amount',
                },
              ],
            },
          },
        },
      },
    });
    expect(ok.status, ok.text).toBe(202);
    const job = await s.engine.jobs.waitFor(ok.json.link[0].id);
    expect(job.status, job.message).toBe('OK');
  });
});

describe('AQL on the warehouse', () => {
  it('answers through references (orders → customers → regions), in PostgreSQL', async () => {
    expect(await values('SELECT [Region Name], SUM([amount]), COUNT([Order ID])')).toBe(
      'Europe\t230.75\t4\nUnited States\t200\t1',
    );
    expect(await values('SELECT SUM([Big Amount])')).toBe('320.5');
    const ex = await s.api('POST', `/projects/${p}/app/aql/explain`, {
      body: { aql: 'SELECT [Customer Name], SUM([amount]) WHERE [Ordered On] >= "2024-02-01"' },
    });
    expect(ex.status, ex.text).toBe(200);
    const explained = JSON.stringify(ex.json);
    expect(explained).toContain('\\"shop\\".\\"orders\\"');
    expect(explained).toContain('$1::DATE'); // a typed parameter, not a cast per row
    expect(explained).toContain('postgres');
  });

  it('QUALIFY, windows, dates and TODAY() compile for PostgreSQL', async () => {
    expect(
      await values(
        'SELECT [Customer Name], SUM([amount]) AS "A" QUALIFY RANK() OVER (ORDER BY SUM([amount]) DESC) <= 2',
      ),
    ).toBe('Ann\t150.75\nBob\t200');
    expect(
      await values('SELECT MONTH([Ordered On]), COUNT([Order ID]) WHERE [Ordered On] < TODAY()'),
    ).toBe('1\t1\n2\t2\n3\t2');
    expect(await values('SELECT DATE_DIFF("day", "2024-01-01", MAX([Ordered On]))')).toBe('74');
  });

  it('attribute values and the model catalog (cardinalities, examples) come from the warehouse', async () => {
    const v = await s.api('GET', `/projects/${p}/pmd/obj/attr.customers.region_code/values`);
    expect(v.status, v.text).toBe(200);
    expect(JSON.stringify(v.json)).toContain('"EU"');
    const actor = await s.engine.actor({ email: ADMIN }, p);
    const cat = await s.engine.catalog.catalog(actor, { dataset: 'customers', profile: true });
    const region = cat.datasets[0]!.columns.find((c) => c.id === 'attr.customers.region_code')!;
    expect(region.cardinality).toBe(2);
    expect(region.examples).toEqual(['EU', 'US']);
    expect(cat.datasets[0]!.rows).toBe(3);
  });

  it('a row-level filter applies as on DuckDB', async () => {
    const inv = await s.api('POST', `/projects/${p}/users`, {
      body: { id: 'eu@example.com', filter: '[Region Code] = "EU"' },
    });
    expect(inv.status, inv.text).toBe(200);
    expect(await values('SELECT SUM([amount])', 'eu@example.com')).toBe('230.75');
  });

  it('a warehouse error ends the job ERROR naming the dataset; queries cannot write', async () => {
    await w.exec('ALTER TABLE shop.orders RENAME COLUMN qty TO quantity');
    try {
      const r = await aql('SELECT SUM([qty])');
      // The job ended ERROR; waiting on it answers the 400 with the database's reason.
      expect(r.status, r.text).toBe(400);
      expect(r.json.context.status).toBe('ERROR');
      expect(r.json.message).toBe(
        'the warehouse (PostgreSQL) could not answer reading dataset orders: column t0.qty does not exist',
      );
    } finally {
      await w.exec('ALTER TABLE shop.orders RENAME COLUMN quantity TO qty');
    }
    const ro = await s.engine.warehouse
      .read(p, 'INSERT INTO shop.regions VALUES ($1::text, $2::text)', ['XX', 'x'])
      .then(
        () => 'written',
        (e: Error) => e.message,
      );
    expect(ro).toContain('read-only transaction');
  });
});

describe('read replicas', () => {
  it('queries go to a streaming replica; one that stops is skipped, and used again once it is back', async () => {
    const replica = await startReplica(w.db);
    try {
      const q = await createProject(s, 'wh-replica', 'Warehouse with a replica');
      const cred = await s.api('POST', `/projects/${q}/pmd/obj`, {
        body: {
          ident: 'cred.replicated',
          type: 'credentials',
          name: 'Replicated',
          def: {
            kind: 'postgres',
            host: w.db.host,
            port: w.db.port,
            user: w.db.reader!.user,
            database: w.db.database,
            secret: w.db.reader!.password,
            replicas: [`127.0.0.1:${replica.port}`],
          },
        },
      });
      expect(cred.status, cred.text).toBe(201);
      const bound = await s.api('PUT', `/projects/${q}`, {
        body: { warehouse: { credentials: 'cred.replicated', schema: 'shop' } },
      });
      expect(bound.status, bound.text).toBe(200);
      const recovering = async () =>
        (await s.engine.warehouse.read(q, 'SELECT pg_is_in_recovery()', []))[0]![0];
      expect(await recovering()).toBe('true'); // answered by the standby
      replica.halt();
      expect(await recovering()).toBe('false'); // the replica is down: the primary answers
      expect(await recovering()).toBe('false'); // skipped: no query waits on it
      // Started again, it is used again once a background probe finds it answering.
      replica.resume();
      const deadline = Date.now() + REPLICA_RETRY_MS + 20_000;
      let back = false;
      while (!back && Date.now() < deadline) {
        back = (await recovering()) === 'true';
        if (!back) await new Promise((r) => setTimeout(r, 250));
      }
      expect(back).toBe(true);
    } finally {
      await replica.stop().catch(() => {});
    }
  }, 90_000);
});
