// Data loads end to end over HTTP: guessupload (GET/PUT), transform/execute with
// type "cluster", the load job polled at /kodiak/scache/obj/{id}, and what a load leaves
// behind: the DuckDB table (values and types, read straight from the project's database),
// the model objects, the data/model versions and the data_load activity. Expected values
// are written by hand from the files below.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, writePlansFile } from './helpers/fixtures.js';
import { isFinal, jobsPath, pollJob, sleep, type JobJson } from './helpers/jobs.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

const MEMBER = 'load-member@example.com';
const USERADMIN = 'load-useradmin@example.com';
const MDADMIN = 'load-mdadmin@example.com';

let s: TestServer;
let tmp: string;

beforeAll(async () => {
  // No demo data: its background load would compete with the loads measured here.
  s = await startTestServer({ URSA_DEFAULT_PLAN: 'enterprise', URSA_DEMO_DATA: 'false' });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-load-test-'));
});
afterAll(async () => {
  await s?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------
// Helpers

const fileId = (p: string) => {
  const i = p.lastIndexOf('/');
  return Buffer.from(`${p.slice(i + 1)}|${p.slice(0, i) || '/'}`).toString('base64url');
};

async function put(project: string, p: string, content: string | Buffer): Promise<string> {
  const data = typeof content === 'string' ? Buffer.from(content) : content;
  const { item } = await rawStorage(s.engine).writeFile(project, p, data, { createParents: true });
  return item.fileId;
}

const execPath = (p: string) => `/projects/${p}/kodiak/transform/execute`;
const guessPath = (p: string, id: string) => `/projects/${p}/data/guessupload/${id}`;
const wd = (source: string, extra: Record<string, unknown> = {}) => ({
  source_type: 'webdav',
  source,
  ...extra,
});

/** Starts a load; expects 202 with one `scache` link and answers the job id. */
async function start(project: string, clusters: Record<string, unknown>, as?: string) {
  const r = await s.api('POST', execPath(project), { body: { type: 'cluster', clusters }, as });
  expect(r.status, r.text).toBe(202);
  expect(r.json.link).toHaveLength(1);
  expect(r.json.link[0]).toMatchObject({ rel: 'scache', id: expect.any(String) });
  expect(r.json.link[0].href).toBe(
    `/api/v1/projects/${project}/kodiak/scache/obj/${r.json.link[0].id}`,
  );
  return r.json.link[0].id as string;
}

/** Starts a load and polls it over HTTP until it is final. */
async function load(project: string, clusters: Record<string, unknown>): Promise<JobJson> {
  const id = await start(project, clusters);
  return pollJob(s.api, project, id, isFinal, { timeoutMs: 120_000 });
}

async function loadOk(project: string, clusters: Record<string, unknown>): Promise<JobJson> {
  const job = await load(project, clusters);
  expect(job.status, job.message).toBe('OK');
  return job;
}

async function loadError(project: string, clusters: Record<string, unknown>): Promise<string> {
  const job = await load(project, clusters);
  expect(job.status).toBe('ERROR');
  return job.message!;
}

/** Rows as DuckDB values (BIGINT → bigint, DOUBLE → number, BOOLEAN → boolean…). */
function query(project: string, sql: string) {
  return s.engine.dbs.read(project, async (c) => (await c.runAndReadAll(sql)).getRowObjects());
}

/** Column name → DuckDB type, in table order. */
async function types(project: string, cluster: string): Promise<Record<string, string>> {
  const rows = await s.engine.dbs.read(project, async (c) =>
    (await c.runAndReadAll(`DESCRIBE "ds_${cluster}"`)).getRowObjectsJson(),
  );
  return Object.fromEntries(rows.map((r) => [String(r.column_name), String(r.column_type)]));
}

async function tables(project: string): Promise<string[]> {
  const rows = await s.engine.dbs.read(project, async (c) =>
    (
      await c.runAndReadAll('SELECT table_name FROM duckdb_tables() ORDER BY 1')
    ).getRowObjectsJson(),
  );
  return rows.map((r) => String(r.table_name));
}

async function dataload(project: string) {
  const r = await s.api('GET', `/projects/${project}/kodiak/dataload`);
  expect(r.status, r.text).toBe(200);
  return r.json.dataload as {
    dataVersion: number;
    modelVersion: number;
    datasets: Array<{ name: string; rows: number; columns: number; primaryKey: string | null }>;
  };
}

const col = (
  id: string,
  dataType: string,
  objectType = 'A',
  extra: Record<string, unknown> = {},
) => ({ id, originalheader: id, objectType, dataType, label: id, ...extra });

/** `id,n` files: id integer key, n integer fact. */
const ID_N = { primarykey: 'id', columns: [col('id', 'integer'), col('n', 'integer', 'F')] };

const lineNumbers = (message: string) =>
  [...message.matchAll(/line (\d+)/g)].map((m) => Number(m[1]));

/** Writes `rows` generated rows (id, name, amount, day) as CSV with DuckDB, fast. */
async function bigCsv(rows: number): Promise<string> {
  const file = path.join(tmp, `big-${rows}.csv`);
  if (fs.existsSync(file)) return file;
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run(
    `COPY (SELECT i AS id, 'name ' || (i % 1000) AS name, (i % 997) * 1.5 AS amount, DATE '2024-01-01' + (i % 365)::INTEGER AS day FROM range(1, ${rows + 1}) t(i)) TO '${file}' (HEADER, DELIMITER ',')`,
  );
  c.closeSync();
  db.closeSync();
  return file;
}

const BIG_PRESCRIPTION = {
  primarykey: 'id',
  columns: [
    col('id', 'integer'),
    col('name', 'string'),
    col('amount', 'number', 'F'),
    col('day', 'date'),
  ],
};

async function putBig(project: string, p: string, rows: number): Promise<void> {
  const file = await bigCsv(rows);
  await rawStorage(s.engine).writeFile(project, p, fs.createReadStream(file), {
    createParents: true,
  });
}

// ---------------------------------------------------------------------------------------

const CUSTOMERS = [
  'Customer ID,Name,Country,Signup,Score,Active,Visits',
  '1,Ann,DE,01.02.2024,3.5,yes,10',
  '2,Bob,FR,15.03.2024,4,no,3',
  '3,"Cé, Z",US,31.12.2023,,yes,7',
  '',
].join('\n');

describe('guess, edit, load: the file flow of the spec', () => {
  let p: string;
  let id: string;
  beforeAll(async () => {
    p = await createProject(s, 'flow');
    id = await put(p, '/in/customers.csv', CUSTOMERS);
  });

  it('GET guessupload proposes columns, types, roles and the primary key, with sample rows', async () => {
    const r = await s.api('GET', guessPath(p, id));
    expect(r.status, r.text).toBe(200);
    expect(r.json.ident).toBe(id);
    expect(r.json.prescription).toEqual({
      clustername: 'customers',
      primarykey: 'customer_id',
      columns: [
        {
          id: 'customer_id',
          originalheader: 'Customer ID',
          objectType: 'A',
          dataType: 'integer',
          label: 'Customer ID',
        },
        { id: 'name', originalheader: 'Name', objectType: 'A', dataType: 'string', label: 'Name' },
        {
          id: 'country',
          originalheader: 'Country',
          objectType: 'A',
          dataType: 'string',
          label: 'Country',
        },
        {
          id: 'signup',
          originalheader: 'Signup',
          objectType: 'A',
          dataType: 'date',
          label: 'Signup',
          dateFormat: '%d.%m.%Y',
        },
        {
          id: 'score',
          originalheader: 'Score',
          objectType: 'F',
          dataType: 'number',
          label: 'Score',
        },
        {
          id: 'active',
          originalheader: 'Active',
          objectType: 'A',
          dataType: 'boolean',
          label: 'Active',
        },
        {
          id: 'visits',
          originalheader: 'Visits',
          objectType: 'F',
          dataType: 'integer',
          label: 'Visits',
        },
      ],
      data: [
        ['1', 'Ann', 'DE', '01.02.2024', '3.5', 'yes', '10'],
        ['2', 'Bob', 'FR', '15.03.2024', '4', 'no', '3'],
        ['3', 'Cé, Z', 'US', '31.12.2023', '', 'yes', '7'],
      ],
      format: {
        delimiter: ',',
        quote: '"',
        escape: '"',
        header: true,
        encoding: 'utf-8',
        bom: false,
      },
    });
    expect(r.json.link).toContainEqual({ rel: 'load', href: `/api/v1${execPath(p)}` });
  });

  it('PUT saves an edited prescription (renamed id and label, new type, a reference); GET then answers it', async () => {
    const g = (await s.api('GET', guessPath(p, id))).json.prescription;
    const edited = structuredClone(g);
    delete edited.data;
    edited.columns[0].label = 'Customer';
    edited.columns[2] = {
      ...edited.columns[2],
      id: 'country_code',
      label: 'Country code',
      reference: 'countries',
    };
    edited.columns[6].dataType = 'number';
    const r = await s.api('PUT', guessPath(p, id), { body: edited });
    expect(r.status, r.text).toBe(200);
    expect(r.json.prescription.columns[2]).toEqual({
      id: 'country_code',
      originalheader: 'Country',
      objectType: 'A',
      dataType: 'string',
      label: 'Country code',
      reference: 'countries',
    });
    expect(r.json.prescription.data).toEqual(g.data);
    const again = await s.api('GET', guessPath(p, id));
    expect(again.json.prescription).toEqual(r.json.prescription);
  });

  it('the load uses the saved prescription: values and DuckDB types as edited', async () => {
    const before = await dataload(p);
    const job = await loadOk(p, { customers: wd('/in/customers.csv') });
    expect(job.type).toBe('transform');
    expect(job.result).toEqual({
      clusters: { customers: { rows: 3, loaded: 3, mode: 'full', source: '/in/customers.csv' } },
      dataVersion: before.dataVersion + 1,
    });
    expect(await types(p, 'customers')).toEqual({
      customer_id: 'BIGINT',
      name: 'VARCHAR',
      country_code: 'VARCHAR',
      signup: 'DATE',
      score: 'DOUBLE',
      active: 'BOOLEAN',
      visits: 'DOUBLE',
    });
    const rows = await query(
      p,
      `SELECT customer_id, name, country_code, strftime(signup, '%Y-%m-%d') AS signup, score, active, visits FROM "ds_customers" ORDER BY customer_id`,
    );
    expect(rows).toEqual([
      {
        customer_id: 1n,
        name: 'Ann',
        country_code: 'DE',
        signup: '2024-02-01',
        score: 3.5,
        active: true,
        visits: 10,
      },
      {
        customer_id: 2n,
        name: 'Bob',
        country_code: 'FR',
        signup: '2024-03-15',
        score: 4,
        active: false,
        visits: 3,
      },
      {
        customer_id: 3n,
        name: 'Cé, Z',
        country_code: 'US',
        signup: '2023-12-31',
        score: null,
        active: true,
        visits: 7,
      },
    ]);
    expect(typeof rows[0]!.customer_id).toBe('bigint');
    expect(typeof rows[0]!.score).toBe('number');
    expect(typeof rows[0]!.active).toBe('boolean');
    expect(typeof rows[0]!.name).toBe('string');
    const after = await dataload(p);
    expect(after.dataVersion).toBe(before.dataVersion + 1);
    expect(after.modelVersion).toBeGreaterThan(before.modelVersion);
    expect(after.datasets).toEqual([
      expect.objectContaining({
        name: 'customers',
        rows: 3,
        columns: 7,
        primaryKey: 'customer_id',
        source: '/in/customers.csv',
        dataVersion: after.dataVersion,
      }),
    ]);
  });

  it('the load created one model object per column, with ids, types and definitions', async () => {
    const objs = await s.engine.model.listByType(p, ['attribute', 'label', 'fact']);
    expect(objs.map((o) => [o.ident, o.type, o.name])).toEqual([
      ['attr.customers.active', 'attribute', 'Active'],
      ['attr.customers.country_code', 'attribute', 'Country code'],
      ['attr.customers.customer_id', 'attribute', 'Customer'],
      ['attr.customers.name', 'attribute', 'Name'],
      ['attr.customers.signup', 'attribute', 'Signup'],
      ['fact.customers.score', 'fact', 'Score'],
      ['fact.customers.visits', 'fact', 'Visits'],
    ]);
    const def = async (ident: string) => (await s.engine.model.get(p, ident))!.def;
    expect(await def('attr.customers.customer_id')).toEqual({
      dataset: 'customers',
      column: 'customer_id',
      dataType: 'integer',
      source: 'load',
      primaryKey: true,
    });
    expect(await def('fact.customers.visits')).toEqual({
      dataset: 'customers',
      column: 'visits',
      dataType: 'number',
      source: 'load',
    });
    // Declared reference to a dataset not loaded yet: kept, with no attribute to point at.
    expect(await def('attr.customers.country_code')).toEqual({
      dataset: 'customers',
      column: 'country_code',
      dataType: 'string',
      source: 'load',
      primaryKey: false,
      reference: { dataset: 'countries', attribute: null },
    });
  });

  it('a declared reference resolves once the referenced dataset is loaded; labels point at their attribute', async () => {
    await put(
      p,
      '/in/countries.csv',
      'country_code,country_name\nDE,Germany\nFR,France\nUS,United States\n',
    );
    const before = await dataload(p);
    await loadOk(p, { countries: wd('/in/countries.csv') });
    const def = async (ident: string) => (await s.engine.model.get(p, ident))!.def;
    expect((await def('attr.customers.country_code')).reference).toEqual({
      dataset: 'countries',
      attribute: 'attr.countries.country_code',
    });
    expect(await s.engine.model.get(p, 'label.countries.country_name')).toMatchObject({
      type: 'label',
      name: 'Country Name',
      def: {
        dataset: 'countries',
        column: 'country_name',
        dataType: 'string',
        source: 'load',
        attribute: 'attr.countries.country_code',
      },
    });
    expect(await def('attr.countries.country_code')).toMatchObject({ primaryKey: true });
    expect((await dataload(p)).modelVersion).toBeGreaterThan(before.modelVersion);
  });

  it('a column whose id is another dataset’s primary-key column references it implicitly (many-to-one)', async () => {
    await put(p, '/in/orders.csv', 'order_id,customer_id,amount\n10,1,5.5\n11,1,2\n12,3,7.25\n');
    await loadOk(p, { orders: wd('/in/orders.csv') });
    expect((await s.engine.model.get(p, 'attr.orders.customer_id'))!.def).toEqual({
      dataset: 'orders',
      column: 'customer_id',
      dataType: 'integer',
      source: 'load',
      primaryKey: false,
      reference: { dataset: 'customers', attribute: 'attr.customers.customer_id' },
    });
    expect((await s.engine.model.get(p, 'attr.orders.order_id'))!.def).toMatchObject({
      primaryKey: true,
    });
    expect((await s.engine.model.get(p, 'attr.orders.order_id'))!.def.reference).toBeUndefined();
    // Many orders to one customer: the join the reference stands for holds.
    const joined = await query(
      p,
      'SELECT o.order_id, c.name FROM "ds_orders" o JOIN "ds_customers" c USING (customer_id) ORDER BY 1',
    );
    expect(joined).toEqual([
      { order_id: 10n, name: 'Ann' },
      { order_id: 11n, name: 'Ann' },
      { order_id: 12n, name: 'Cé, Z' },
    ]);
  });

  it('reloading the same structure bumps the data version only; dropping a column removes its object', async () => {
    const v0 = await dataload(p);
    await loadOk(p, { orders: wd('/in/orders.csv') });
    const v1 = await dataload(p);
    expect(v1.dataVersion).toBe(v0.dataVersion + 1);
    expect(v1.modelVersion).toBe(v0.modelVersion);

    const id2 = await put(p, '/in/orders-2.csv', 'order_id,customer_id\n20,2\n');
    // A new file with another shape: its guess (GET) is what the load uses.
    expect((await s.api('GET', guessPath(p, id2))).status).toBe(200);
    await loadOk(p, { orders: wd('/in/orders-2.csv') });
    expect(await s.engine.model.get(p, 'fact.orders.amount')).toBeUndefined();
    expect(await s.engine.model.get(p, 'attr.orders.customer_id')).toBeDefined();
    expect(await types(p, 'orders')).toEqual({ order_id: 'BIGINT', customer_id: 'BIGINT' });
    const v2 = await dataload(p);
    expect(v2.dataVersion).toBe(v1.dataVersion + 1);
    expect(v2.modelVersion).toBeGreaterThan(v1.modelVersion);
  });

  it('every load is a data_load activity event; activity/loads?latest=1 keeps the latest per dataset', async () => {
    const all = await s.api('GET', `/projects/${p}/activity?types=data_load&limit=100`);
    expect(all.status).toBe(200);
    const events = all.json.activity as Array<{
      type: string;
      object: string;
      message: string;
      detail: Record<string, unknown>;
    }>;
    expect(events.map((e) => e.object)).toEqual([
      'orders',
      'orders',
      'orders',
      'countries',
      'customers',
    ]);
    expect(events.at(-1)).toMatchObject({
      type: 'data_load',
      user: 'admin@example.com',
      object: 'customers',
      message: 'loaded 3 rows into dataset "customers" (full) from /in/customers.csv',
      detail: {
        dataset: 'customers',
        mode: 'full',
        source: '/in/customers.csv',
        rowsLoaded: 3,
        rows: 3,
        jobId: expect.any(String),
        dataVersion: expect.any(Number),
      },
    });
    const latest = await s.api('GET', `/projects/${p}/activity/loads?latest=1`);
    expect(latest.status).toBe(200);
    const loads = latest.json.loads as Array<{
      object: string;
      detail: { source: string; rows: number };
    }>;
    expect(loads.map((l) => [l.object, l.detail.source, l.detail.rows]).sort()).toEqual([
      ['countries', '/in/countries.csv', 3],
      ['customers', '/in/customers.csv', 3],
      ['orders', '/in/orders-2.csv', 1],
    ]);
    const every = await s.api('GET', `/projects/${p}/activity/loads`);
    expect(every.json.loads).toHaveLength(5);
  });
});

describe('full and incremental modes', () => {
  let p: string;
  beforeAll(async () => {
    p = await createProject(s, 'modes');
    await put(p, '/a.csv', 'id,n\n1,10\n2,20\n3,30\n');
    await put(p, '/b.csv', 'id,n\n7,70\n8,80\n');
    await put(p, '/c.csv', 'id,n\n2,222\n4,44\n');
  });
  const all = () => query(p, 'SELECT id, n FROM "ds_t" ORDER BY id');

  it('incremental before any full load is refused with 400', async () => {
    const r = await s.api('POST', execPath(p), {
      body: { type: 'cluster', clusters: { t: wd('/c.csv', { mode: 'incremental' }) } },
    });
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toMatch(/incremental load of "t" needs the dataset loaded once in full/);
  });

  it('full (the default) replaces every row', async () => {
    await loadOk(p, { t: wd('/a.csv', { prescription: ID_N }) });
    expect(await all()).toEqual([
      { id: 1n, n: 10n },
      { id: 2n, n: 20n },
      { id: 3n, n: 30n },
    ]);
    const job = await loadOk(p, { t: wd('/b.csv', { mode: 'full' }) });
    expect(job.result).toMatchObject({ clusters: { t: { rows: 2, loaded: 2, mode: 'full' } } });
    expect(await all()).toEqual([
      { id: 7n, n: 70n },
      { id: 8n, n: 80n },
    ]);
  });

  it('incremental upserts by primary key: existing keys updated, new keys inserted, others kept', async () => {
    await loadOk(p, { t: wd('/a.csv') });
    const before = await dataload(p);
    const job = await loadOk(p, { t: wd('/c.csv', { mode: 'incremental' }) });
    expect(job.result).toMatchObject({
      clusters: { t: { rows: 4, loaded: 2, mode: 'incremental', source: '/c.csv' } },
    });
    expect(await all()).toEqual([
      { id: 1n, n: 10n },
      { id: 2n, n: 222n },
      { id: 3n, n: 30n },
      { id: 4n, n: 44n },
    ]);
    expect(await types(p, 't')).toEqual({ id: 'BIGINT', n: 'BIGINT' });
    const after = await dataload(p);
    expect(after.dataVersion).toBe(before.dataVersion + 1);
    expect(after.datasets.find((d) => d.name === 't')!.rows).toBe(4);
    const latest = (await s.api('GET', `/projects/${p}/activity/loads?latest=1`)).json.loads;
    expect(latest[0]).toMatchObject({
      message: 'loaded 2 rows into dataset "t" (incremental) from /c.csv',
      detail: { mode: 'incremental', rowsLoaded: 2, rows: 4 },
    });
  });

  it('incremental with other columns or types than the loaded dataset is refused with 400, nothing changes', async () => {
    const before = await dataload(p);
    const otherType = {
      primarykey: 'id',
      columns: [col('id', 'integer'), col('n', 'number', 'F')],
    };
    let r = await s.api('POST', execPath(p), {
      body: {
        type: 'cluster',
        clusters: { t: wd('/c.csv', { mode: 'incremental', prescription: otherType }) },
      },
    });
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toMatch(/needs the same columns, types and primary key/);
    const otherId = { primarykey: 'id', columns: [col('id', 'integer'), col('m', 'integer', 'F')] };
    r = await s.api('POST', execPath(p), {
      body: {
        type: 'cluster',
        clusters: { t: wd('/c.csv', { mode: 'incremental', prescription: otherId }) },
      },
    });
    expect(r.status, r.text).toBe(400);
    const noKey = { primarykey: '', columns: [col('id', 'integer'), col('n', 'integer', 'F')] };
    r = await s.api('POST', execPath(p), {
      body: {
        type: 'cluster',
        clusters: { t: wd('/c.csv', { mode: 'incremental', prescription: noKey }) },
      },
    });
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toMatch(/needs a primary key/);
    expect(await dataload(p)).toEqual(before);
    expect(await all()).toEqual([
      { id: 1n, n: 10n },
      { id: 2n, n: 222n },
      { id: 3n, n: 30n },
      { id: 4n, n: 44n },
    ]);
  });

  it('an incremental load whose rows break the key fails and keeps the rows', async () => {
    await put(p, '/c-dup.csv', 'id,n\n5,1\n5,2\n');
    const before = await dataload(p);
    expect(
      await loadError(p, { t: wd('/c-dup.csv', { mode: 'incremental', prescription: ID_N }) }),
    ).toMatch(/primary key "id" is not unique/);
    expect(await all()).toHaveLength(4);
    expect((await dataload(p)).dataVersion).toBe(before.dataVersion);
  });
});

describe('failed loads change nothing', () => {
  let p: string;
  let previous: unknown[];
  let before: Awaited<ReturnType<typeof dataload>>;
  beforeAll(async () => {
    p = await createProject(s, 'fail');
    await put(p, '/good.csv', 'id,n\n1,10\n2,20\n');
    await loadOk(p, { t: wd('/good.csv', { prescription: ID_N }) });
    previous = await query(p, 'SELECT * FROM "ds_t" ORDER BY id');
    expect(previous).toEqual([
      { id: 1n, n: 10n },
      { id: 2n, n: 20n },
    ]);
  });
  beforeAll(async () => {
    before = await dataload(p);
  });
  const unchanged = async () => {
    expect(await query(p, 'SELECT * FROM "ds_t" ORDER BY id')).toEqual(previous);
    expect(await types(p, 't')).toEqual({ id: 'BIGINT', n: 'BIGINT' });
    expect(await dataload(p)).toEqual(before);
    expect(await tables(p)).toEqual(['ds_t']);
    const latest = (await s.api('GET', `/projects/${p}/activity/loads?latest=1`)).json.loads;
    expect(latest).toHaveLength(1);
    expect(latest[0].detail.source).toBe('/good.csv');
  };

  it('type violations: the job fails with the exact lines of the bad rows; the previous rows stay', async () => {
    await put(p, '/bad3.csv', 'id,n\n1,10\n2,x\n3,30\n4,\n5,y\n6,z\n');
    const msg = await loadError(p, { t: wd('/bad3.csv', { prescription: ID_N }) });
    expect(msg).toMatch(
      /^cluster "t": 3 row\(s\) of \/bad3\.csv do not match the prescription; first 3: /,
    );
    expect(lineNumbers(msg)).toEqual([3, 6, 7]);
    expect(msg).toContain('line 3 column n: ');
    expect(msg).toContain('"x"');
    await unchanged();
  });

  it('a fraction in an integer column fails the load naming the value, instead of rounding it', async () => {
    await put(p, '/frac.csv', 'id,n\n1,10\n2,4.5\n');
    const msg = await loadError(p, { t: wd('/frac.csv', { prescription: ID_N }) });
    expect(msg).toMatch(
      /^cluster "t": loading \/frac\.csv failed: .*value 4\.5 is not a whole number/,
    );
    expect(msg).toContain('column "n" is integer');
    await unchanged();
  });

  it('integers written with an exponent or a trailing .0 are whole and load', async () => {
    const q = await createProject(s, 'whole');
    await put(q, '/whole.csv', 'id,n\n1,1e3\n2,7.0\n');
    await loadOk(q, { t: wd('/whole.csv', { prescription: ID_N }) });
    expect(await query(q, 'SELECT * FROM "ds_t" ORDER BY id')).toEqual([
      { id: 1n, n: 1000n },
      { id: 2n, n: 7n },
    ]);
    expect(await types(q, 't')).toEqual({ id: 'BIGINT', n: 'BIGINT' });
  });

  it('more than 10 bad rows: the first 10 lines are listed and all are counted', async () => {
    let text = 'id,n\n';
    for (let i = 1; i <= 25; i++) text += i % 2 ? `${i},bad${i}\n` : `${i},${i}\n`;
    await put(p, '/bad13.csv', text);
    const msg = await loadError(p, { t: wd('/bad13.csv', { prescription: ID_N }) });
    expect(msg).toMatch(/13 row\(s\) of \/bad13\.csv do not match the prescription; first 10: /);
    // Row i is on line i + 1 (the header is line 1).
    expect(lineNumbers(msg)).toEqual([2, 4, 6, 8, 10, 12, 14, 16, 18, 20]);
    await unchanged();
  });

  it('line numbers count physical lines: quoted fields with line breaks shift them', async () => {
    // Lines: 1 header, 2-3 id 1 (two lines), 4 id 2 (bad), 5-7 id 3 (three lines), 8 id 4 (bad), 9 too many columns
    const text = 'id,n,note\n1,1,"a\nb"\n2,zz,c\n3,3,"d\n\ne"\n4,q,f\n5,5,g,extra\n';
    await put(p, '/bad-ml.csv', text);
    const three = {
      primarykey: 'id',
      columns: [col('id', 'integer'), col('n', 'integer', 'F'), col('note', 'string')],
    };
    const msg = await loadError(p, { t: wd('/bad-ml.csv', { prescription: three }) });
    expect(lineNumbers(msg)).toEqual([4, 8, 9]);
    expect(msg).toMatch(/3 row\(s\)/);
    await unchanged();
  });

  it('a row with two bad values counts once', async () => {
    await put(p, '/bad-two.csv', 'id,n\nx,y\n2,2\n');
    const msg = await loadError(p, { t: wd('/bad-two.csv', { prescription: ID_N }) });
    expect(msg).toMatch(/1 row\(s\) of \/bad-two\.csv .*first 1: line 2 /);
    await unchanged();
  });

  it('duplicate primary keys fail cleanly', async () => {
    await put(p, '/dup.csv', 'id,n\n1,1\n2,2\n1,3\n2,4\n1,5\n3,6\n');
    const msg = await loadError(p, { t: wd('/dup.csv', { prescription: ID_N }) });
    expect(msg).toBe(
      'cluster "t": primary key "id" is not unique; repeated values: "1" (3×), "2" (2×)',
    );
    await unchanged();
  });

  it('empty primary keys fail cleanly', async () => {
    await put(p, '/nullkey.csv', 'id,n\n1,1\n,2\n,3\n');
    const msg = await loadError(p, { t: wd('/nullkey.csv', { prescription: ID_N }) });
    expect(msg).toBe('cluster "t": 2 row(s) have no value in primary key "id"');
    await unchanged();
  });

  it('values that are not booleans fail the load', async () => {
    await put(p, '/bool.csv', 'id,n,flag\n1,1,yes\n2,2,maybe\n3,3,0\n');
    const prescription = {
      primarykey: 'id',
      columns: [col('id', 'integer'), col('n', 'integer', 'F'), col('flag', 'boolean')],
    };
    const msg = await loadError(p, { t: wd('/bool.csv', { prescription }) });
    expect(msg).toBe('cluster "t": values that are not booleans: flag="maybe"');
    await unchanged();
  });

  it('an impossible date fails with its line', async () => {
    await put(p, '/baddate.csv', 'id,n,day\n1,1,28.02.2023\n2,2,31.02.2023\n');
    const prescription = {
      primarykey: 'id',
      columns: [
        col('id', 'integer'),
        col('n', 'integer', 'F'),
        col('day', 'date', 'A', { dateFormat: '%d.%m.%Y' }),
      ],
    };
    const msg = await loadError(p, { t: wd('/baddate.csv', { prescription }) });
    expect(lineNumbers(msg)).toEqual([3]);
    expect(msg).toContain('column day');
    await unchanged();
  });

  it('a bad value in a date column of a second format fails the load', async () => {
    await put(
      p,
      '/baddate2.csv',
      'id,n,d1,d2\n1,1,01.02.2024,2024-02-01\n2,2,02.02.2024,someday\n',
    );
    const prescription = {
      primarykey: 'id',
      columns: [
        col('id', 'integer'),
        col('n', 'integer', 'F'),
        col('d1', 'date', 'A', { dateFormat: '%d.%m.%Y' }),
        col('d2', 'date'),
      ],
    };
    const msg = await loadError(p, { t: wd('/baddate2.csv', { prescription }) });
    expect(msg).toMatch(/^cluster "t": loading \/baddate2\.csv failed: .*someday/);
    await unchanged();
  });

  it('two clusters in one request: one job; when the second fails neither changes', async () => {
    await put(p, '/u-good.csv', 'id,n\n100,1\n');
    await put(p, '/u-bad.csv', 'id,n\n1,notanumber\n');
    // Titles are unique in a model: u's columns get their own.
    const uIdN = {
      primarykey: 'id',
      columns: [
        col('id', 'integer', 'A', { label: 'U' }),
        col('n', 'integer', 'F', { label: 'U n' }),
      ],
    };
    const msg = await loadError(p, {
      t: wd('/u-good.csv', { prescription: ID_N }),
      u: wd('/u-bad.csv', { prescription: uIdN }),
    });
    expect(msg).toMatch(/^cluster "u": 1 row\(s\) of \/u-bad\.csv/);
    await unchanged();
    expect((await s.engine.model.listByType(p, ['attribute', 'fact'])).map((o) => o.ident)).toEqual(
      ['attr.t.id', 'fact.t.n'],
    );
  });
});

describe('two clusters in one request', () => {
  it('load in one job, both loaded, one data version', async () => {
    const p = await createProject(s, 'multi');
    await put(p, '/x.csv', 'id,n\n1,1\n2,2\n');
    await put(p, '/y.csv', 'code;label\nA;Alpha\nB;Beta\nC;Gamma\n');
    const jobsBefore = (await s.api('GET', `${jobsPath(p)}?type=transform`)).json.paging.total;
    const job = await loadOk(p, { x: wd('/x.csv'), y: wd('/y.csv') });
    expect((await s.api('GET', `${jobsPath(p)}?type=transform`)).json.paging.total).toBe(
      jobsBefore + 1,
    );
    expect(job.result).toEqual({
      clusters: {
        x: { rows: 2, loaded: 2, mode: 'full', source: '/x.csv' },
        y: { rows: 3, loaded: 3, mode: 'full', source: '/y.csv' },
      },
      dataVersion: 1,
    });
    expect(await query(p, 'SELECT count(*)::INTEGER AS n FROM "ds_x"')).toEqual([{ n: 2 }]);
    expect(await query(p, 'SELECT code, label FROM "ds_y" ORDER BY code')).toEqual([
      { code: 'A', label: 'Alpha' },
      { code: 'B', label: 'Beta' },
      { code: 'C', label: 'Gamma' },
    ]);
    const d = await dataload(p);
    expect(d.dataVersion).toBe(1);
    expect(d.datasets.map((x) => [x.name, x.rows])).toEqual([
      ['x', 2],
      ['y', 3],
    ]);
  });
});

describe('which prescription a load uses: inline, saved for the file, the dataset’s, a fresh guess', () => {
  let p: string;
  let xId: string;
  beforeAll(async () => {
    p = await createProject(s, 'order');
    xId = await put(p, '/x.csv', 'id,n\n1,10\n2,20\n');
    await put(p, '/y.csv', 'id,n\n3,30\n');
  });
  // Titles are unique in a model: t's columns are not titled like those of `fresh`.
  const tId = col('id', 'integer', 'A', { label: 'T' });
  const asString = { primarykey: 'id', columns: [tId, col('n', 'string', 'A', { label: 'T n' })] };
  const asInteger = {
    clustername: 'x',
    primarykey: 'id',
    columns: [tId, col('n', 'integer', 'F', { label: 'T n' })],
  };

  it('a fresh guess when nothing else exists', async () => {
    await loadOk(p, { fresh: wd('/y.csv') });
    expect(await types(p, 'fresh')).toEqual({ id: 'BIGINT', n: 'BIGINT' });
  });

  it('inline wins over the one saved for the file', async () => {
    expect((await s.api('PUT', guessPath(p, xId), { body: asString })).status).toBe(200);
    await loadOk(p, { t: wd('/x.csv', { prescription: asInteger }) });
    expect(await types(p, 't')).toEqual({ id: 'BIGINT', n: 'BIGINT' });
  });

  it('the one saved for the file wins over the dataset’s', async () => {
    const r = await s.api('PUT', guessPath(p, xId), { body: asString });
    expect(r.status, r.text).toBe(200);
    expect(r.json.prescription.clustername).toBe('x'); // omitted: taken from the guess
    await loadOk(p, { t: wd('/x.csv') });
    expect(await types(p, 't')).toEqual({ id: 'BIGINT', n: 'VARCHAR' });
    expect(await query(p, 'SELECT n FROM "ds_t" ORDER BY id')).toEqual([{ n: '10' }, { n: '20' }]);
  });

  it('a file never guessed nor saved loads with the dataset’s current prescription', async () => {
    await put(p, '/z.csv', 'id,n\n3,30\n');
    await loadOk(p, { t: wd('/z.csv') });
    expect(await types(p, 't')).toEqual({ id: 'BIGINT', n: 'VARCHAR' });
    expect(await query(p, 'SELECT id, n FROM "ds_t"')).toEqual([{ id: 3n, n: '30' }]);
  });
});

describe('model objects over several loads', () => {
  // A removed object keeps its revision history; re-creating it continues the numbering.
  it('a column that was a fact, then an attribute, can become a fact again', async () => {
    const p = await createProject(s, 'reuse');
    await put(p, '/r.csv', 'id,n\n1,2\n');
    await loadOk(p, { r: wd('/r.csv', { prescription: ID_N }) });
    const asAttribute = { primarykey: 'id', columns: [col('id', 'integer'), col('n', 'string')] };
    await loadOk(p, { r: wd('/r.csv', { prescription: asAttribute }) });
    expect(await s.engine.model.get(p, 'fact.r.n')).toBeUndefined();
    expect(await s.engine.model.get(p, 'attr.r.n')).toBeDefined();
    await loadOk(p, { r: wd('/r.csv', { prescription: ID_N }) });
    expect(await s.engine.model.get(p, 'fact.r.n')).toBeDefined();
  });
});

describe('descriptions in the prescription', () => {
  it('describe the dataset and each column’s object; one changed through the model API stays until the prescription’s own changes', async () => {
    const p = await createProject(s, 'described');
    await put(p, '/d.csv', 'id,n\n1,2\n');
    const described = (n: string) => ({
      primarykey: 'id',
      description: 'one row per order',
      columns: [
        col('id', 'integer', 'A', { description: 'the order' }),
        col('n', 'integer', 'F', { description: n }),
      ],
    });
    await loadOk(p, { d: wd('/d.csv', { prescription: described('items ordered') }) });
    const desc = async (id: string) => (await s.engine.model.get(p, id))!.description;
    expect([await desc('attr.d.id'), await desc('fact.d.n')]).toEqual([
      'the order',
      'items ordered',
    ]);
    const catalog = await s.engine.catalog.catalog(await s.engine.actor({ email: ADMIN }, p), {});
    expect(catalog.datasets[0]).toMatchObject({ name: 'd', description: 'one row per order' });

    const obj = (await s.api('GET', `/projects/${p}/pmd/obj/fact.d.n`)).json.object;
    const edited = await s.api('PUT', `/projects/${p}/pmd/obj/fact.d.n`, {
      body: { ...obj, description: 'items, as edited' },
    });
    expect(edited.status, edited.text).toBe(200);
    await loadOk(p, { d: wd('/d.csv', { prescription: described('items ordered') }) });
    expect(await desc('fact.d.n')).toBe('items, as edited');
    await loadOk(p, { d: wd('/d.csv', { prescription: described('units ordered') }) });
    expect(await desc('fact.d.n')).toBe('units ordered');

    const long = await s.api('POST', execPath(p), {
      body: {
        type: 'cluster',
        clusters: {
          d: wd('/d.csv', { prescription: { ...described('x'), description: 'x'.repeat(1001) } }),
        },
      },
    });
    expect(long.status, long.text).toBe(400);
    expect(long.text).toMatch(/description/);
  });
});

describe('file formats', () => {
  let p: string;
  beforeAll(async () => {
    p = await createProject(s, 'formats');
  });

  it('UTF-8 with BOM, semicolons, quoted delimiters and line breaks', async () => {
    const text = 'code;name;amount\nA;"Äpfel; rot";1.5\nB;"zwei\nZeilen";2\nC;"sagt ""hi""";-3e2\n';
    const id = await put(
      p,
      '/bom.csv',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
    );
    const g = await s.api('GET', guessPath(p, id));
    expect(g.status, g.text).toBe(200);
    expect(g.json.prescription.format).toEqual({
      delimiter: ';',
      quote: '"',
      escape: '"',
      header: true,
      encoding: 'utf-8',
      bom: true,
    });
    expect(
      g.json.prescription.columns.map(
        (c: { id: string; dataType: string }) => `${c.id}:${c.dataType}`,
      ),
    ).toEqual(['code:string', 'name:string', 'amount:number']);
    expect(g.json.prescription.data).toEqual([
      ['A', 'Äpfel; rot', '1.5'],
      ['B', 'zwei\nZeilen', '2'],
      ['C', 'sagt "hi"', '-3e2'],
    ]);
    await loadOk(p, { bom: wd('/bom.csv') });
    expect(await types(p, 'bom')).toEqual({ code: 'VARCHAR', name: 'VARCHAR', amount: 'DOUBLE' });
    expect(await query(p, 'SELECT code, name, amount FROM "ds_bom" ORDER BY code')).toEqual([
      { code: 'A', name: 'Äpfel; rot', amount: 1.5 },
      { code: 'B', name: 'zwei\nZeilen', amount: 2 },
      { code: 'C', name: 'sagt "hi"', amount: -300 },
    ]);
  });

  it('a file whose name holds glob characters ([, *) loads that file, not the ones they match', async () => {
    await put(p, '/glob/r1.csv', 'id,n\n1,1\n');
    await put(p, '/glob/r[1].csv', 'id,n\n2,20\n3,30\n');
    await put(p, '/glob/s*.csv', 'id,n\n4,40\n');
    await put(p, '/glob/sx.csv', 'id,n\n5,50\n');
    await loadOk(p, { brackets: wd('/glob/r[1].csv', { prescription: ID_N }) });
    expect(await query(p, 'SELECT id, n FROM "ds_brackets" ORDER BY id')).toEqual([
      { id: 2n, n: 20n },
      { id: 3n, n: 30n },
    ]);
    await loadOk(p, { brackets: wd('/glob/s*.csv', { prescription: ID_N }) });
    expect(await query(p, 'SELECT id, n FROM "ds_brackets"')).toEqual([{ id: 4n, n: 40n }]);
  });

  it('CRLF line endings and a file without a header', async () => {
    const id = await put(
      p,
      '/nohead.csv',
      '1,alpha,2024-01-05\r\n2,beta,2024-02-06\r\n3,gamma,2024-03-07\r\n',
    );
    const g = await s.api('GET', guessPath(p, id));
    expect(g.json.prescription.format.header).toBe(false);
    expect(g.json.prescription.columns.map((c: { id: string }) => c.id)).toEqual([
      'column_1',
      'column_2',
      'column_3',
    ]);
    await loadOk(p, { nohead: wd('/nohead.csv') });
    expect(
      await query(
        p,
        `SELECT column_1, column_2, strftime(column_3, '%Y-%m-%d') AS d FROM "ds_nohead" ORDER BY 1`,
      ),
    ).toEqual([
      { column_1: 1n, column_2: 'alpha', d: '2024-01-05' },
      { column_1: 2n, column_2: 'beta', d: '2024-02-06' },
      { column_1: 3n, column_2: 'gamma', d: '2024-03-07' },
    ]);
  });

  it('date columns in different formats in one file (each read with its own)', async () => {
    const id = await put(
      p,
      '/mixed.csv',
      'id,de,iso,us\n1,01.02.2024,2024-02-01,02/01/2024\n2,15.03.2024,2024-03-15,03/15/2024\n3,,,\n',
    );
    const g = await s.api('GET', guessPath(p, id));
    expect(
      g.json.prescription.columns.map((c: { dateFormat?: string }) => c.dateFormat ?? null),
    ).toEqual([null, '%d.%m.%Y', null, '%m/%d/%Y']);
    await loadOk(p, { mixed: wd('/mixed.csv') });
    expect(await types(p, 'mixed')).toEqual({ id: 'BIGINT', de: 'DATE', iso: 'DATE', us: 'DATE' });
    expect(
      await query(
        p,
        `SELECT strftime(de, '%Y-%m-%d') AS de, strftime(iso, '%Y-%m-%d') AS iso, strftime(us, '%Y-%m-%d') AS us FROM "ds_mixed" ORDER BY id`,
      ),
    ).toEqual([
      { de: '2024-02-01', iso: '2024-02-01', us: '2024-02-01' },
      { de: '2024-03-15', iso: '2024-03-15', us: '2024-03-15' },
      { de: null, iso: null, us: null },
    ]);
  });

  it('DD.MM.YYYY dates and datetimes (a zone is converted to UTC)', async () => {
    const id = await put(
      p,
      '/dates.csv',
      'id,day,at,at_zone\n1,01.02.2024,2024-01-02 10:11:12,2024-01-02T10:00:00Z\n2,29.02.2024,2024-03-04T05:06:07,2024-01-02T10:00:00+02:00\n3,,,\n',
    );
    const g = await s.api('GET', guessPath(p, id));
    expect(g.json.prescription.columns.slice(1)).toEqual([
      {
        id: 'day',
        originalheader: 'day',
        objectType: 'A',
        dataType: 'date',
        label: 'day',
        dateFormat: '%d.%m.%Y',
      },
      { id: 'at', originalheader: 'at', objectType: 'A', dataType: 'datetime', label: 'at' },
      {
        id: 'at_zone',
        originalheader: 'at_zone',
        objectType: 'A',
        dataType: 'datetime',
        label: 'At Zone',
      },
    ]);
    await loadOk(p, { dates: wd('/dates.csv') });
    expect(await types(p, 'dates')).toEqual({
      id: 'BIGINT',
      day: 'DATE',
      at: 'TIMESTAMP',
      at_zone: 'TIMESTAMP',
    });
    expect(
      await query(
        p,
        `SELECT id, strftime(day, '%Y-%m-%d') AS day, strftime("at", '%Y-%m-%d %H:%M:%S') AS "at", strftime(at_zone, '%Y-%m-%d %H:%M:%S') AS at_zone FROM "ds_dates" ORDER BY id`,
      ),
    ).toEqual([
      { id: 1n, day: '2024-02-01', at: '2024-01-02 10:11:12', at_zone: '2024-01-02 10:00:00' },
      { id: 2n, day: '2024-02-29', at: '2024-03-04 05:06:07', at_zone: '2024-01-02 08:00:00' },
      { id: 3n, day: null, at: null, at_zone: null },
    ]);
  });

  it('datetimes keep fractions, times before 1970, far years and infinities', async () => {
    await put(
      p,
      '/times.csv',
      'id,at\n1,2024-01-02 10:11:12.345678\n2,1899-12-31T23:00:00.000001-01:30\n3,9999-12-31 23:59:59.999999+00:00\n4,infinity\n5,-infinity\n',
    );
    await loadOk(p, {
      times: wd('/times.csv', {
        prescription: {
          primarykey: 'id',
          columns: [
            { id: 'id', originalheader: 'id', objectType: 'A', dataType: 'integer', label: 'Time' },
            {
              id: 'at',
              originalheader: 'at',
              objectType: 'A',
              dataType: 'datetime',
              label: 'Time At',
            },
          ],
        },
      }),
    });
    expect(
      await query(p, `SELECT id, CAST("at" AS VARCHAR) AS "at" FROM "ds_times" ORDER BY id`),
    ).toEqual([
      { id: 1n, at: '2024-01-02 10:11:12.345678' },
      { id: 2n, at: '1900-01-01 00:30:00.000001' },
      { id: 3n, at: '9999-12-31 23:59:59.999999' },
      { id: 4n, at: 'infinity' },
      { id: 5n, at: '-infinity' },
    ]);
  });
});

describe('guessupload', () => {
  let p: string;
  let id: string;
  beforeAll(async () => {
    p = await createProject(s, 'guess');
    id = await put(p, '/g/t.csv', 'id,n\n1,2\n');
  });
  const valid = () => ({
    clustername: 't',
    primarykey: 'id',
    columns: [col('id', 'integer'), col('n', 'integer', 'F')],
  });

  it('accepts the identifier of a completed chunked upload; an unfinished one is refused', async () => {
    const text = Buffer.from('k,v\na,1\nb,2\nc,3\n');
    const chunkSize = Math.floor(text.length / 2);
    const chunk = async (n: number, data: Buffer) => {
      const q = new URLSearchParams({
        resumableChunkNumber: String(n),
        resumableChunkSize: String(chunkSize),
        resumableTotalSize: String(text.length),
        resumableTotalChunks: '2',
        resumableIdentifier: 'load-test-upload',
        resumableFilename: 'chunked.csv',
      });
      return s.api('POST', `/projects/${p}/storage/upload?${q}`, {
        raw: { type: 'application/octet-stream', data: data.toString('latin1') },
      });
    };
    expect((await chunk(1, text.subarray(0, chunkSize))).status).toBe(200);
    const early = await s.api('GET', guessPath(p, 'load-test-upload'));
    expect([400, 409]).toContain(early.status);
    expect(early.json.message).toMatch(/not complete/);
    const done = await chunk(2, text.subarray(chunkSize));
    expect(done.status, done.text).toBe(201);
    const g = await s.api('GET', guessPath(p, 'load-test-upload'));
    expect(g.status, g.text).toBe(200);
    expect(g.json.ident).toBe('load-test-upload');
    expect(g.json.prescription).toMatchObject({
      clustername: 'chunked',
      primarykey: 'k',
      data: [
        ['a', '1'],
        ['b', '2'],
        ['c', '3'],
      ],
    });
    await loadOk(p, { chunked: wd('/chunked.csv') });
    expect(await query(p, 'SELECT k, v FROM "ds_chunked" ORDER BY k')).toEqual([
      { k: 'a', v: 1n },
      { k: 'b', v: 2n },
      { k: 'c', v: 3n },
    ]);
  });

  it('an unknown uploadId, a missing file and a folder are refused', async () => {
    expect((await s.api('GET', guessPath(p, 'no-such-upload'))).status).toBe(404);
    expect((await s.api('GET', guessPath(p, fileId('/g/missing.csv')))).status).toBe(404);
    const folder = await s.api('GET', guessPath(p, fileId('/g')));
    expect(folder.status).toBe(400);
    expect(folder.json.message).toMatch(/is a folder/);
  });

  it.each([
    [
      'a primary key that is not an attribute',
      (b: ReturnType<typeof valid>) => ({ ...b, primarykey: 'n' }),
      /primary key "n" is not an attribute/,
    ],
    [
      'a primary key that is no column',
      (b: ReturnType<typeof valid>) => ({ ...b, primarykey: 'zz' }),
      /primary key "zz" is not a column id; known ids: id, n/,
    ],
    [
      'a label of an unknown column',
      (b: ReturnType<typeof valid>) => ({
        ...b,
        columns: [b.columns[0], col('n', 'string', 'L', { labelOf: 'nope' })],
      }),
      /labelOf of "n" "nope" is not a column id/,
    ],
    [
      'a reference on a fact',
      (b: ReturnType<typeof valid>) => ({
        ...b,
        columns: [b.columns[0], col('n', 'integer', 'F', { reference: 'other' })],
      }),
      /only attributes/,
    ],
    [
      'a duplicate column id',
      (b: ReturnType<typeof valid>) => ({
        ...b,
        columns: [b.columns[0], col('id', 'integer', 'F')],
      }),
      /duplicate column id "id"/,
    ],
    [
      'an unknown dataType',
      (b: ReturnType<typeof valid>) => ({ ...b, columns: [b.columns[0], col('n', 'money', 'F')] }),
      /must be one of string, integer, number, date, datetime, boolean/,
    ],
    [
      'a fact that is text',
      (b: ReturnType<typeof valid>) => ({ ...b, columns: [b.columns[0], col('n', 'string', 'F')] }),
      /must be integer or number/,
    ],
    [
      'an id with a dot',
      (b: ReturnType<typeof valid>) => ({
        ...b,
        columns: [b.columns[0], col('n.x', 'integer', 'F')],
      }),
      /must start with a-z/,
    ],
    [
      'fewer columns than the file',
      (b: ReturnType<typeof valid>) => ({ ...b, columns: [b.columns[0]] }),
      /the prescription has 1 columns but the file \/g\/t\.csv has 2/,
    ],
    [
      'more columns than the file',
      (b: ReturnType<typeof valid>) => ({ ...b, columns: [...b.columns, col('z', 'string')] }),
      /has 3 columns but the file \/g\/t\.csv has 2/,
    ],
    [
      'no columns at all',
      (b: ReturnType<typeof valid>) => ({ ...b, columns: [] }),
      /at least one column/,
    ],
  ])('PUT refuses %s with 400, and keeps what was saved', async (_name, edit, message) => {
    const ok = await s.api('PUT', guessPath(p, id), { body: valid() });
    expect(ok.status, ok.text).toBe(200);
    const r = await s.api('PUT', guessPath(p, id), { body: edit(valid()) });
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toMatch(message);
    expect((await s.api('GET', guessPath(p, id))).json.prescription.columns).toEqual(
      valid().columns,
    );
  });
});

describe('request validation', () => {
  let p: string;
  beforeAll(async () => {
    p = await createProject(s, 'valid');
    await put(p, '/v/t.csv', 'id,n\n1,2\n');
  });
  const post = (body: unknown) => s.api('POST', execPath(p), { body });

  it('an unknown source_type is refused with 400 naming the allowed ones', async () => {
    const r = await post({
      type: 'cluster',
      clusters: { t: { source_type: 'ftp', source: '/v/t.csv' } },
    });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('source_type "ftp" of cluster "t" is not supported');
    expect(r.json.context).toEqual({ cluster: 't', allowed: ['webdav'] });
  });

  it.each([
    [
      'an upper-case cluster name',
      { type: 'cluster', clusters: { Sales: wd('/v/t.csv') } },
      /clusters\.Sales/,
    ],
    [
      'a cluster name with a dash',
      { type: 'cluster', clusters: { 'a-b': wd('/v/t.csv') } },
      /clusters\.a-b/,
    ],
    [
      'a cluster name starting with a digit',
      { type: 'cluster', clusters: { '1a': wd('/v/t.csv') } },
      /clusters\.1a/,
    ],
    ['no clusters', { type: 'cluster' }, /clusters/],
    ['an empty cluster map', { type: 'cluster', clusters: {} }, /at least one cluster/],
    [
      'an unknown field in a cluster',
      { type: 'cluster', clusters: { t: wd('/v/t.csv', { extra: 1 }) } },
      /Unrecognized key/,
    ],
    [
      'an unknown mode',
      { type: 'cluster', clusters: { t: wd('/v/t.csv', { mode: 'append' }) } },
      /mode/,
    ],
    ['no source', { type: 'cluster', clusters: { t: { source_type: 'webdav' } } }, /source/],
    ['an unknown type', { type: 'copy', clusters: { t: wd('/v/t.csv') } }, /type/],
    ['a string body', 'load it', /expected object/],
    ['an array body', [{ type: 'cluster' }], /expected object/],
    [
      'a prescription with other columns than the file',
      {
        type: 'cluster',
        clusters: {
          t: wd('/v/t.csv', { prescription: { primarykey: '', columns: [col('id', 'integer')] } }),
        },
      },
      /has 1 columns but the file \/v\/t\.csv has 2/,
    ],
    [
      'an invalid inline prescription',
      {
        type: 'cluster',
        clusters: {
          t: wd('/v/t.csv', {
            prescription: {
              primarykey: 'n',
              columns: [col('id', 'integer'), col('n', 'integer', 'F')],
            },
          }),
        },
      },
      /not an attribute/,
    ],
    [
      'a folder as source',
      { type: 'cluster', clusters: { t: wd('/v') } },
      /"\/v" is a folder, not a file to load/,
    ],
  ])('%s → 400', async (_name, body, message) => {
    const r = await post(body);
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toMatch(message);
  });

  it('malformed JSON → 400', async () => {
    const r = await s.api('POST', execPath(p), {
      raw: { type: 'application/json', data: '{"type": "cluster", ' },
    });
    expect(r.status).toBe(400);
  });

  it('a missing file → 404, and no job is created', async () => {
    const before = (await s.api('GET', jobsPath(p))).json.paging.total;
    const r = await post({ type: 'cluster', clusters: { t: wd('/v/missing.csv') } });
    expect(r.status).toBe(404);
    expect(r.json.message).toMatch(/missing\.csv/);
    // One bad cluster refuses the whole request.
    const two = await post({
      type: 'cluster',
      clusters: { t: wd('/v/t.csv'), u: wd('/v/missing.csv') },
    });
    expect(two.status).toBe(404);
    expect((await s.api('GET', jobsPath(p))).json.paging.total).toBe(before);
  });

  it('type "flow" with an unknown id → 404', async () => {
    const r = await post({ type: 'flow', id: 'no-such-flow' });
    expect(r.status).toBe(404);
    expect(r.json.message).toMatch(/flow "no-such-flow" not found/);
  });

  it('a request body in YAML works as JSON does', async () => {
    const yaml =
      'type: cluster\nclusters:\n  yamlt:\n    source_type: webdav\n    source: /v/t.csv\n';
    const r = await s.api('POST', execPath(p), { raw: { type: 'text/yaml', data: yaml } });
    expect(r.status, r.text).toBe(202);
    const job = await pollJob(s.api, p, r.json.link[0].id, isFinal, { timeoutMs: 30_000 });
    expect(job.status, job.message).toBe('OK');
  });
});

describe('permissions', () => {
  let p: string;
  let id: string;
  beforeAll(async () => {
    p = await createProject(s, 'perm');
    id = await put(p, '/t.csv', 'id,n\n1,2\n');
    await invite(s, p, MEMBER);
    await invite(s, p, USERADMIN, { useradmin: true });
    await invite(s, p, MDADMIN, { mdadmin: true });
  });

  it.each([MEMBER, USERADMIN])(
    '%s (not MD Admin) gets 403 on guessupload and execute, 200 on dataload',
    async (as) => {
      expect((await s.api('GET', guessPath(p, id), { as })).status).toBe(403);
      expect(
        (
          await s.api('PUT', guessPath(p, id), {
            as,
            body: { primarykey: '', columns: [col('id', 'integer'), col('n', 'integer')] },
          })
        ).status,
      ).toBe(403);
      expect(
        (
          await s.api('POST', execPath(p), {
            as,
            body: { type: 'cluster', clusters: { t: wd('/t.csv') } },
          })
        ).status,
      ).toBe(403);
      expect(
        (await s.api('POST', execPath(p), { as, body: { type: 'flow', id: 'x' } })).status,
      ).toBe(403);
      expect((await s.api('GET', `/projects/${p}/kodiak/dataload`, { as })).status).toBe(200);
      expect(await s.engine.datasets.infos(p)).toEqual([]);
    },
  );

  it('an MD Admin guesses and loads', async () => {
    expect((await s.api('GET', guessPath(p, id), { as: MDADMIN })).status).toBe(200);
    const jobId = await start(p, { t: wd('/t.csv') }, MDADMIN);
    const job = await pollJob(s.api, p, jobId, isFinal, { as: MDADMIN, timeoutMs: 30_000 });
    expect(job.status, job.message).toBe('OK');
    expect(job.createdBy).toBe(MDADMIN);
    const latest = (await s.api('GET', `/projects/${p}/activity/loads?latest=1`, { as: MEMBER }))
      .json.loads;
    expect(latest[0]).toMatchObject({ user: MDADMIN, object: 't' });
  });
});

describe('large loads: progress and cancellation', () => {
  const ROWS = 4_000_000;
  let p: string;
  beforeAll(async () => {
    p = await createProject(s, 'large');
    await putBig(p, '/big.csv', ROWS);
    await put(p, '/small.csv', 'id,name,amount,day\n1,one,1.5,2024-01-01\n2,two,2.5,2024-01-02\n');
    await loadOk(p, { big: wd('/small.csv', { prescription: BIG_PRESCRIPTION }) });
  }, 120_000);
  const small = [
    { id: 1n, name: 'one', amount: 1.5, day: '2024-01-01' },
    { id: 2n, name: 'two', amount: 2.5, day: '2024-01-02' },
  ];
  const rows = () =>
    query(
      p,
      `SELECT id, name, amount, strftime(day, '%Y-%m-%d') AS day FROM "ds_big" ORDER BY id LIMIT 5`,
    );

  it('cancelling a running load ends it CANCELLED and keeps the previous rows', async () => {
    const before = await dataload(p);
    const id = await start(p, { big: wd('/big.csv', { prescription: BIG_PRESCRIPTION }) });
    await pollJob(s.api, p, id, (j) => j.status === 'RUNNING' || isFinal(j), { timeoutMs: 30_000 });
    const c = await s.api('POST', `${jobsPath(p)}/${id}/cancel`);
    expect(c.status, c.text).toBe(202);
    const job = await pollJob(s.api, p, id, isFinal, { timeoutMs: 30_000 });
    expect(job.status).toBe('CANCELLED');
    expect(await rows()).toEqual(small);
    expect(await dataload(p)).toEqual(before);
    expect(await tables(p)).toEqual(['ds_big']);
    expect((await s.api('GET', `/projects/${p}/activity/loads`)).json.loads).toHaveLength(1);
  }, 60_000);

  it('progress is visible while polling, and the load completes', async () => {
    const id = await start(p, { big: wd('/big.csv', { prescription: BIG_PRESCRIPTION }) });
    const seen: Array<Record<string, unknown>> = [];
    let job: JobJson;
    const until = Date.now() + 120_000;
    for (;;) {
      const r = await s.api('GET', `${jobsPath(p)}/${id}`);
      job = r.json;
      if (job.status === 'RUNNING' && job.progress) seen.push(job.progress);
      if (isFinal(job) || Date.now() > until) break;
      await sleep(10);
    }
    expect(job.status, job.message).toBe('OK');
    const partial = seen.filter(
      (pr) => typeof pr.percentage === 'number' && pr.percentage > 0 && pr.percentage < 100,
    );
    expect(partial.length, JSON.stringify(seen)).toBeGreaterThan(0);
    expect(partial[0]).toEqual({ cluster: 'big', percentage: expect.any(Number) });
    expect(job.progress).toEqual({ cluster: 'big', rowsLoaded: ROWS, percentage: 100 });
    expect(job.result).toMatchObject({ clusters: { big: { rows: ROWS, loaded: ROWS } } });
    expect(
      await query(p, 'SELECT count(*)::INTEGER AS n, sum(id)::DOUBLE AS s FROM "ds_big"'),
    ).toEqual([{ n: ROWS, s: (ROWS * (ROWS + 1)) / 2 }]);
    expect(await rows()).toEqual([
      { id: 1n, name: 'name 1', amount: 1.5, day: '2024-01-02' },
      { id: 2n, name: 'name 2', amount: 3, day: '2024-01-03' },
      { id: 3n, name: 'name 3', amount: 4.5, day: '2024-01-04' },
      { id: 4n, name: 'name 4', amount: 6, day: '2024-01-05' },
      { id: 5n, name: 'name 5', amount: 7.5, day: '2024-01-06' },
    ]);
  }, 150_000);
});

describe('the plan’s datasetRows limit', () => {
  let t: TestServer;
  let plans: ReturnType<typeof writePlansFile>;
  beforeAll(async () => {
    plans = writePlansFile({ datasetRows: 5 });
    t = await startTestServer({ URSA_PLANS_FILE: plans.file, URSA_DEMO_DATA: 'false' });
  });
  afterAll(async () => {
    await t?.close();
    plans?.remove();
  });

  it('a load that would go over it fails the job and changes nothing; replacing within it works', async () => {
    // Not the demo project: its demo data does not fit this plan.
    const p = await createProject(t, 'limit');
    const w = async (f: string, text: string) =>
      rawStorage(t.engine).writeFile(p, f, Buffer.from(text), { createParents: true });
    const run = async (clusters: Record<string, unknown>) => {
      const r = await t.api('POST', execPath(p), { body: { type: 'cluster', clusters } });
      expect(r.status, r.text).toBe(202);
      return pollJob(t.api, p, r.json.link[0].id, isFinal, { timeoutMs: 30_000 });
    };
    const state = async () => (await t.api('GET', `/projects/${p}/kodiak/dataload`)).json.dataload;
    await w('/three.csv', 'id,n\n1,1\n2,2\n3,3\n');
    await w('/four.csv', 'id,n\n1,1\n2,2\n3,3\n4,4\n');
    await w('/six.csv', 'id,n\n1,1\n2,2\n3,3\n4,4\n5,5\n6,6\n');
    expect((await run({ a: wd('/three.csv') })).status).toBe('OK');
    const before = await state();

    const over = await run({ b: wd('/three.csv') });
    expect(over.status).toBe('ERROR');
    expect(over.message).toBe(
      'plan limit "datasetRows" exceeded: the project would hold 6 rows, 5 allowed; nothing was loaded',
    );
    expect(await state()).toEqual(before);
    const tablesNow = await t.engine.dbs.read(p, async (c) =>
      (
        await c.runAndReadAll('SELECT table_name FROM duckdb_tables() ORDER BY 1')
      ).getRowObjectsJson(),
    );
    expect(tablesNow).toEqual([{ table_name: 'ds_a' }]);
    expect((await t.engine.model.listByType(p, ['attribute', 'fact'])).map((o) => o.ident)).toEqual(
      ['attr.a.id', 'fact.a.n'],
    );

    const alone = await run({ a: wd('/six.csv') });
    expect(alone.status).toBe('ERROR');
    expect(alone.message).toMatch(/would hold 6 rows, 5 allowed/);
    expect(await state()).toEqual(before);

    // Replacing a dataset counts its new rows, not old + new.
    expect((await run({ a: wd('/four.csv') })).status).toBe('OK');
    const lim = await t.api('GET', `/projects/${p}/limitadherence`);
    expect(lim.json.datasetRows).toEqual({ limit: 5, value: 4 });
  });
});
