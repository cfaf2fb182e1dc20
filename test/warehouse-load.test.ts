// Loads into a warehouse project over real HTTP (issue 22 item 4) against a throwaway
// PostgreSQL 15: a file upload loaded in full and incrementally becomes a typed, keyed table
// of the bound schema (checked with a direct query) whose AQL answers equal those of the same
// load into an embedded project; a failing load (bad rows, a statement timeout, a killed
// connection) leaves the previous table and rows as they were; a role without CREATE and a
// table Ursa did not create are refused up front; a flow's output lands there the same way; a
// table the customer's views and foreign keys depend on is refilled in place.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, waitFor } from './helpers/fixtures.js';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';
import { parseShellExamples } from './helpers/shell-examples.js';
import { rawStorage } from './helpers/storage.js';
import { bindWarehouse, startWarehouse, type TestWarehouse } from './helpers/warehouse.js';

let s: TestServer;
let w: TestWarehouse;
/** A superuser session (over the socket): locks tables and ends backends as an operator would. */
let su: pg.Client;
let wh: string;
let emb: string;

const ORDERS = [
  'Order ID,Customer,Region,Amount,Qty,Ordered On,Ordered At,Paid',
  '1,Ann,EU,120.5,2,2024-01-05,2024-01-05T10:00:00Z,true',
  '2,Bob,US,30.25,1,2024-02-10,2024-02-10 08:30:00+02:00,false',
  '3,"Cleo, Jr.",EU,,3,2024-03-01,,yes',
  '4,,US,80,4,,2024-03-15T23:59:59.5Z,0',
].join('\n');

const DELTA = [
  'Order ID,Customer,Region,Amount,Qty,Ordered On,Ordered At,Paid',
  '2,Bob,US,35.75,2,2024-02-10,2024-02-10 08:30:00+02:00,true',
  '5,Dora,APAC,12.5,1,2024-04-01,2024-04-01T00:00:00Z,false',
].join('\n');

const col = (
  id: string,
  originalheader: string,
  objectType: 'A' | 'F' | 'L',
  dataType: string,
  label: string,
  extra: Record<string, string> = {},
) => ({ id, originalheader, objectType, dataType, label, ...extra });

const PRESCRIPTION = {
  primarykey: 'order_id',
  columns: [
    col('order_id', 'Order ID', 'A', 'integer', 'Order'),
    col('customer', 'Customer', 'L', 'string', 'Customer', { labelOf: 'order_id' }),
    col('region', 'Region', 'A', 'string', 'Region'),
    col('amount', 'Amount', 'F', 'number', 'Amount'),
    col('qty', 'Qty', 'F', 'integer', 'Qty'),
    col('ordered_on', 'Ordered On', 'A', 'date', 'Ordered On'),
    col('ordered_at', 'Ordered At', 'A', 'datetime', 'Ordered At'),
    col('paid', 'Paid', 'A', 'boolean', 'Paid'),
  ],
};

async function put(project: string, file: string, text: string) {
  await rawStorage(s.engine).writeFile(project, file, Buffer.from(text));
}

/** Starts a load (202) and waits for its job. */
async function load(
  project: string,
  dataset: string,
  file: string,
  mode: 'full' | 'incremental' = 'full',
) {
  const r = await startLoad(project, dataset, file, mode);
  expect(r.status, r.text).toBe(202);
  return s.engine.jobs.waitFor(r.json.link[0].id, 60_000);
}

function startLoad(
  project: string,
  dataset: string,
  file: string,
  mode: 'full' | 'incremental' = 'full',
  prescription: unknown = PRESCRIPTION,
) {
  return s.api('POST', `/projects/${project}/kodiak/transform/execute`, {
    body: {
      type: 'cluster',
      clusters: { [dataset]: { source_type: 'webdav', source: file, mode, prescription } },
    },
  });
}

async function values(project: string, aql: string): Promise<string> {
  const r = await s.api('POST', `/projects/${project}/app/aql/execute`, {
    body: { aql },
    headers: { prefer: 'wait=20' },
  });
  expect(r.status, r.text).toBe(200);
  return r.json.data.values as string;
}

const QUERIES = [
  'SELECT [Region], SUM([Amount]), SUM([Qty]), COUNT([Order])',
  'SELECT [Customer], [Ordered On], [Ordered At], [Paid], SUM([Amount])',
  'SELECT YEAR([Ordered On]), MONTH([Ordered At]), COUNT([Order]) WHERE [Paid] = TRUE',
  'SELECT MAX([Ordered At]), MIN([Ordered On]), AVG([Amount])',
];

/** Every query answers the same in the warehouse project as in the embedded one. */
async function sameAnswers(): Promise<void> {
  for (const q of QUERIES) expect(await values(wh, q), q).toBe(await values(emb, q));
}

/** Rows of a table, read as a superuser (tables a load created belong to the loading role). */
async function rowsOf(table: string): Promise<unknown[][]> {
  return (await su.query({ text: `SELECT * FROM ${table} ORDER BY 1`, rowMode: 'array' }))
    .rows as unknown[][];
}

/** Tables of the schema (no load left a half-written one behind). */
async function tablesOf(schema: string): Promise<string[]> {
  const r = await su.query(
    `SELECT tablename FROM pg_tables WHERE schemaname = $1::text ORDER BY tablename`,
    [schema],
  );
  return r.rows.map((x: { tablename: string }) => x.tablename);
}

beforeAll(async () => {
  w = await startWarehouse({ own: true });
  const r = w.db.reader!.user;
  await w.exec(`
    CREATE SCHEMA dwh;
    GRANT USAGE, CREATE ON SCHEMA dwh TO ${r};
    CREATE TABLE dwh.crm (id int PRIMARY KEY, name text);
    INSERT INTO dwh.crm VALUES (1, 'kept');
    GRANT SELECT ON dwh.crm TO ${r};
    CREATE SCHEMA analytics;
    GRANT USAGE, CREATE ON SCHEMA analytics TO ${r};
    CREATE SCHEMA readonly;
    GRANT USAGE ON SCHEMA readonly TO ${r};
  `);
  su = new pg.Client({
    host: w.db.socketDir,
    port: w.db.port,
    user: 'postgres',
    database: w.db.database,
  });
  su.on('error', () => {});
  await su.connect();
  await su.query('CREATE ROLE bi_reader NOLOGIN');
  s = await startTestServer({
    URSA_DEFAULT_PLAN: 'enterprise',
    URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1',
    // Answers are cached: a load's data version bump is what makes the next query see its rows.
    URSA_WAREHOUSE_CACHE_SECONDS: '600',
    // Short, so a load waiting on a lock ends within the test (loads here take milliseconds).
    URSA_WAREHOUSE_LOAD_TIMEOUT_SECONDS: '4',
  });
  wh = await createProject(s, 'whl', 'Warehouse loads');
  emb = await createProject(s, 'embl', 'Embedded twin');
  await bindWarehouse(s, wh, w, 'dwh');
  for (const p of [wh, emb]) {
    await rawStorage(s.engine).mkdir(p, '/in');
    await put(p, '/in/orders.csv', ORDERS);
    await put(p, '/in/delta.csv', DELTA);
  }
}, 120_000);
afterAll(async () => {
  await su?.end().catch(() => {});
  await s?.close();
  await w?.stop();
});

describe('a file loaded into a warehouse project', () => {
  it('becomes a typed, keyed table of the bound schema, and AQL answers as on the embedded engine', async () => {
    for (const p of [emb, wh]) {
      const job = await load(p, 'orders', '/in/orders.csv');
      expect(job.status, job.message).toBe('OK');
      expect(job.result).toMatchObject({
        clusters: { orders: { rows: 4, loaded: 4, mode: 'full', source: '/in/orders.csv' } },
      });
    }
    const types = await su.query(
      `SELECT column_name, data_type FROM information_schema.columns
        WHERE table_schema = 'dwh' AND table_name = 'orders' ORDER BY ordinal_position`,
    );
    expect(types.rows.map((r: Record<string, string>) => [r.column_name, r.data_type])).toEqual([
      ['order_id', 'bigint'],
      ['customer', 'text'],
      ['region', 'text'],
      ['amount', 'double precision'],
      ['qty', 'bigint'],
      ['ordered_on', 'date'],
      ['ordered_at', 'timestamp with time zone'],
      ['paid', 'boolean'],
    ]);
    const pk = await su.query(
      `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid
          AND a.attnum = ANY (i.indkey)
        WHERE i.indrelid = 'dwh.orders'::regclass AND i.indisprimary`,
    );
    expect(pk.rows).toEqual([{ attname: 'order_id' }]);
    await su.query(`SET TimeZone = 'UTC'`);
    const rows = await su.query(
      `SELECT order_id::text, customer, region, amount, qty::text, ordered_on::text,
              ordered_at::text, paid FROM dwh.orders ORDER BY order_id`,
    );
    expect(rows.rows.map((r: Record<string, unknown>) => Object.values(r))).toEqual([
      ['1', 'Ann', 'EU', 120.5, '2', '2024-01-05', '2024-01-05 10:00:00+00', true],
      ['2', 'Bob', 'US', 30.25, '1', '2024-02-10', '2024-02-10 06:30:00+00', false],
      ['3', 'Cleo, Jr.', 'EU', null, '3', '2024-03-01', null, true],
      ['4', null, 'US', 80, '4', null, '2024-03-15 23:59:59.5+00', false],
    ]);
    const comment = await su.query(
      `SELECT obj_description('dwh.orders'::regclass, 'pg_class') AS c`,
    );
    expect(comment.rows[0].c).toContain(`[ursa:${wh}/orders]`);
    // The dataset is recorded as a table Ursa loaded, with the model objects of its prescription.
    const status = await s.api('GET', `/projects/${wh}/kodiak/dataload`);
    expect(status.json.dataload.datasets).toEqual([
      expect.objectContaining({ name: 'orders', rows: 4, source: 'loaded:dwh.orders' }),
    ]);
    const objects = async (p: string) =>
      (await s.engine.model.all(p))
        .filter((o) => o.type !== 'credentials')
        .map((o) => [o.ident, o.name, o.def])
        .sort();
    expect(await objects(wh)).toEqual(await objects(emb));
    await sameAnswers();
    expect(await values(wh, 'SELECT [Region], SUM([Amount])')).toBe('EU\t120.5\nUS\t110.25');
    // Attribute values read the table by its column ids too.
    const v = await s.api('GET', `/projects/${wh}/pmd/obj/attr.orders.region/values`);
    expect(v.status, v.text).toBe(200);
    expect(JSON.stringify(v.json)).toContain('"US"');
  });

  it('an incremental load replaces rows by key and adds new ones, as on the embedded engine', async () => {
    const before = (await s.engine.model.versions(wh)).dataVersion;
    for (const p of [emb, wh]) {
      const job = await load(p, 'orders', '/in/delta.csv', 'incremental');
      expect(job.status, job.message).toBe('OK');
      expect(job.result).toMatchObject({
        clusters: { orders: { rows: 5, loaded: 2, mode: 'incremental' } },
      });
    }
    expect((await s.engine.model.versions(wh)).dataVersion).toBeGreaterThan(before);
    const rows = await su.query(`SELECT order_id::int, amount, paid FROM dwh.orders ORDER BY 1`);
    expect(rows.rows.map((r: Record<string, unknown>) => Object.values(r))).toEqual([
      [1, 120.5, true],
      [2, 35.75, true],
      [3, null, true],
      [4, 80, false],
      [5, 12.5, false],
    ]);
    await sameAnswers();
  });

  it('a full load again replaces the table, keeping the grants other roles had on it', async () => {
    // The table belongs to the loading role: an operator grants on it as a superuser.
    await su.query(`GRANT SELECT ON dwh.orders TO bi_reader`);
    const job = await load(wh, 'orders', '/in/orders.csv');
    expect(job.status, job.message).toBe('OK');
    expect((await rowsOf('dwh.orders')).length).toBe(4);
    const g = await su.query(
      `SELECT has_table_privilege('bi_reader', 'dwh.orders', 'SELECT') AS can`,
    );
    expect(g.rows[0].can).toBe(true);
    expect(await tablesOf('dwh')).toEqual(['crm', 'orders']);
    // Back to the incremental state both projects share.
    expect((await load(wh, 'orders', '/in/delta.csv', 'incremental')).status).toBe('OK');
  });
});

describe('a failing load leaves the previous table and rows untouched', () => {
  let snapshot: unknown[][];
  beforeAll(async () => {
    snapshot = await rowsOf('dwh.orders');
    expect(snapshot.length).toBe(5);
  });

  async function untouched() {
    expect(await rowsOf('dwh.orders')).toEqual(snapshot);
    expect(await tablesOf('dwh')).toEqual(['crm', 'orders']);
    const status = await s.api('GET', `/projects/${wh}/kodiak/dataload`);
    expect(status.json.dataload.datasets[0]).toMatchObject({ name: 'orders', rows: 5 });
  }

  it('rows that do not match the prescription: the same error as an embedded load', async () => {
    for (const p of [wh, emb])
      await put(p, '/in/bad.csv', `${ORDERS}\n6,Eve,EU,lots,1,2024-05-01,,true\n7,Fay,EU,1,x,,,`);
    const messages: string[] = [];
    for (const p of [wh, emb]) {
      const job = await load(p, 'orders', '/in/bad.csv');
      expect(job.status).toBe('ERROR');
      messages.push(job.message ?? '');
    }
    expect(messages[0]).toContain('2 row(s) of /in/bad.csv do not match the prescription');
    expect(messages[0]).toBe(messages[1]);
    await untouched();
  });

  it('a repeated primary key: the same error as an embedded load', async () => {
    for (const p of [wh, emb]) await put(p, '/in/dup.csv', `${ORDERS}\n1,Ann,EU,1,1,,,`);
    const job = await load(wh, 'orders', '/in/dup.csv');
    expect(job.status).toBe('ERROR');
    expect(job.message).toContain('primary key "order_id" is not unique');
    await untouched();
  });

  /** Starts a full load while the table is locked; `act` gets the waiting backend's pid. */
  async function whileLocked(act: (pid: number, job: string) => Promise<void>) {
    const locker = new pg.Client({
      host: w.db.socketDir,
      port: w.db.port,
      user: 'postgres',
      database: w.db.database,
    });
    locker.on('error', () => {});
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE dwh.orders IN ACCESS EXCLUSIVE MODE');
      const r = await startLoad(wh, 'orders', '/in/orders.csv');
      expect(r.status, r.text).toBe(202);
      // The load waits on the lock to drop the old table: everything else is written by then.
      const pid = await waitFor(async () => {
        const a = await su.query(
          `SELECT pid FROM pg_stat_activity
            WHERE application_name = 'ursa-warehouse-load' AND wait_event_type = 'Lock'`,
        );
        return a.rows[0]?.pid as number | undefined;
      }, 20_000);
      await act(pid, r.json.link[0].id as string);
      const job = await s.engine.jobs.waitFor(r.json.link[0].id, 30_000);
      await locker.query('ROLLBACK');
      return job;
    } finally {
      await locker.end().catch(() => {});
    }
  }

  it('a statement timeout ends the job ERROR with the database reason, rolled back', async () => {
    const job = await whileLocked(async () => {});
    expect(job.status).toBe('ERROR');
    expect(job.message).toMatch(
      /the warehouse \(PostgreSQL 127\.0\.0\.1:\d+\) refused the load of dataset "orders" into schema "dwh": canceling statement due to statement timeout; nothing was loaded/,
    );
    expect(job.message).not.toContain(w.db.reader!.password);
    await untouched();
  }, 60_000);

  it('a killed connection ends the job ERROR, rolled back; the next load works', async () => {
    const job = await whileLocked(async (pid) => {
      await su.query('SELECT pg_terminate_backend($1::int)', [pid]);
    });
    expect(job.status).toBe('ERROR');
    expect(job.message).toMatch(
      /refused the load of dataset "orders" into schema "dwh": terminating connection due to administrator command; nothing was loaded$/,
    );
    await untouched();
    const again = await load(wh, 'orders', '/in/orders.csv');
    expect(again.status, again.message).toBe('OK');
    expect((await rowsOf('dwh.orders')).length).toBe(4);
    expect((await load(wh, 'orders', '/in/delta.csv', 'incremental')).status).toBe('OK');
    await sameAnswers();
  }, 60_000);

  it('a connection ended during its COPY ends the job ERROR, rolled back; the process loads on', async () => {
    // Enough rows that the COPY of the file into PostgreSQL lasts a while.
    const rows = Array.from(
      { length: 400_000 },
      (_, i) => `${i + 1},Cust ${i},EU,${i % 1000}.5,${i % 7},2024-01-05,2024-01-05T10:00:00Z,true`,
    );
    await put(wh, '/in/big.csv', `${ORDERS.split('\n')[0]}\n${rows.join('\n')}`);
    const r = await startLoad(wh, 'orders', '/in/big.csv');
    expect(r.status, r.text).toBe(202);
    const pid = await waitFor(async () => {
      const a = await su.query(
        `SELECT pid FROM pg_stat_activity
          WHERE application_name = 'ursa-warehouse-load' AND query ILIKE 'COPY%'
            AND state = 'active'`,
      );
      return a.rows[0]?.pid as number | undefined;
    }, 30_000);
    await su.query('SELECT pg_terminate_backend($1::int)', [pid]);
    const job = await s.engine.jobs.waitFor(r.json.link[0].id, 60_000);
    expect(job.status).toBe('ERROR');
    expect(job.message).toMatch(
      // Which the client sees first is a race: PostgreSQL's reason, or its socket closing.
      /terminating connection due to administrator command|Connection terminated|the server closed the connection/,
    );
    expect(job.message).toMatch(/nothing was loaded$/);
    await untouched();
    // The same process loads again (back to the rows the other tests expect).
    const again = await load(wh, 'orders', '/in/orders.csv');
    expect(again.status, again.message).toBe('OK');
    expect((await load(wh, 'orders', '/in/delta.csv', 'incremental')).status).toBe('OK');
    await untouched();
  }, 120_000);

  it('a read whose connection is ended answers in the error shape, no 500; the process reads on', async () => {
    const locker = new pg.Client({
      host: w.db.socketDir,
      port: w.db.port,
      user: 'postgres',
      database: w.db.database,
    });
    locker.on('error', () => {});
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE dwh.orders IN ACCESS EXCLUSIVE MODE');
      // Not cached: no query before asked for 731.
      const pending = s.api('POST', `/projects/${wh}/app/aql/execute`, {
        body: { aql: 'SELECT COUNT([Order]) + 731' },
        headers: { prefer: 'wait=20' },
      });
      const pid = await waitFor(async () => {
        const a = await su.query(
          `SELECT pid FROM pg_stat_activity
            WHERE application_name = 'ursa-warehouse' AND wait_event_type = 'Lock'`,
        );
        return a.rows[0]?.pid as number | undefined;
      }, 20_000);
      await su.query('SELECT pg_terminate_backend($1::int)', [pid]);
      const r = await pending;
      expect(r.status, r.text).not.toBe(500);
      expect(Object.keys(r.json).sort()).toEqual(['context', 'errorId', 'message', 'statusCode']);
      expect(r.json.message).toMatch(/terminating connection due to administrator command/);
    } finally {
      await locker.query('ROLLBACK').catch(() => {});
      await locker.end().catch(() => {});
    }
    const rows = (await rowsOf('dwh.orders')).length;
    expect(await values(wh, 'SELECT COUNT([Order]) + 731')).toBe(String(rows + 731));
  }, 60_000);

  it('a cancelled load ends CANCELLED, rolled back, its connection not left in a transaction', async () => {
    const job = await whileLocked(async (_pid, id) => {
      const c = await s.api('POST', `/projects/${wh}/kodiak/scache/obj/${id}/cancel`);
      expect(c.status, c.text).toBe(202);
    });
    expect(job.status).toBe('CANCELLED');
    await untouched();
    const open = await su.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE application_name = 'ursa-warehouse-load' AND state LIKE 'idle in transaction%'`,
    );
    expect(open.rows[0].n).toBe(0);
  }, 60_000);
});

describe('what a load may not do', () => {
  it('a role without CREATE on the schema: a 400 naming the schema and the privilege', async () => {
    const p = await createProject(s, 'whro', 'Read-only schema');
    await bindWarehouse(s, p, w, 'readonly', 'cred.ro');
    await rawStorage(s.engine).mkdir(p, '/in');
    await put(p, '/in/orders.csv', ORDERS);
    const r = await startLoad(p, 'orders', '/in/orders.csv');
    expect(r.status).toBe(400);
    expect(r.json.message).toBe(
      `role "${w.db.reader!.user}" lacks the CREATE privilege on schema "readonly", which loading into the warehouse needs (GRANT CREATE ON SCHEMA readonly TO ${w.db.reader!.user})`,
    );
    expect(r.json).toMatchObject({ statusCode: 400, errorId: expect.any(String) });
  });

  it('a table Ursa did not create is never replaced: 409, and the table is kept', async () => {
    await put(wh, '/in/crm.csv', 'id,name\n1,replaced\n');
    const r = await startLoad(wh, 'crm', '/in/crm.csv', 'full', {
      primarykey: 'id',
      columns: [
        col('id', 'id', 'A', 'integer', 'CRM id'),
        col('name', 'name', 'A', 'string', 'CRM name'),
      ],
    });
    expect(r.status).toBe(409);
    expect(r.json.message).toContain(
      'dwh.crm exists and was not created by Ursa for dataset "crm"',
    );
    expect(await rowsOf('dwh.crm')).toEqual([[1, 'kept']]);
    // Nor one Ursa created for another project bound to the same schema.
    const other = await createProject(s, 'whother', 'Another project');
    await bindWarehouse(s, other, w, 'dwh', 'cred.other');
    await rawStorage(s.engine).mkdir(other, '/in');
    await put(other, '/in/orders.csv', ORDERS);
    const o = await startLoad(other, 'orders', '/in/orders.csv');
    expect(o.status).toBe(409);
    expect(o.json.message).toContain(
      `was not created by Ursa for dataset "orders" of project "${other}"`,
    );
  });

  it('a data package is refused in a warehouse project (400), not half-loaded', async () => {
    const r = await s.api('POST', `/projects/${wh}/package/obj`, {
      body: { package: 'countries' },
    });
    expect(r.status).toBe(400);
    expect(r.json.message).toContain('this is a warehouse project');
    expect(await tablesOf('dwh')).toEqual(['crm', 'orders']);
  });

  it('an incremental load needs a full load into the warehouse first', async () => {
    const r = await startLoad(wh, 'fresh', '/in/delta.csv', 'incremental');
    expect(r.status).toBe(400);
    expect(r.json.message).toContain('needs the dataset loaded once in full');
  });
});

describe('a flow into a warehouse project', () => {
  it('publishes its output dataset through the same path: a table of the bound schema', async () => {
    const def = {
      boxes: [
        { id: 'src', type: 'input.storage', path: '/in/orders.csv' },
        {
          id: 'agg',
          type: 'transform.aggregate',
          groupby: ['Region'],
          measures: { total: 'SUM([Amount])', orders: 'COUNT([Order ID])' },
        },
        {
          id: 'out',
          type: 'output.dataset',
          dataset: 'region_totals',
          mode: 'full',
          primarykey: 'Region',
        },
      ],
      edges: [
        { from: 'src', to: 'agg' },
        { from: 'agg', to: 'out' },
      ],
    };
    for (const p of [wh, emb]) {
      const saved = await s.api('POST', `/projects/${p}/pmd/obj`, {
        body: { ident: 'flow.regions', type: 'flow', name: 'Regions', def },
      });
      expect(saved.status, saved.text).toBe(201);
      const r = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
        body: { type: 'flow', id: 'flow.regions' },
      });
      expect(r.status, r.text).toBe(201);
      const job = await s.engine.jobs.waitFor(r.json.link[0].id, 60_000);
      expect(job.status, job.message).toBe('OK');
    }
    const rows = await su.query(`SELECT * FROM dwh.region_totals ORDER BY 1`);
    expect(rows.rows).toEqual([
      { region: 'EU', total: 120.5, orders: '2' },
      { region: 'US', total: 110.25, orders: '2' },
    ]);
    const a = await values(wh, 'SELECT SUM([total]), SUM([orders])');
    expect(a).toBe(await values(emb, 'SELECT SUM([total]), SUM([orders])'));
    expect(a).toBe('230.75\t4');
  });

  it('a flow whose output would replace a table Ursa did not create is refused when started (409)', async () => {
    const def = {
      boxes: [
        { id: 'src', type: 'input.storage', path: '/in/orders.csv' },
        { id: 'out', type: 'output.dataset', dataset: 'crm', mode: 'full' },
      ],
      edges: [{ from: 'src', to: 'out' }],
    };
    const saved = await s.api('POST', `/projects/${wh}/pmd/obj`, {
      body: { ident: 'flow.crm', type: 'flow', name: 'Into crm', def },
    });
    expect(saved.status, saved.text).toBe(201);
    const r = await s.api('POST', `/projects/${wh}/kodiak/transform/execute`, {
      body: { type: 'flow', id: 'flow.crm' },
    });
    expect(r.status).toBe(409);
    expect(r.json.message).toContain('dwh.crm exists and was not created by Ursa');
    expect(await rowsOf('dwh.crm')).toEqual([[1, 'kept']]);
  });
});

describe('the example of docs/scaling.md', () => {
  it('runs as written against a warehouse project bound to schema analytics', async () => {
    const doc = fs.readFileSync(new URL('../docs/scaling.md', import.meta.url), 'utf8');
    const block = parseShellExamples('docs/scaling.md', doc).find((b) =>
      b.reason.includes('test/warehouse-load.test.ts'),
    )!;
    expect(block, 'the block this test runs').toBeDefined();
    const p = await createProject(s, 'sales', 'Sales');
    await bindWarehouse(s, p, w, 'analytics', 'cred.dwh');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-doc-'));
    try {
      // The project id a server gives "sales" has a suffix: the example's path names it.
      const script = block.text.replaceAll('/projects/sales/', `/projects/${p}/`);
      // Asynchronously: the server answering the script runs in this process.
      const { stdout: out } = await promisify(execFile)(
        'bash',
        ['-euo', 'pipefail', '-c', script],
        {
          cwd: dir,
          encoding: 'utf8',
          env: { ...process.env, URSA: s.url, TOKEN: await s.token(ADMIN) },
          timeout: 30_000,
        },
      );
      expect(out.trim().split('\n').at(-1)).toBe('US\t30.25');
      expect(out).toContain('EU\t129.75\nUS\t30.25');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const types = await su.query(
      `SELECT column_name, data_type FROM information_schema.columns
        WHERE table_schema = 'analytics' AND table_name = 'orders' ORDER BY ordinal_position`,
    );
    expect(
      types.rows.map((r: Record<string, string>) => `${r.column_name} ${r.data_type}`),
    ).toEqual(['order_id bigint', 'region text', 'amount double precision']);
    expect(await rowsOf('analytics.orders')).toHaveLength(3);
  });
});

describe('a table others depend on (a view, a foreign key onto it)', () => {
  const ITEMS = {
    primarykey: 'item_id',
    columns: [
      col('item_id', 'Item', 'A', 'integer', 'Item'),
      col('name', 'Name', 'L', 'string', 'Name', { labelOf: 'item_id' }),
      col('qty', 'Qty', 'F', 'integer', 'Qty Items'),
    ],
  };
  const WITH_PRICE = {
    ...ITEMS,
    columns: [...ITEMS.columns, col('price', 'Price', 'F', 'number', 'Item Price')],
  };
  const loadItems = async (file: string, prescription: unknown = ITEMS) => {
    const r = await startLoad(wh, 'items', file, 'full', prescription);
    expect(r.status, r.text).toBe(202);
    return s.engine.jobs.waitFor(r.json.link[0].id, 60_000);
  };
  const oid = async () =>
    (await su.query(`SELECT 'dwh.items'::regclass::oid AS oid`)).rows[0].oid as number;

  beforeAll(async () => {
    await put(wh, '/in/items1.csv', 'Item,Name,Qty\n1,bolt,5\n2,nut,1\n');
    await put(wh, '/in/items2.csv', 'Item,Name,Qty\n1,bolt M6,7\n3,washer,2\n');
    await put(wh, '/in/items3.csv', 'Item,Name,Qty\n3,washer,2\n');
    await put(wh, '/in/items4.csv', 'Item,Name,Qty,Price\n1,bolt,5,0.1\n3,washer,2,0.05\n');
    expect((await loadItems('/in/items1.csv')).status).toBe('OK');
    // The customer's own objects on Ursa's table.
    await su.query(
      `CREATE VIEW dwh.items_many AS SELECT item_id, name FROM dwh.items WHERE qty > 1`,
    );
    await su.query(
      `CREATE TABLE dwh.picks (pick int PRIMARY KEY, item bigint REFERENCES dwh.items)`,
    );
    await su.query(`INSERT INTO dwh.picks VALUES (10, 1)`);
  });

  it('a full load keeps the table and its dependents, and its rows become the file’s', async () => {
    const before = await oid();
    const job = await loadItems('/in/items2.csv');
    expect(job.status, job.message).toBe('OK');
    expect(job.result).toMatchObject({ clusters: { items: { rows: 2, loaded: 2 } } });
    expect(await oid()).toBe(before);
    expect(await rowsOf('dwh.items')).toEqual([
      ['1', 'bolt M6', '7'],
      ['3', 'washer', '2'],
    ]);
    // The view reads the new rows; the foreign key's row is still there.
    expect(await rowsOf('dwh.items_many')).toEqual([
      ['1', 'bolt M6'],
      ['3', 'washer'],
    ]);
    expect(await rowsOf('dwh.picks')).toEqual([[10, '1']]);
    expect(await values(wh, 'SELECT [Name], SUM([Qty Items])')).toBe('bolt M6\t7\nwasher\t2');
  });

  it('a load that would delete a row a foreign key holds fails with PostgreSQL’s reason', async () => {
    const job = await loadItems('/in/items3.csv');
    expect(job.status).toBe('ERROR');
    expect(job.message).toMatch(/violates foreign key constraint .* on table "picks"/);
    expect(job.message).toContain('nothing was loaded');
    expect((await rowsOf('dwh.items')).length).toBe(2);
  });

  it('a load that changes the columns is refused, naming the objects that depend on the table', async () => {
    const job = await loadItems('/in/items4.csv', WITH_PRICE);
    expect(job.status).toBe('ERROR');
    expect(job.message).toContain(
      'dwh.items has objects depending on it (foreign key picks_item_fkey of dwh.picks, view dwh.items_many)',
    );
    expect(job.message).toContain(
      'the table has (item_id bigint, name text, qty bigint; primary key item_id), the load makes (item_id bigint, name text, qty bigint, price double precision; primary key item_id)',
    );
    expect(job.message).toContain('nothing was loaded');
    expect(await rowsOf('dwh.items')).toEqual([
      ['1', 'bolt M6', '7'],
      ['3', 'washer', '2'],
    ]);
    // Once the customer drops them, the table is swapped as usual.
    await su.query(`DROP VIEW dwh.items_many; DROP TABLE dwh.picks`);
    const ok = await loadItems('/in/items4.csv', WITH_PRICE);
    expect(ok.status, ok.message).toBe('OK');
    expect((await rowsOf('dwh.items')).map((r) => r.length)).toEqual([4, 4]);
  });
});
