// AQL correctness (issue 4), shared by the embedded engine (test/aql-correctness.test.ts)
// and a warehouse project on PostgreSQL (test/aql-correctness-pg.test.ts, issue 22): the same
// data, cases and expected answers. On data generated with a seeded PRNG, every expected answer is
// computed independently in plain TypeScript from the generated rows (never taken from the
// engine) and compared with what the engine answers over REST: POST app/aql/execute, poll
// the job, GET the data link. The model is a small star/snowflake:
//
//   orders ──customer_id──▶ customers ──country──▶ countries        returns ──▶ customers
//     └─────product_id───▶ products                               shipments ══(2 paths)══▶ countries
//
// with NULL amounts, orders and returns whose customer matches no customer, a product that
// matches nothing, two customers of the same name, and a region that has returns but no
// orders. Numbers are compared with a relative tolerance of 1e-9 (sums in another order
// differ in the last bits) and must be printed without trailing zeros or exponent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from './fixtures.js';
import { isFinal, pollJob } from './jobs.js';
import { ADMIN, startTestServer, type TestServer } from './server.js';
import { rawStorage } from './storage.js';
import { bindWarehouse, grantReader, startWarehouse, type TestWarehouse } from './warehouse.js';
import { v3Cases } from './aql-correctness-v3.js';

// ---------------------------------------------------------------------------------------
// Generated data

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = mulberry32(20240531);
const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)]!;
const cents = (lo: number, hi: number) => int(lo * 100, hi * 100) / 100;
const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** A day of 2023 or 2024. */
const randomDay = () => isoDay(Date.UTC(2023, 0, 1) + int(0, 730) * DAY_MS);

interface Country {
  country: string;
  continent: string;
}
interface Customer {
  customer_id: number;
  name: string;
  region: string | null;
  country: string;
}
interface Product {
  product_id: string;
  category: string;
}
interface Order {
  order_id: number;
  customer_id: number;
  product_id: string;
  order_date: string;
  amount: number | null;
  qty: number;
  status: string;
}
interface Return {
  return_id: number;
  customer_id: number;
  return_date: string;
  refund: number | null;
}
interface Shipment {
  shipment_id: number;
  from_country: string;
  to_country: string;
  weight: number;
}

const COUNTRIES: Country[] = [
  { country: 'AQ', continent: 'Antarctica' }, // no customer lives there
  { country: 'BR', continent: 'South America' },
  { country: 'CA', continent: 'North America' },
  { country: 'DE', continent: 'Europe' },
  { country: 'FR', continent: 'Europe' },
  { country: 'JP', continent: 'Asia' },
  { country: 'US', continent: 'North America' },
];

const NAMES = ['Ann', 'Bob', 'Cleo', 'Dan', 'Eve', 'Finn', 'Gus', 'Hana', 'Ivan', 'Jo'];
const COUNTRY_OF_REGION: Record<string, string[]> = {
  EU: ['DE', 'FR'],
  US: ['US', 'CA'],
  APAC: ['JP'],
};

/** 1–30 order and return; 31–34 (LATAM) only return; 35–36 (MEA) and 38–40 (EU) never buy. */
const CUSTOMERS: Customer[] = [];
for (let id = 1; id <= 40; id++) {
  let region: string | null;
  let country: string;
  if (id <= 30) {
    region = pick(['EU', 'US', 'APAC']);
    country = pick(COUNTRY_OF_REGION[region]!);
  } else if (id <= 34) [region, country] = ['LATAM', 'BR'];
  else if (id <= 36)
    [region, country] = ['MEA', 'AE']; // AE: not in countries
  else if (id === 37)
    [region, country] = [null, 'DE']; // no region
  else [region, country] = ['EU', 'FR'];
  CUSTOMERS.push({ customer_id: id, name: pick(NAMES), region, country });
}
// Two customers with the same name, both buying: a label groups by its attribute.
CUSTOMERS[0]!.name = 'Ann';
CUSTOMERS[1]!.name = 'Ann';
// A customer whose country matches no country: no continent.
Object.assign(CUSTOMERS[6]!, { region: 'APAC', country: 'ZZ' });

const PRODUCTS: Product[] = ['P01', 'P02', 'P03', 'P04', 'P05', 'P06', 'P07', 'P08'].map(
  (product_id, i) => ({
    product_id,
    category: i === 7 ? 'Garden' : pick(['Books', 'Games', 'Tools']), // P08 never sold
  }),
);

const BUYERS = [...CUSTOMERS.filter((c) => c.customer_id <= 30 || c.customer_id === 37)].map(
  (c) => c.customer_id,
);
const FIXED_DAYS = ['2023-01-01', '2024-12-30', '2024-12-31', '2024-02-29', '2021-01-03'];
const ORDERS: Order[] = [];
for (let i = 0; i < 400; i++) {
  const status = i % 25 === 5 ? 'void' : pick(['paid', 'paid', 'open', 'refunded']);
  ORDERS.push({
    order_id: 1001 + i,
    customer_id: i < 2 ? i + 1 : i % 20 === 7 ? pick([901, 902, 903]) : pick(BUYERS),
    product_id: i % 50 === 3 ? 'P99' : pick(PRODUCTS.slice(0, 7)).product_id,
    order_date: FIXED_DAYS[i] ?? randomDay(),
    amount: status === 'void' || rnd() < 0.08 ? null : cents(1, 500),
    qty: int(1, 10),
    status,
  });
}

const RETURNS: Return[] = [];
for (let i = 0; i < 80; i++) {
  RETURNS.push({
    return_id: i + 1,
    customer_id: i % 16 === 5 ? 950 : i % 5 === 0 ? int(31, 34) : int(1, 30),
    return_date: randomDay(),
    refund: rnd() < 0.1 ? null : cents(1, 200),
  });
}

const SHIPMENTS: Shipment[] = Array.from({ length: 10 }, (_, i) => ({
  shipment_id: i + 1,
  from_country: pick(COUNTRIES).country,
  to_country: pick(COUNTRIES).country,
  weight: cents(1, 100),
}));

/** Number formatting: values as written in the file. */
const NUMS: [number, string][] = [
  [1, '0.1'],
  [2, '0.2'],
  [3, '1000000000'],
  [4, '123456789012.5'],
  [5, '0.000125'],
  [6, '2.50'],
  [7, '-3'],
];

const csv = (header: string[], rows: unknown[][]) =>
  [header.join(','), ...rows.map((r) => r.map((v) => (v === null ? '' : String(v))).join(','))]
    .join('\n')
    .concat('\n');
const rowsOf = <T extends object>(xs: T[], cols: (keyof T)[]) =>
  xs.map((x) => cols.map((c) => x[c]));

const col = (
  id: string,
  dataType: string,
  objectType: string,
  label: string,
  extra: Record<string, unknown> = {},
) => ({ id, originalheader: id, objectType, dataType, label, ...extra });

const DATASETS: Record<string, { csv: string; prescription: unknown }> = {
  countries: {
    csv: csv(['country', 'continent'], rowsOf(COUNTRIES, ['country', 'continent'])),
    prescription: {
      primarykey: 'country',
      columns: [
        col('country', 'string', 'A', 'Country'),
        col('continent', 'string', 'A', 'Continent'),
      ],
    },
  },
  customers: {
    csv: csv(
      ['customer_id', 'name', 'region', 'country'],
      rowsOf(CUSTOMERS, ['customer_id', 'name', 'region', 'country']),
    ),
    prescription: {
      primarykey: 'customer_id',
      columns: [
        col('customer_id', 'integer', 'A', 'Customer'),
        col('name', 'string', 'L', 'Customer Name', { labelOf: 'customer_id' }),
        col('region', 'string', 'A', 'Region'),
        col('country', 'string', 'A', 'Customer Country', { reference: 'countries' }),
      ],
    },
  },
  products: {
    csv: csv(['product_id', 'category'], rowsOf(PRODUCTS, ['product_id', 'category'])),
    prescription: {
      primarykey: 'product_id',
      columns: [
        col('product_id', 'string', 'A', 'Product'),
        col('category', 'string', 'A', 'Category'),
      ],
    },
  },
  orders: {
    csv: csv(
      ['order_id', 'customer_id', 'product_id', 'order_date', 'amount', 'qty', 'status'],
      rowsOf(ORDERS, [
        'order_id',
        'customer_id',
        'product_id',
        'order_date',
        'amount',
        'qty',
        'status',
      ]),
    ),
    prescription: {
      primarykey: 'order_id',
      columns: [
        col('order_id', 'integer', 'A', 'Order ID'),
        col('customer_id', 'integer', 'A', 'Order Customer', { reference: 'customers' }),
        col('product_id', 'string', 'A', 'Order Product', { reference: 'products' }),
        col('order_date', 'date', 'A', 'Order Date'),
        col('amount', 'number', 'F', 'Amount'),
        col('qty', 'integer', 'F', 'Qty'),
        col('status', 'string', 'A', 'Status'),
      ],
    },
  },
  returns: {
    csv: csv(
      ['return_id', 'customer_id', 'return_date', 'refund'],
      rowsOf(RETURNS, ['return_id', 'customer_id', 'return_date', 'refund']),
    ),
    prescription: {
      primarykey: 'return_id',
      columns: [
        col('return_id', 'integer', 'A', 'Return ID'),
        col('customer_id', 'integer', 'A', 'Return Customer', { reference: 'customers' }),
        col('return_date', 'date', 'A', 'Return Date'),
        col('refund', 'number', 'F', 'Refund'),
      ],
    },
  },
  shipments: {
    csv: csv(
      ['shipment_id', 'from_country', 'to_country', 'weight'],
      rowsOf(SHIPMENTS, ['shipment_id', 'from_country', 'to_country', 'weight']),
    ),
    prescription: {
      primarykey: 'shipment_id',
      columns: [
        col('shipment_id', 'integer', 'A', 'Shipment'),
        col('from_country', 'string', 'A', 'From Country', { reference: 'countries' }),
        col('to_country', 'string', 'A', 'To Country', { reference: 'countries' }),
        col('weight', 'number', 'F', 'Weight'),
      ],
    },
  },
  nums: {
    csv: csv(['n_id', 'val'], NUMS),
    prescription: {
      primarykey: 'n_id',
      columns: [col('n_id', 'integer', 'A', 'Num ID'), col('val', 'number', 'F', 'Val')],
    },
  },
};

// ---------------------------------------------------------------------------------------
// The independent computation

type Val = string | number | null;
type Row = Val[];

const CUSTOMER = new Map(CUSTOMERS.map((c) => [c.customer_id, c]));
const COUNTRY = new Map(COUNTRIES.map((c) => [c.country, c]));
const PRODUCT = new Map(PRODUCTS.map((p) => [p.product_id, p]));

/** Dimensions seen from a row with a customer reference: null when it matches nothing. */
const customerKey = (r: { customer_id: number }): Val =>
  CUSTOMER.has(r.customer_id) ? r.customer_id : null;
const region = (r: { customer_id: number }): Val => CUSTOMER.get(r.customer_id)?.region ?? null;
const custCountry = (r: { customer_id: number }): Val =>
  CUSTOMER.get(r.customer_id)?.country ?? null;
const continent = (r: { customer_id: number }): Val => {
  const c = CUSTOMER.get(r.customer_id);
  return (c && COUNTRY.get(c.country)?.continent) ?? null;
};
const category = (o: Order): Val => PRODUCT.get(o.product_id)?.category ?? null;
const status = (o: Order): Val => o.status;

const ymd = (d: string) => d.split('-').map(Number) as [number, number, number];
const year = (o: Order): Val => ymd(o.order_date)[0];
const month = (o: Order): Val => ymd(o.order_date)[1];
const day = (o: Order): Val => ymd(o.order_date)[2];
const quarter = (o: Order): Val => Math.ceil(ymd(o.order_date)[1] / 3);
/** ISO 8601 week: weeks start on Monday; week 1 holds the year's first Thursday. */
function isoWeek(d: string): number {
  const [y, m, dd] = ymd(d);
  const t = new Date(Date.UTC(y, m - 1, dd));
  t.setUTCDate(t.getUTCDate() + 3 - ((t.getUTCDay() + 6) % 7)); // that week's Thursday
  const jan4 = new Date(Date.UTC(t.getUTCFullYear(), 0, 4));
  return (
    1 + Math.round(((t.getTime() - jan4.getTime()) / DAY_MS - 3 + ((jan4.getUTCDay() + 6) % 7)) / 7)
  );
}
const week = (o: Order): Val => isoWeek(o.order_date);

const present = (xs: (number | null)[]) => xs.filter((x): x is number => x !== null);
const sum = (xs: (number | null)[]): number | null => {
  const v = present(xs);
  return v.length ? v.reduce((a, b) => a + b, 0) : null;
};
const avg = (xs: (number | null)[]): number | null => {
  const v = present(xs);
  return v.length ? sum(v)! / v.length : null;
};
const min = (xs: (number | null)[]) => (present(xs).length ? Math.min(...present(xs)) : null);
const max = (xs: (number | null)[]) => (present(xs).length ? Math.max(...present(xs)) : null);
const median = (xs: (number | null)[]): number | null => {
  const v = present(xs).sort((a, b) => a - b);
  if (!v.length) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
};
const countDistinct = (xs: Val[]) => new Set(xs.filter((x) => x !== null)).size;
const countPresent = (xs: Val[]) => xs.filter((x) => x !== null).length;
const num = (v: Val) => v as number | null;
const div = (a: Val, b: Val): Val =>
  a === null || b === null || num(b) === 0 ? null : num(a)! / num(b)!;
const minus = (a: Val, b: Val): Val => (a === null || b === null ? null : num(a)! - num(b)!);
const ifnull = (a: Val, b: Val): Val => (a === null ? b : a);
/** DuckDB's round: half away from zero. */
const round = (x: Val, digits = 0): Val =>
  x === null
    ? null
    : (Math.sign(num(x)!) * Math.round(Math.abs(num(x)!) * 10 ** digits)) / 10 ** digits;
const like = (v: Val, pattern: string) =>
  v !== null &&
  new RegExp(
    `^${pattern
      .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      .replace(/%/g, '.*')
      .replace(/_/g, '.')}$`,
    's',
  ).test(String(v));

const amounts = (os: Order[]) => os.map((o) => o.amount);
const qtys = (os: Order[]) => os.map((o) => o.qty);
const refunds = (rs: Return[]) => rs.map((r) => r.refund);
const orderCount = (os: Order[]) => countDistinct(os.map((o) => o.order_id));

type Leaf = Map<string, { key: Val[]; v: Val }> & { missing?: Val };

/** One aggregation at a grain: group `rows` by `dims`, aggregate every group. */
function leaf<R>(rows: readonly R[], dims: ((r: R) => Val)[], agg: (rs: R[]) => Val): Leaf {
  const groups = new Map<string, { key: Val[]; rows: R[] }>();
  for (const r of rows) {
    const key = dims.map((d) => d(r));
    const k = JSON.stringify(key);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { key, rows: [] }));
    g.rows.push(r);
  }
  return new Map([...groups].map(([k, g]) => [k, { key: g.key, v: agg(g.rows) }]));
}

/** A COUNT leaf: a group it has no rows for counts 0 (AQL: nothing to count is 0, not empty). */
function countLeaf<R>(rows: readonly R[], dims: ((r: R) => Val)[], agg: (rs: R[]) => Val): Leaf {
  return Object.assign(leaf(rows, dims, agg), { missing: 0 });
}

/** Leaves at one grain joined on their dimension values (full outer join), sorted by them. */
function assemble(...leaves: Leaf[]): Row[] {
  const keys = new Map<string, Val[]>();
  for (const l of leaves) for (const [k, e] of l) keys.set(k, e.key);
  const rows = [...keys].map(([k, key]) => [
    ...key,
    ...leaves.map((l) => l.get(k)?.v ?? l.missing ?? null),
  ]);
  return sortRows(rows, [], keys.values().next().value?.length ?? 0);
}

/** Distinct combinations of dimension values, sorted. */
function distinct<R>(rows: readonly R[], dims: ((r: R) => Val)[]): Row[] {
  return assemble(leaf(rows, dims, () => null)).map((r) => r.slice(0, dims.length));
}

function cmp(a: Val, b: Val): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : 1;
}

/**
 * ORDER BY: `by` as [column, descending]; nulls last either way; then the first `dims`
 * columns ascending (the engine's tie-break and default order).
 */
function sortRows(rows: Row[], by: [number, boolean][], dims: number): Row[] {
  const keys: [number, boolean][] = [
    ...by,
    ...Array.from({ length: dims }, (_, i): [number, boolean] => [i, false]),
  ];
  return [...rows].sort((x, y) => {
    for (const [c, desc] of keys) {
      const a = x[c]!;
      const b = y[c]!;
      if (a === null || b === null) {
        const n = cmp(a, b);
        if (n) return n;
        continue;
      }
      const n = cmp(a, b) * (desc ? -1 : 1);
      if (n) return n;
    }
    return 0;
  });
}

/** EU rows, as the row-level filter `[Region] = "EU"` sees them. */
const EU = <R extends { customer_id: number }>(rows: R[]) => rows.filter((r) => region(r) === 'EU');

// ---------------------------------------------------------------------------------------
// Talking to the engine

let s: TestServer;
let p: string;
const RLS = 'aql-correctness-eu@example.com';

interface Answer {
  titles: string[];
  rows: string[][];
  values: string;
}

async function run(aql: string, as: string = ADMIN): Promise<Answer> {
  const r = await s.api('POST', `/projects/${p}/app/aql/execute`, { body: { aql }, as });
  expect(r.status, `${aql}\n${r.text}`).toBe(201);
  const links = r.json.link as { rel: string; href: string; id: string }[];
  const job = links.find((l) => l.rel === 'scache.created')!;
  const data = links.find((l) => l.rel === 'data.created')!;
  const done = await pollJob(s.api, p, job.id, isFinal, { as, timeoutMs: 30_000 });
  expect(done.status, `${aql}\n${done.message}`).toBe('OK');
  const d = await s.api('GET', data.href, { as });
  expect(d.status, d.text).toBe(200);
  const values = d.json.data.values as string;
  return {
    titles: (d.json.data.visual.column as { title: string }[]).map((c) => c.title),
    rows: values === '' ? [] : values.split('\n').map((l) => l.split('\t')),
    values,
  };
}

/** A number as the engine must print it: no exponent, no trailing zeros. */
const NUMBER_TEXT = /^-?\d+(\.\d*[1-9])?$/;
const close = (a: number, b: number) =>
  Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
const canon = (v: Val) =>
  v === null ? '' : typeof v === 'number' ? String(Number(v.toPrecision(12))) : v;

/** Cells must equal the expected values: text exactly, numbers printed plainly and close. */
function expectRows(actual: string[][], expected: Row[], what: string): void {
  const got = actual.map((row, i) =>
    row.map((cell, j) => {
      const e = expected[i]?.[j];
      return typeof e === 'number' && NUMBER_TEXT.test(cell) && close(Number(cell), e)
        ? canon(e)
        : cell;
    }),
  );
  expect(got, what).toEqual(expected.map((r) => r.map(canon)));
}

async function check(
  aql: string,
  expected: Row[],
  opts: { as?: string; titles?: string[] } = {},
): Promise<Answer> {
  expect(expected.length, `the expectation of ${aql} is not trivial`).toBeGreaterThan(0);
  const a = await run(aql, opts.as);
  expectRows(a.rows, expected, aql);
  if (opts.titles) expect(a.titles, aql).toEqual(opts.titles);
  return a;
}

async function refused(aql: string, as: string = ADMIN) {
  const r = await s.api('POST', `/projects/${p}/app/aql/execute`, { body: { aql }, as });
  expect(r.status, `${aql}\n${r.text}`).toBe(400);
  return r.json as { message: string; context: Record<string, unknown> };
}

let wh: TestWarehouse | undefined;

/** The embedded engine: CSV files loaded into DuckDB datasets. */
async function loadFiles(): Promise<void> {
  for (const [name, d] of Object.entries(DATASETS))
    await rawStorage(s.engine).writeFile(p, `/${name}.csv`, Buffer.from(d.csv));
  const clusters = Object.fromEntries(
    Object.entries(DATASETS).map(([name, d]) => [
      name,
      { source_type: 'webdav', source: `/${name}.csv`, prescription: d.prescription },
    ]),
  );
  const r = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
    body: { type: 'cluster', clusters },
  });
  expect(r.status, r.text).toBe(202);
  const job = await s.engine.jobs.waitFor(r.json.link[0].id);
  expect(job.status, job.message).toBe('OK');
}

/** PostgreSQL types of the prescriptions' data types. */
const PG_TYPES: Record<string, string> = {
  integer: 'bigint',
  number: 'double precision',
  date: 'date',
  string: 'text',
};

/**
 * A warehouse project: the same rows in tables of a throwaway PostgreSQL (without foreign
 * keys: the data holds references that match nothing), mapped with the same prescriptions.
 */
async function mapWarehouse(): Promise<void> {
  wh = await startWarehouse();
  await wh.exec('CREATE SCHEMA shop');
  for (const [name, d] of Object.entries(DATASETS)) {
    const pr = d.prescription as {
      primarykey: string;
      columns: { id: string; dataType: string }[];
    };
    const cols = pr.columns.map((c) => `${c.id} ${PG_TYPES[c.dataType]}`);
    await wh.exec(`CREATE TABLE shop.${name} (${cols.join(', ')}, PRIMARY KEY (${pr.primarykey}))`);
    const rows = d.csv
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    const values = rows.flat().map((v) => (v === '' ? null : v));
    const tuples = rows.map(
      (r, i) => `(${r.map((_, j) => `$${i * r.length + j + 1}`).join(', ')})`,
    );
    await wh.exec(`INSERT INTO shop.${name} VALUES ${tuples.join(', ')}`, values);
  }
  await grantReader(wh, 'shop');
  await bindWarehouse(s, p, wh, 'shop');
  const clusters = Object.fromEntries(
    Object.entries(DATASETS).map(([name, d]) => [
      name,
      { source_type: 'table', source: `shop.${name}`, prescription: d.prescription },
    ]),
  );
  const r = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
    body: { type: 'cluster', clusters },
  });
  expect(r.status, r.text).toBe(202);
  const job = await s.engine.jobs.waitFor(r.json.link[0].id);
  expect(job.status, job.message).toBe('OK');
}

/**
 * Every case, against the engine named: `duckdb`, an embedded project loaded from files, or
 * `postgres`, a warehouse project whose tables hold the same rows.
 */
export function correctnessSuite(engine: 'duckdb' | 'postgres'): void {
  beforeAll(async () => {
    s = await startTestServer({
      URSA_DEFAULT_PLAN: 'enterprise',
      ...(engine === 'postgres'
        ? { URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1', URSA_WAREHOUSE_CACHE_SECONDS: '0' }
        : {}),
    });
    p = await createProject(s, 'aql-correct', 'AQL correctness');
    if (engine === 'postgres') await mapWarehouse();
    else await loadFiles();

    // Saved metrics and filters, through the model API.
    const saved = await s.api('POST', `/projects/${p}/pmd/obj`, {
      body: [
        ['metric', 'Revenue', 'SELECT SUM([Amount])'],
        ['metric', 'Order Count', 'SELECT COUNT([Order ID])'],
        ['metric', 'Avg Order Value', 'SELECT [Revenue] / [Order Count]'],
        ['metric', 'Paid Revenue', 'SELECT [Revenue] WHERE [Status] = "paid"'],
        ['metric', 'Paid Share', 'SELECT [Paid Revenue] / [Revenue]'],
        ['metric', 'Revenue Share', 'SELECT [Revenue] / (SELECT [Revenue] BY ALL)'],
        ['metric', 'Total Refund', 'SELECT SUM([Refund])'],
        ['metric', 'Net', 'SELECT IFNULL([Revenue], 0) - IFNULL([Total Refund], 0)'],
        ['metric', 'Avg Customer Revenue', 'SELECT AVG([Revenue] BY [Customer])'],
        ['filter', 'Only EU', '[Region] = "EU"'],
        ['filter', 'Paid Orders', '[Status] = "paid"'],
        ['filter', 'Big', '[Amount] > 250'],
      ].map(([type, name, aql]) => ({ type, name, def: { aql } })),
    });
    expect(saved.status, saved.text).toBe(201);

    const inv = await s.api('POST', `/projects/${p}/users`, {
      body: { id: RLS, filter: '[Region] = "EU"' },
    });
    expect(inv.status, inv.text).toBe(200);
  }, 180_000);
  afterAll(async () => {
    await s?.close();
    await wh?.stop();
  });

  // ---------------------------------------------------------------------------------------

  describe('the generated data holds the cases it is meant to', () => {
    it(`answers come from ${engine === 'postgres' ? 'PostgreSQL tables' : 'DuckDB datasets'}`, async () => {
      const r = await s.api('POST', `/projects/${p}/app/aql/explain`, {
        body: { aql: 'SELECT [Region], SUM([Amount])' },
      });
      expect(r.status, r.text).toBe(200);
      const text = JSON.stringify(r.json);
      expect(text).toContain(engine === 'postgres' ? '\\"shop\\".\\"orders\\"' : 'ds_orders');
      if (engine === 'postgres') {
        // The rows are read where they live: a change in the warehouse shows at once.
        await wh!.exec('UPDATE shop.nums SET val = val + 1 WHERE n_id = 7');
        try {
          const v = await run('SELECT SUM([Val]) WHERE [Num ID] = 7');
          expect(v.values).toBe('-2');
        } finally {
          await wh!.exec('UPDATE shop.nums SET val = val - 1 WHERE n_id = 7');
        }
      }
    });

    it('unmatched customers and products, null amounts, a region with returns only, a duplicate name', () => {
      expect(ORDERS.filter((o) => customerKey(o) === null).length).toBeGreaterThan(5);
      expect(ORDERS.filter((o) => category(o) === null).length).toBeGreaterThan(3);
      expect(ORDERS.filter((o) => o.amount === null && o.status !== 'void').length).toBeGreaterThan(
        5,
      );
      expect(ORDERS.some((o) => region(o) === 'LATAM')).toBe(false);
      expect(RETURNS.some((r) => region(r) === 'LATAM')).toBe(true);
      expect(RETURNS.some((r) => customerKey(r) === null)).toBe(true);
      const anns = ORDERS.filter((o) => CUSTOMER.get(o.customer_id)?.name === 'Ann');
      expect(new Set(anns.map((o) => o.customer_id)).size).toBeGreaterThan(1);
      expect(isoWeek('2024-12-30')).toBe(1);
      expect(isoWeek('2023-01-01')).toBe(52);
      expect(isoWeek('2021-01-03')).toBe(53);
    });
  });

  describe('aggregation is never inflated or deflated by joins', () => {
    it('fan trap: SUM by [Region] (one side, many orders each) equals the per-region sum of order rows', async () => {
      await check(
        'SELECT [Region], SUM([Amount]), COUNT([Order ID]), SUM([Qty])',
        assemble(
          leaf(ORDERS, [region], (os) => sum(amounts(os))),
          leaf(ORDERS, [region], orderCount),
          leaf(ORDERS, [region], (os) => sum(qtys(os))),
        ),
        { titles: ['Region', 'SUM([Amount])', 'COUNT([Order ID])', 'SUM([Qty])'] },
      );
      // A measure of the one side next to one of the many side: each counted on its own.
      await check(
        'SELECT [Region], SUM([Amount]), COUNT([Customer])',
        assemble(
          leaf(ORDERS, [region], (os) => sum(amounts(os))),
          leaf(CUSTOMERS, [(c) => c.region], (cs) => countDistinct(cs.map((c) => c.customer_id))),
        ),
      );
    });

    it('chasm trap: SUM([Amount]) and SUM([Refund]) by [Region] each equal their own total', async () => {
      const expected = assemble(
        leaf(ORDERS, [region], (os) => sum(amounts(os))),
        leaf(RETURNS, [region], (rs) => sum(refunds(rs))),
      );
      const a = await check('SELECT [Region], SUM([Amount]), SUM([Refund])', expected);
      // LATAM has returns but no orders: it is there, with an empty amount.
      expect(a.rows.find((r) => r[0] === 'LATAM')?.[1]).toBe('');
      expect(a.rows.find((r) => r[0] === 'LATAM')?.[2]).not.toBe('');
      await check('SELECT SUM([Amount]), SUM([Refund])', [
        [sum(amounts(ORDERS)), sum(refunds(RETURNS))],
      ]);
      await check(
        'SELECT [Customer Country], SUM([Qty]), COUNT([Return ID])',
        assemble(
          leaf(ORDERS, [custCountry], (os) => sum(qtys(os))),
          countLeaf(RETURNS, [custCountry], (rs) => countDistinct(rs.map((r) => r.return_id))),
        ),
      );
    });

    it('nulls: SUM/AVG/MIN/COUNT ignore null facts; AVG over nulls only is empty', async () => {
      await check(
        'SELECT [Status], SUM([Amount]), AVG([Amount]), COUNT([Amount]), COUNT([Order ID]), MIN([Amount])',
        assemble(
          leaf(ORDERS, [status], (os) => sum(amounts(os))),
          leaf(ORDERS, [status], (os) => avg(amounts(os))),
          leaf(ORDERS, [status], (os) => countPresent(amounts(os))),
          leaf(ORDERS, [status], orderCount),
          leaf(ORDERS, [status], (os) => min(amounts(os))),
        ),
      );
      await check('SELECT AVG([Amount]), SUM([Amount]) / COUNT([Amount]), COUNT([Order ID])', [
        [avg(amounts(ORDERS)), avg(amounts(ORDERS)), ORDERS.length],
      ]);
      const voids = ORDERS.filter((o) => o.status === 'void');
      await check(
        'SELECT AVG([Amount]), SUM([Amount]), COUNT([Order ID]) WHERE [Status] = "void"',
        [[null, null, voids.length]],
      );
      // Nothing matches: one row, empty sum, zero count.
      await check('SELECT SUM([Amount]), COUNT([Order ID]) WHERE [Order ID] < 0', [[null, 0]]);
    });

    it('unmatched references: kept under an empty dimension value, so groups add up to the total', async () => {
      const a = await check(
        'SELECT [Region], SUM([Amount])',
        assemble(leaf(ORDERS, [region], (os) => sum(amounts(os)))),
      );
      expect(a.rows.at(-1)![0]).toBe(''); // the empty region sorts last
      const groups = a.rows.reduce((t, r) => t + (r[1] ? Number(r[1]) : 0), 0);
      expect(close(groups, sum(amounts(ORDERS))!)).toBe(true);
      await check(
        'SELECT [Category], SUM([Amount]), COUNT([Order ID])',
        assemble(
          leaf(ORDERS, [category], (os) => sum(amounts(os))),
          leaf(ORDERS, [category], orderCount),
        ),
      );
      await check(
        'SELECT [Customer], COUNT([Order ID])',
        assemble(leaf(ORDERS, [customerKey], orderCount)),
      );
      const unmatched = ORDERS.filter((o) => customerKey(o) === null);
      await check(
        'SELECT [Order Customer], SUM([Amount]) WHERE [Customer] IS NULL',
        assemble(leaf(unmatched, [(o) => o.customer_id], (os) => sum(amounts(os)))),
      );
    });

    it('empty groups: values without facts appear only where a measure or the dimensions bring them', async () => {
      // MEA and LATAM customers never order: no row in a measure of orders …
      const a = await run('SELECT [Region], SUM([Amount])');
      expect(a.rows.map((r) => r[0])).not.toContain('MEA');
      // … but every region in a dimension-only query, and with COUNT([Customer]).
      await check('SELECT [Region]', distinct(CUSTOMERS, [(c) => c.region]));
      await check(
        'SELECT [Region], COUNT([Customer]), SUM([Amount])',
        assemble(
          leaf(CUSTOMERS, [(c) => c.region], (cs) => cs.length),
          leaf(ORDERS, [region], (os) => sum(amounts(os))),
        ),
      );
      // A filter that matches nothing leaves no group.
      const none = await run('SELECT [Region], SUM([Amount]) WHERE [Status] = "nope"');
      expect(none.rows).toEqual([]);
    });
  });

  describe('COUNT', () => {
    it('COUNT([attr]) counts distinct values in its dataset; COUNT([attr], [other]) in the other’s', async () => {
      await check(
        'SELECT COUNT([Customer]), COUNT([Customer], [Order ID]), COUNT([Order Customer]), COUNT([Region]), COUNT([Status]), COUNT([Customer], [Return ID])',
        [
          [
            CUSTOMERS.length,
            countDistinct(ORDERS.map(customerKey)),
            countDistinct(ORDERS.map((o) => o.customer_id)),
            countDistinct(CUSTOMERS.map((c) => c.region)),
            countDistinct(ORDERS.map(status)),
            countDistinct(RETURNS.map(customerKey)),
          ],
        ],
      );
      await check(
        'SELECT [Region], COUNT([Customer]), COUNT([Customer], [Order ID]), COUNT([Customer], [Return ID])',
        assemble(
          countLeaf(CUSTOMERS, [(c) => c.region], (cs) =>
            countDistinct(cs.map((c) => c.customer_id)),
          ),
          countLeaf(ORDERS, [region], (os) => countDistinct(os.map(customerKey))),
          countLeaf(RETURNS, [region], (rs) => countDistinct(rs.map(customerKey))),
        ),
      );
      await check(
        'SELECT YEAR([Order Date]), COUNT([Customer], [Order ID]), COUNT([Order ID])',
        assemble(
          leaf(ORDERS, [year], (os) => countDistinct(os.map(customerKey))),
          leaf(ORDERS, [year], orderCount),
        ),
      );
    });

    it('MEDIAN, MIN and MAX per group and overall', async () => {
      await check(
        'SELECT [Category], MEDIAN([Amount]), MIN([Amount]), MAX([Amount]), MEDIAN([Qty]), AVG([Qty])',
        assemble(
          leaf(ORDERS, [category], (os) => median(amounts(os))),
          leaf(ORDERS, [category], (os) => min(amounts(os))),
          leaf(ORDERS, [category], (os) => max(amounts(os))),
          leaf(ORDERS, [category], (os) => median(qtys(os))),
          leaf(ORDERS, [category], (os) => avg(qtys(os))),
        ),
      );
      await check('SELECT MEDIAN([Amount]), MIN([Refund]), MAX([Refund]), MEDIAN([Refund])', [
        [
          median(amounts(ORDERS)),
          min(refunds(RETURNS)),
          max(refunds(RETURNS)),
          median(refunds(RETURNS)),
        ],
      ]);
    });
  });

  describe('metrics', () => {
    it('metric on metric: saved metrics inline, with their WHERE and BY ALL', async () => {
      const rev = leaf(ORDERS, [region], (os) => sum(amounts(os)));
      const cnt = leaf(ORDERS, [region], orderCount);
      const paid = leaf(
        ORDERS.filter((o) => o.status === 'paid'),
        [region],
        (os) => sum(amounts(os)),
      );
      const total = sum(amounts(ORDERS));
      const rows = assemble(rev, cnt, paid).map(([r, revenue, count, paidRevenue]) => [
        r!,
        revenue!,
        count!,
        div(revenue!, count!),
        paidRevenue!,
        div(paidRevenue!, revenue!),
        div(revenue!, total),
      ]);
      await check(
        'SELECT [Region], [Revenue], [Order Count], [Avg Order Value], [Paid Revenue], [Paid Share], [Revenue Share]',
        rows,
        {
          titles: [
            'Region',
            'Revenue',
            'Order Count',
            'Avg Order Value',
            'Paid Revenue',
            'Paid Share',
            'Revenue Share',
          ],
        },
      );
      // A metric of two datasets: LATAM only has refunds.
      await check(
        'SELECT [Region], [Net]',
        assemble(
          rev,
          leaf(RETURNS, [region], (rs) => sum(refunds(rs))),
        ).map(([r, a, b]) => [r!, minus(ifnull(a!, 0), ifnull(b!, 0))]),
      );
    });

    it('metric-level WHERE filters only its own measure, on top of the query WHERE', async () => {
      const paid = ORDERS.filter((o) => o.status === 'paid');
      await check(
        'SELECT [Region], (SELECT SUM([Amount]) WHERE [Status] = "paid") AS "Paid", SUM([Amount]) AS "All"',
        assemble(
          leaf(paid, [region], (os) => sum(amounts(os))),
          leaf(ORDERS, [region], (os) => sum(amounts(os))),
        ),
        { titles: ['Region', 'Paid', 'All'] },
      );
      await check(
        'SELECT [Region], (SELECT SUM([Amount]) WHERE [Status] = "paid") WHERE YEAR([Order Date]) = 2024',
        assemble(
          leaf(
            paid.filter((o) => year(o) === 2024),
            [region],
            (os) => sum(amounts(os)),
          ),
        ),
      );
      await check(
        'SELECT [Status], (SELECT SUM([Amount]) WHERE [Continent] = "Europe"), COUNT([Order ID])',
        assemble(
          leaf(
            ORDERS.filter((o) => continent(o) === 'Europe'),
            [status],
            (os) => sum(amounts(os)),
          ),
          leaf(ORDERS, [status], orderCount),
        ),
      );
    });

    it('BY ALL: each row’s share of the grand total, repeated total, and under a query WHERE', async () => {
      const total = sum(amounts(ORDERS));
      const a = await check(
        'SELECT [Region], SUM([Amount]) / (SELECT SUM([Amount]) BY ALL) AS "Share", (SELECT SUM([Amount]) BY ALL) AS "Total"',
        assemble(leaf(ORDERS, [region], (os) => sum(amounts(os)))).map(([r, v]) => [
          r!,
          div(v!, total),
          total,
        ]),
      );
      const shares = a.rows.reduce((t, r) => t + Number(r[1] || 0), 0);
      expect(close(shares, 1)).toBe(true);
      const paid = ORDERS.filter((o) => o.status === 'paid');
      const paidTotal = sum(amounts(paid));
      await check(
        'SELECT [Region], SUM([Amount]) / (SELECT SUM([Amount]) BY ALL) WHERE [Status] = "paid"',
        assemble(leaf(paid, [region], (os) => sum(amounts(os)))).map(([r, v]) => [
          r!,
          div(v!, paidTotal),
        ]),
      );
    });

    it('BY ALL [dim]: each row’s share of its group (computed without that dimension)', async () => {
      const byRegion = leaf(ORDERS, [region], (os) => sum(amounts(os)));
      const regionTotal = (r: Val) => byRegion.get(JSON.stringify([r]))?.v ?? null;
      const a = await check(
        'SELECT [Region], [Status], SUM([Amount]) / (SELECT SUM([Amount]) BY ALL [Status]) AS "Share of region"',
        assemble(leaf(ORDERS, [region, status], (os) => sum(amounts(os)))).map(([r, st, v]) => [
          r!,
          st!,
          div(v!, regionTotal(r!)),
        ]),
      );
      const perRegion = new Map<string, number>();
      for (const r of a.rows) perRegion.set(r[0]!, (perRegion.get(r[0]!) ?? 0) + Number(r[2] || 0));
      for (const [r, t] of perRegion) expect(close(t, 1), `shares of region "${r}"`).toBe(true);

      const byYear = leaf(ORDERS, [year], (os) => sum(amounts(os)));
      await check(
        'SELECT YEAR([Order Date]), [Region], SUM([Amount]) / (SELECT SUM([Amount]) BY ALL [Region])',
        assemble(leaf(ORDERS, [year, region], (os) => sum(amounts(os)))).map(([y, r, v]) => [
          y!,
          r!,
          div(v!, byYear.get(JSON.stringify([y]))?.v ?? null),
        ]),
      );
    });
  });

  describe('dates', () => {
    it('YEAR, QUARTER, MONTH, WEEK (ISO) and DAY as dimensions', async () => {
      await check(
        'SELECT YEAR([Order Date]), QUARTER([Order Date]), SUM([Amount]), COUNT([Order ID])',
        assemble(
          leaf(ORDERS, [year, quarter], (os) => sum(amounts(os))),
          leaf(ORDERS, [year, quarter], orderCount),
        ),
        {
          titles: [
            'YEAR([Order Date])',
            'QUARTER([Order Date])',
            'SUM([Amount])',
            'COUNT([Order ID])',
          ],
        },
      );
      await check(
        'SELECT MONTH([Order Date]), SUM([Qty]) WHERE YEAR([Order Date]) = 2024',
        assemble(
          leaf(
            ORDERS.filter((o) => year(o) === 2024),
            [month],
            (os) => sum(qtys(os)),
          ),
        ),
      );
      // 2024-12-30 is ISO week 1 (of 2025), 2023-01-01 week 52, 2021-01-03 week 53.
      await check(
        'SELECT YEAR([Order Date]), WEEK([Order Date]), COUNT([Order ID]) WHERE WEEK([Order Date]) IN (1, 52, 53)',
        assemble(
          leaf(
            ORDERS.filter((o) => [1, 52, 53].includes(week(o) as number)),
            [year, week],
            orderCount,
          ),
        ),
      );
      await check(
        'SELECT DAY([Order Date]), COUNT([Order ID]) WHERE [Order Date] BETWEEN "2024-02-01" AND "2024-02-29"',
        assemble(
          leaf(
            ORDERS.filter((o) => o.order_date >= '2024-02-01' && o.order_date <= '2024-02-29'),
            [day],
            orderCount,
          ),
        ),
      );
    });

    it('date parts and date strings in conditions', async () => {
      await check(
        'SELECT [Order Date], SUM([Amount]) WHERE [Order Date] >= "2024-12-20"',
        assemble(
          leaf(
            ORDERS.filter((o) => o.order_date >= '2024-12-20'),
            [(o) => o.order_date],
            (os) => sum(amounts(os)),
          ),
        ),
      );
      await check(
        'SELECT [Status], COUNT([Order ID]) WHERE QUARTER([Order Date]) = 4 AND YEAR([Order Date]) = 2023 AND DAY([Order Date]) <= 10',
        assemble(
          leaf(
            ORDERS.filter((o) => quarter(o) === 4 && year(o) === 2023 && num(day(o))! <= 10),
            [status],
            orderCount,
          ),
        ),
      );
      await check(
        'SELECT MONTH([Order Date]), SUM([Amount]) WHERE YEAR([Order Date]) = 2023 AND MONTH([Order Date]) IN (1, 2, 3)',
        assemble(
          leaf(
            ORDERS.filter((o) => year(o) === 2023 && [1, 2, 3].includes(month(o) as number)),
            [month],
            (os) => sum(amounts(os)),
          ),
        ),
      );
    });
  });

  describe('HAVING, ORDER BY, LIMIT', () => {
    const perCustomer = () =>
      assemble(
        leaf(ORDERS, [customerKey], (os) => sum(amounts(os))),
        leaf(ORDERS, [customerKey], orderCount),
      );

    it('HAVING on a measure in SELECT and on one that is not', async () => {
      const rows = perCustomer();
      const threshold = median(rows.map((r) => num(r[1]!)))!;
      await check(
        `SELECT [Customer], SUM([Amount]) HAVING SUM([Amount]) > ${threshold}`,
        rows.filter((r) => r[1] !== null && num(r[1]!)! > threshold).map((r) => r.slice(0, 2)),
      );
      const n = median(rows.map((r) => num(r[2]!)))!;
      await check(
        `SELECT [Customer], SUM([Amount]) HAVING COUNT([Order ID]) >= ${n}`,
        rows.filter((r) => num(r[2]!)! >= n).map((r) => r.slice(0, 2)),
      );
      await check(
        `SELECT [Customer], [Revenue] HAVING [Order Count] < ${n} AND [Revenue] > 100`,
        rows
          .filter((r) => num(r[2]!)! < n && r[1] !== null && num(r[1]!)! > 100)
          .map((r) => r.slice(0, 2)),
      );
    });

    it('ORDER BY alias, position and expression, DESC, LIMIT/OFFSET; nulls last', async () => {
      const rows = perCustomer().map((r) => r.slice(0, 2));
      await check(
        'SELECT [Customer], SUM([Amount]) AS "Total" ORDER BY "Total" DESC LIMIT 5 OFFSET 2',
        sortRows(rows, [[1, true]], 1).slice(2, 7),
      );
      await check(
        'SELECT [Customer], SUM([Amount]) ORDER BY 2 DESC',
        sortRows(rows, [[1, true]], 1),
      );
      await check('SELECT [Customer], SUM([Amount]) ORDER BY 2', sortRows(rows, [[1, false]], 1));
      const byQty = assemble(
        leaf(ORDERS, [region], (os) => sum(amounts(os))),
        leaf(ORDERS, [region], (os) => sum(qtys(os))),
      );
      await check(
        'SELECT [Region], SUM([Amount]) ORDER BY SUM([Qty]) DESC',
        sortRows(byQty, [[2, true]], 1).map((r) => r.slice(0, 2)),
      );
      await check(
        'SELECT [Region], [Status], COUNT([Order ID]) ORDER BY [Region] DESC, 3',
        sortRows(
          assemble(leaf(ORDERS, [region, status], orderCount)),
          [
            [0, true],
            [2, false],
          ],
          2,
        ),
      );
      await check(
        'SELECT [Region] AS "R", SUM([Amount]) ORDER BY "r" DESC',
        sortRows(assemble(leaf(ORDERS, [region], (os) => sum(amounts(os)))), [[0, true]], 1),
      );
      // A date-part dimension may be repeated in ORDER BY and HAVING.
      const byQuarter = assemble(leaf(ORDERS, [quarter], (os) => sum(amounts(os))));
      await check(
        'SELECT QUARTER([Order Date]), SUM([Amount]) ORDER BY QUARTER([Order Date]) DESC',
        sortRows(byQuarter, [[0, true]], 1),
      );
      await check(
        'SELECT QUARTER([Order Date]), SUM([Amount]) HAVING QUARTER([Order Date]) >= 3',
        byQuarter.filter((r) => (r[0] as number) >= 3),
      );
    });

    it('default order: dimensions ascending, nulls last; LIMIT/OFFSET without ORDER BY', async () => {
      await check(
        'SELECT [Status], [Region], SUM([Qty])',
        assemble(leaf(ORDERS, [status, region], (os) => sum(qtys(os)))),
      );
      await check(
        'SELECT [Customer], COUNT([Order ID]) LIMIT 3 OFFSET 1',
        assemble(leaf(ORDERS, [customerKey], orderCount)).slice(1, 4),
      );
    });
  });

  describe('dimensions, references and labels', () => {
    it('dimension-only queries: distinct combinations in the closest dataset that reaches them all', async () => {
      await check(
        'SELECT [Region], [Customer Country]',
        distinct(CUSTOMERS, [(c) => c.region, (c) => c.country]),
      );
      await check('SELECT [Region], [Status]', distinct(ORDERS, [region, status]));
      await check('SELECT [Continent]', distinct(COUNTRIES, [(c) => c.continent]));
      await check('SELECT [Category]', distinct(PRODUCTS, [(x) => x.category]));
      await check(
        'SELECT [Region], [Continent]',
        distinct(CUSTOMERS, [(c) => c.region, continent]),
      );
      await check(
        'SELECT [Status] WHERE [Region] = "EU"',
        distinct(
          ORDERS.filter((o) => region(o) === 'EU'),
          [status],
        ),
      );
    });

    it('dimension-only query with a WHERE on a dataset below the dimensions', async () => {
      // Only orders reach both [Region] and [Status]: the regions of void orders.
      await check(
        'SELECT [Region] WHERE [Status] = "void"',
        distinct(
          ORDERS.filter((o) => o.status === 'void'),
          [region],
        ),
      );
    });

    it('reference chain orders → customers → countries: SUM by [Continent]', async () => {
      await check(
        'SELECT [Continent], SUM([Amount]), SUM([Refund]), COUNT([Customer])',
        assemble(
          leaf(ORDERS, [continent], (os) => sum(amounts(os))),
          leaf(RETURNS, [continent], (rs) => sum(refunds(rs))),
          leaf(CUSTOMERS, [continent], (cs) => cs.length),
        ),
      );
      await check(
        'SELECT [Status], SUM([Amount]) WHERE [Continent] = "Europe"',
        assemble(
          leaf(
            ORDERS.filter((o) => continent(o) === 'Europe'),
            [status],
            (os) => sum(amounts(os)),
          ),
        ),
      );
    });

    it('labels: grouping by a label shows it but groups by its attribute (two Anns stay two rows)', async () => {
      const name = (id: Val) => (id === null ? null : CUSTOMER.get(id as number)!.name);
      const byCustomer = assemble(
        leaf(ORDERS, [customerKey], (os) => sum(amounts(os))),
        leaf(ORDERS, [customerKey], orderCount),
      );
      // Sorted by the shown name; rows of one name by their attribute.
      const expected = sortRows(
        byCustomer.map(([id, a, n]) => [name(id!), a!, n!, id!]),
        [
          [0, false],
          [3, false],
        ],
        0,
      );
      const a = await check(
        'SELECT [Customer Name], SUM([Amount]), COUNT([Order ID])',
        expected.map((r) => r.slice(0, 3)),
      );
      expect(a.rows.filter((r) => r[0] === 'Ann').length).toBeGreaterThan(1);
      await check(
        'SELECT [Customer], [Customer Name], SUM([Amount]) WHERE [Customer Name] = "Ann"',
        byCustomer
          .filter(([id]) => name(id!) === 'Ann')
          .map(([id, amount]) => [id!, 'Ann', amount!]),
      );
    });
  });

  describe('expressions', () => {
    it('division by zero gives an empty cell', async () => {
      await check(
        'SELECT [Region], SUM([Amount]) / (COUNT([Order ID]) - COUNT([Order ID])) AS "X", SUM([Qty]) / 0 AS "Y", SUM([Qty])',
        assemble(leaf(ORDERS, [region], (os) => sum(qtys(os)))).map(([r, q]) => [
          r!,
          null,
          null,
          q!,
        ]),
      );
    });

    it('arithmetic between measures (of one and of two datasets)', async () => {
      await check(
        'SELECT [Region], SUM([Amount]) / SUM([Qty]), SUM([Amount]) - SUM([Refund]), IFNULL(SUM([Amount]), 0) - IFNULL(SUM([Refund]), 0), -SUM([Qty]) * 2 + 1, (SUM([Amount]) + SUM([Refund])) / 2',
        assemble(
          leaf(ORDERS, [region], (os) => sum(amounts(os))),
          leaf(ORDERS, [region], (os) => sum(qtys(os))),
          leaf(RETURNS, [region], (rs) => sum(refunds(rs))),
        ).map(([r, a, q, f]) => [
          r!,
          div(a!, q!),
          minus(a!, f!),
          minus(ifnull(a!, 0), ifnull(f!, 0)),
          q === null ? null : -num(q!)! * 2 + 1,
          a === null || f === null ? null : (num(a!)! + num(f!)!) / 2,
        ]),
      );
    });

    it('IFNULL, ROUND, ABS and CASE, on measures and inside aggregations', async () => {
      const qty = leaf(ORDERS, [region], (os) => sum(qtys(os)));
      const big = median([...qty.values()].map((e) => num(e.v)))!;
      await check(
        `SELECT [Region], ROUND(SUM([Amount]) / 7, 2), ROUND(SUM([Amount]) / 7), ABS(SUM([Refund]) - SUM([Amount])), IFNULL(AVG([Amount]), -1), CASE WHEN SUM([Qty]) > ${big} THEN 1 WHEN SUM([Qty]) > 0 THEN 2 ELSE 3 END`,
        assemble(
          leaf(ORDERS, [region], (os) => sum(amounts(os))),
          leaf(RETURNS, [region], (rs) => sum(refunds(rs))),
          leaf(ORDERS, [region], (os) => avg(amounts(os))),
          qty,
        ).map(([r, a, f, av, q]) => [
          r!,
          round(div(a!, 7), 2),
          round(div(a!, 7)),
          a === null || f === null ? null : Math.abs(num(f!)! - num(a!)!),
          ifnull(av!, -1),
          q !== null && num(q!)! > big ? 1 : q !== null && num(q!)! > 0 ? 2 : 3,
        ]),
      );
      await check(
        'SELECT [Status], SUM(CASE WHEN [Region] = "EU" THEN [Qty] ELSE 0 END), SUM(IFNULL([Amount], 0)), SUM(ABS([Amount] - 250))',
        assemble(
          leaf(ORDERS, [status], (os) => sum(os.map((o) => (region(o) === 'EU' ? o.qty : 0)))),
          leaf(ORDERS, [status], (os) => sum(os.map((o) => o.amount ?? 0))),
          leaf(ORDERS, [status], (os) =>
            sum(os.map((o) => (o.amount === null ? null : Math.abs(o.amount - 250)))),
          ),
        ),
      );
    });
  });

  describe('conditions', () => {
    const by = async (aql: string, keep: (o: Order) => boolean) =>
      check(aql, assemble(leaf(ORDERS.filter(keep), [region], orderCount)));

    it('saved filters as conditions', async () => {
      await check(
        'SELECT [Customer Country], SUM([Amount]) WHERE [Only EU] AND [Paid Orders]',
        assemble(
          leaf(
            ORDERS.filter((o) => region(o) === 'EU' && o.status === 'paid'),
            [custCountry],
            (os) => sum(amounts(os)),
          ),
        ),
      );
      // NOT (amount > 250) is unknown for a null amount: such orders are not counted.
      await by(
        'SELECT [Region], COUNT([Order ID]) WHERE NOT [Big]',
        (o) => o.amount !== null && !(o.amount > 250),
      );
      await check(
        'SELECT [Region], SUM([Refund]) WHERE [Only EU]',
        assemble(leaf(EU(RETURNS), [region], (rs) => sum(refunds(rs)))),
      );
      await check(
        'SELECT [Status], (SELECT SUM([Amount]) WHERE [Big])',
        assemble(
          leaf(
            ORDERS.filter((o) => o.amount !== null && o.amount > 250),
            [status],
            (os) => sum(amounts(os)),
          ),
        ),
      );
    });

    it('IN, NOT IN, BETWEEN, LIKE, ILIKE, IS NULL, <>, !=, OR, quotes and comments', async () => {
      await by('SELECT [Region], COUNT([Order ID]) WHERE [Region] IN ("EU", "US")', (o) =>
        ['EU', 'US'].includes(region(o) as string),
      );
      // Unknown (null) regions are neither in nor not in a list.
      await by(
        'SELECT [Region], COUNT([Order ID]) WHERE [Region] NOT IN ("EU", "US")',
        (o) => region(o) !== null && !['EU', 'US'].includes(region(o) as string),
      );
      await by(
        'SELECT [Region], COUNT([Order ID]) WHERE [Amount] BETWEEN 100 AND 200',
        (o) => o.amount !== null && o.amount >= 100 && o.amount <= 200,
      );
      await by(
        'SELECT [Region], COUNT([Order ID]) WHERE [Amount] NOT BETWEEN 100 AND 200',
        (o) => o.amount !== null && (o.amount < 100 || o.amount > 200),
      );
      const name = (o: Order) => CUSTOMER.get(o.customer_id)?.name ?? null;
      await by('SELECT [Region], COUNT([Order ID]) WHERE [Customer Name] LIKE "%a%"', (o) =>
        like(name(o), '%a%'),
      );
      await by(
        'SELECT [Region], COUNT([Order ID]) WHERE [Customer Name] NOT LIKE "_o%"',
        (o) => name(o) !== null && !like(name(o), '_o%'),
      );
      // ILIKE: the same patterns, ignoring case.
      await by('SELECT [Region], COUNT([Order ID]) WHERE [Customer Name] ILIKE "%A%"', (o) =>
        like(name(o)?.toLowerCase() ?? null, '%a%'),
      );
      await by(
        'SELECT [Region], COUNT([Order ID]) WHERE [Customer Name] NOT ILIKE "_O%"',
        (o) => name(o) !== null && !like(name(o)!.toLowerCase(), '_o%'),
      );
      await by(
        'SELECT [Region], COUNT([Order ID]) WHERE [Amount] IS NULL',
        (o) => o.amount === null,
      );
      await by(
        'SELECT [Region], COUNT([Order ID]) WHERE [Region] IS NULL',
        (o) => region(o) === null,
      );
      await by(
        'SELECT [Region], COUNT([Order ID]) WHERE [Category] IS NOT NULL AND [Status] <> "paid"',
        (o) => category(o) !== null && o.status !== 'paid',
      );
      await by(
        "SELECT [Region], COUNT([Order ID]) WHERE [Status] != 'paid' OR [Customer] IN (1, 2, 3)",
        (o) => o.status !== 'paid' || [1, 2, 3].includes(o.customer_id),
      );
      await by(
        'SELECT [Region], COUNT([Order ID]) -- per region\nWHERE /* only big ones */ [Qty] >= 9 AND NOT ([Status] = "void" OR [Amount] < 10)',
        (o) => o.qty >= 9 && o.status !== 'void' && o.amount !== null && !(o.amount < 10),
      );
    });
  });

  describe('row-level filter [Region] = "EU"', () => {
    const as = RLS;

    it('metrics, measures of both fact datasets and saved metrics see EU rows only', async () => {
      await check(
        'SELECT SUM([Amount]), COUNT([Order ID]), SUM([Refund]), COUNT([Customer])',
        [
          [
            sum(amounts(EU(ORDERS))),
            EU(ORDERS).length,
            sum(refunds(EU(RETURNS))),
            CUSTOMERS.filter((c) => c.region === 'EU').length,
          ],
        ],
        { as },
      );
      await check(
        'SELECT [Region], SUM([Amount]), SUM([Refund])',
        assemble(
          leaf(EU(ORDERS), [region], (os) => sum(amounts(os))),
          leaf(EU(RETURNS), [region], (rs) => sum(refunds(rs))),
        ),
        { as },
      );
      await check(
        'SELECT [Continent], [Revenue], [Paid Revenue]',
        assemble(
          leaf(EU(ORDERS), [continent], (os) => sum(amounts(os))),
          leaf(
            EU(ORDERS).filter((o) => o.status === 'paid'),
            [continent],
            (os) => sum(amounts(os)),
          ),
        ),
        { as },
      );
    });

    it('dimension-only queries show only values reachable through EU rows', async () => {
      await check('SELECT [Region]', [['EU']], { as });
      await check(
        'SELECT [Customer Country], [Customer]',
        distinct(
          CUSTOMERS.filter((c) => c.region === 'EU'),
          [(c) => c.country, (c) => c.customer_id],
        ),
        { as },
      );
      await check('SELECT [Status]', distinct(EU(ORDERS), [status]), { as });
    });

    it('BY ALL shares are shares of the EU total; HAVING sees EU rows only', async () => {
      const total = sum(amounts(EU(ORDERS)));
      await check(
        'SELECT [Customer Country], SUM([Amount]) / (SELECT SUM([Amount]) BY ALL), [Revenue Share]',
        assemble(leaf(EU(ORDERS), [custCountry], (os) => sum(amounts(os)))).map(([c, v]) => [
          c!,
          div(v!, total),
          div(v!, total),
        ]),
        { as },
      );
      const rows = assemble(leaf(EU(ORDERS), [customerKey], (os) => sum(amounts(os))));
      await check(
        'SELECT [Customer], SUM([Amount]) HAVING SUM([Amount]) > 0',
        rows.filter((r) => r[1] !== null && num(r[1]!)! > 0),
        { as },
      );
    });

    it('the query cannot widen the filter', async () => {
      await check(
        'SELECT [Region], SUM([Amount]) WHERE [Region] = "US" OR [Region] = "EU" OR [Region] IS NULL',
        assemble(leaf(EU(ORDERS), [region], (os) => sum(amounts(os)))),
        { as },
      );
      expect((await run('SELECT [Region], SUM([Amount]) WHERE [Region] <> "EU"', as)).rows).toEqual(
        [],
      );
    });

    it('datasets that cannot reach [Region] are not filtered (AQL.md §5.7)', async () => {
      await check(
        'SELECT SUM([Weight]), COUNT([Product]), COUNT([Category])',
        [
          [
            sum(SHIPMENTS.map((x) => x.weight)),
            PRODUCTS.length,
            countDistinct(PRODUCTS.map((x) => x.category)),
          ],
        ],
        { as },
      );
      await check('SELECT [Category]', distinct(PRODUCTS, [(x) => x.category]), { as });
      await check('SELECT [Continent]', distinct(COUNTRIES, [(c) => c.continent]), { as });
      // Orders by category still are EU orders only.
      await check(
        'SELECT [Category], SUM([Amount])',
        assemble(leaf(EU(ORDERS), [category], (os) => sum(amounts(os)))),
        { as },
      );
    });
  });

  describe('errors', () => {
    it('two reference paths to one dataset: 400 listing both', async () => {
      const e = await refused('SELECT [Continent], SUM([Weight])');
      expect(e.message).toContain('shipments -(from_country)-> countries');
      expect(e.message).toContain('shipments -(to_country)-> countries');
      expect(e.context.paths).toHaveLength(2);
      // Either reference alone is fine.
      await check(
        'SELECT [From Country], SUM([Weight])',
        assemble(leaf(SHIPMENTS, [(x) => x.from_country], (xs) => sum(xs.map((x) => x.weight)))),
      );
    });

    it('no reference path: 400 with the message shape of AQL.md', async () => {
      const saved = await refused('SELECT [Category], [Total Refund]');
      expect(saved.message).toMatch(
        /^metric \[Total Refund\] cannot be broken down by \[Category\]: no reference path from dataset returns to dataset products/,
      );
      expect(saved.context).toMatchObject({ line: expect.any(Number), column: expect.any(Number) });
      const inline = await refused('SELECT [Category], SUM([Refund])');
      expect(inline.message).toMatch(
        /SUM\(\[Refund\]\) cannot be broken down by \[Category\]: no reference path from dataset returns to dataset products/,
      );
      const count = await refused('SELECT YEAR([Order Date]), COUNT([Customer])');
      expect(count.message).toMatch(
        /COUNT\(\[Customer\]\) cannot be broken down by \[Order Date\]: no reference path from dataset customers to dataset orders/,
      );
    });
  });

  describe('number formatting', () => {
    it('no trailing zeros, no exponent for ordinary magnitudes, no binary noise', async () => {
      const a = await run('SELECT [Num ID], SUM([Val])');
      expect(a.values).toBe(NUMS.map(([id, v]) => `${id}\t${v === '2.50' ? '2.5' : v}`).join('\n'));
      expect((await run('SELECT SUM([Val]) WHERE [Num ID] IN (1, 2)')).values).toBe('0.3');
      expect((await run('SELECT AVG([Val]) WHERE [Num ID] IN (6, 7)')).values).toBe('-0.25');
      expect((await run('SELECT SUM([Val]) * 1000 WHERE [Num ID] = 3')).values).toBe(
        '1000000000000',
      );
      expect((await run('SELECT SUM([Val]) / 10 WHERE [Num ID] = 5')).values).toBe('0.0000125');
      expect((await run('SELECT SUM([Qty])')).values).toBe(String(sum(qtys(ORDERS))));
      expect((await run('SELECT ROUND(SUM([Val]), 2) WHERE [Num ID] = 6')).values).toBe('2.5');
    });
  });

  // ---------------------------------------------------------------------------------------
  // Version 2 (AQL.md §11): dates, windows over the result, more functions. The expected
  // answers are again computed here from the generated rows.

  const monthStart = (d: string) => `${d.slice(0, 7)}-01`;
  /** Whole days from a to b ("YYYY-MM-DD"). */
  const daysBetween = (a: string, b: string) =>
    Math.round((Date.parse(b) - Date.parse(a)) / DAY_MS);
  const addDays = (d: string, n: number) => isoDay(Date.parse(d) + n * DAY_MS);
  /** quantile_cont: linear interpolation between the order statistics around p·(n−1). */
  const percentile = (xs: (number | null)[], p: number): number | null => {
    const v = present(xs).sort((a, b) => a - b);
    if (!v.length) return null;
    const at = p * (v.length - 1);
    const lo = Math.floor(at);
    return v[lo]! + (at - lo) * ((v[Math.min(lo + 1, v.length - 1)] ?? v[lo]!) - v[lo]!);
  };
  /** Sample standard deviation (n − 1). */
  const stddev = (xs: (number | null)[]): number | null => {
    const v = present(xs);
    if (v.length < 2) return null;
    const m = sum(v)! / v.length;
    return Math.sqrt(v.reduce((a, x) => a + (x - m) ** 2, 0) / (v.length - 1));
  };
  const orderRegion = (o: Order): Val => region(o);

  describe('version 2: dates', () => {
    it('DATE_TRUNC("month", d) is a date dimension', async () => {
      await check(
        'SELECT DATE_TRUNC("month", [Order Date]) AS "Month", SUM([Amount]), COUNT([Order ID])',
        assemble(
          leaf(ORDERS, [(o) => monthStart(o.order_date)], (os) => sum(amounts(os))),
          countLeaf(ORDERS, [(o) => monthStart(o.order_date)], orderCount),
        ),
        { titles: ['Month', 'SUM([Amount])', 'COUNT([Order ID])'] },
      );
    });

    it('DATE_ADD, DATE_DIFF and d ± n on attributes and date strings, in WHERE and as dimensions', async () => {
      const from = addDays('2024-12-31', -30);
      const recent = ORDERS.filter((o) => o.order_date >= from);
      await check(
        'SELECT [Status], COUNT([Order ID]) WHERE [Order Date] >= DATE_ADD("day", -30, "2024-12-31")',
        assemble(countLeaf(recent, [status], orderCount)),
      );
      await check(
        'SELECT [Status], COUNT([Order ID]) WHERE [Order Date] + 30 >= "2024-12-31"',
        assemble(countLeaf(recent, [status], orderCount)),
      );
      await check(
        'SELECT DATE_DIFF("day", "2024-12-01", [Order Date]) AS "Days", COUNT([Order ID]) WHERE [Order Date] - 5 >= "2024-12-20"',
        assemble(
          countLeaf(
            ORDERS.filter((o) => addDays(o.order_date, -5) >= '2024-12-20'),
            [(o) => daysBetween('2024-12-01', o.order_date)],
            orderCount,
          ),
        ),
      );
      await check(
        'SELECT DATE_ADD("month", 1, DATE_TRUNC("month", [Order Date])) AS "Next", COUNT([Order ID]) WHERE YEAR([Order Date]) = 2024',
        assemble(
          countLeaf(
            ORDERS.filter((o) => year(o) === 2024),
            [
              (o) => {
                const [y, m] = ymd(o.order_date);
                return m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
              },
            ],
            orderCount,
          ),
        ),
      );
    });

    it('TODAY() in a relative window: [Order Date] >= DATE_ADD("day", -N, TODAY())', async () => {
      const today = new Date().toISOString().slice(0, 10);
      const n = daysBetween('2024-06-30', today);
      const since = addDays(today, -n);
      await check(
        `SELECT COUNT([Order ID]) WHERE [Order Date] >= DATE_ADD("day", -${n}, TODAY())`,
        [[orderCount(ORDERS.filter((o) => o.order_date >= since))]],
      );
    });
  });

  describe('version 2: windows over the result', () => {
    const byMonth = leaf(
      ORDERS.filter((o) => year(o) === 2024),
      [month],
      (os) => sum(amounts(os)),
    );
    const months = assemble(byMonth);

    it('running total, change vs the previous row (LAG), LEAD with a default, moving average with a frame', async () => {
      let run = 0;
      const expected = months.map((r, i) => {
        run += (r[1] as number | null) ?? 0;
        const prev = i > 0 ? months[i - 1]![1]! : null;
        const next = i + 1 < months.length ? months[i + 1]![1]! : 0;
        const window = months.slice(Math.max(0, i - 2), i + 1).map((x) => x[1] as number | null);
        return [r[0]!, r[1]!, run, minus(r[1]!, prev), next, avg(window)];
      });
      await check(
        `SELECT MONTH([Order Date]), SUM([Amount]),
         SUM(SUM([Amount])) OVER (ORDER BY MONTH([Order Date])) AS "Running",
         SUM([Amount]) - LAG(SUM([Amount])) OVER (ORDER BY MONTH([Order Date])) AS "Change",
         LEAD(SUM([Amount]), 1, 0) OVER (ORDER BY MONTH([Order Date])) AS "Next",
         AVG(SUM([Amount])) OVER (ORDER BY MONTH([Order Date]) ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS "Moving"
       WHERE YEAR([Order Date]) = 2024`,
        expected,
      );
    });

    it('share within a partition and RANK/DENSE_RANK/ROW_NUMBER; QUALIFY keeps the top 2 per region', async () => {
      const base = assemble(leaf(ORDERS, [orderRegion, category], (os) => sum(amounts(os))));
      const ranked = base.map((r) => {
        const peers = base.filter((x) => x[0] === r[0]);
        const total = sum(peers.map((x) => x[2] as number | null));
        // DuckDB: nulls last in DESC order; rank = 1 + rows strictly before.
        const before = peers.filter((x) =>
          r[2] === null ? x[2] !== null : x[2] !== null && (x[2] as number) > (r[2] as number),
        );
        return [...r, div(r[2]!, total), 1 + before.length];
      });
      await check(
        `SELECT [Region], [Category], SUM([Amount]),
         SUM([Amount]) / SUM(SUM([Amount])) OVER (PARTITION BY [Region]) AS "Share",
         RANK() OVER (PARTITION BY [Region] ORDER BY SUM([Amount]) DESC) AS "Rank"`,
        ranked,
      );
      const top2 = ranked.filter((r) => (r[4] as number) <= 2).map((r) => r.slice(0, 3));
      await check(
        `SELECT [Region], [Category], SUM([Amount])
       QUALIFY RANK() OVER (PARTITION BY [Region] ORDER BY SUM([Amount]) DESC) <= 2`,
        top2,
      );
      // ROW_NUMBER over all rows, ordered by the measure (ties broken by the dimensions).
      const numbered = sortRows(base, [[2, true]], 2).map((r, i) => [r[0]!, r[1]!, i + 1]);
      await check(
        `SELECT [Region], [Category], ROW_NUMBER() OVER (ORDER BY SUM([Amount]) DESC) AS "N"
       ORDER BY "N"`,
        numbered,
      );
    });

    it('FIRST_VALUE/LAST_VALUE over a whole partition, COUNT/MIN/MAX OVER ()', async () => {
      const base = assemble(leaf(ORDERS, [orderRegion, status], (os) => orderCount(os)));
      const expected = base.map((r) => {
        const peers = base.filter((x) => x[0] === r[0]);
        return [
          r[0]!,
          r[1]!,
          r[2]!,
          peers[0]![2]!,
          peers[peers.length - 1]![2]!,
          base.length,
          Math.max(...base.map((x) => x[2] as number)),
        ];
      });
      await check(
        `SELECT [Region], [Status], COUNT([Order ID]),
         FIRST_VALUE(COUNT([Order ID])) OVER (PARTITION BY [Region] ORDER BY [Status] ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING),
         LAST_VALUE(COUNT([Order ID])) OVER (PARTITION BY [Region] ORDER BY [Status] ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING),
         COUNT(COUNT([Order ID])) OVER (),
         MAX(COUNT([Order ID])) OVER ()`,
        expected,
      );
    });

    it('windows never change how measures are computed: two fact datasets (chasm) stay exact', async () => {
      const rows = assemble(
        leaf(ORDERS, [orderRegion], (os) => sum(amounts(os))),
        leaf(RETURNS, [region], (rs) => sum(refunds(rs))),
      );
      const totalRefund = sum(RETURNS.map((r) => r.refund));
      await check(
        `SELECT [Region], SUM([Amount]), SUM([Refund]), SUM(SUM([Refund])) OVER () AS "All Refunds"`,
        rows.map((r) => [...r, totalRefund]),
      );
    });

    it('with the row-level filter, windows see only the member’s rows', async () => {
      const eu = assemble(leaf(EU(ORDERS), [category], (os) => sum(amounts(os))));
      const total = sum(eu.map((r) => r[1] as number | null));
      await check(
        `SELECT [Category], SUM([Amount]), SUM(SUM([Amount])) OVER () AS "Total"`,
        eu.map((r) => [...r, total]),
        { as: RLS },
      );
    });

    it('errors teach where windows go', async () => {
      expect(
        (
          await refused(
            'SELECT [Region], SUM([Amount]) HAVING RANK() OVER (ORDER BY SUM([Amount])) < 2',
          )
        ).message,
      ).toMatch(/QUALIFY/);
      expect(
        (await refused('SELECT [Region] WHERE ROW_NUMBER() OVER (ORDER BY [Region]) < 2')).message,
      ).toMatch(/QUALIFY/);
      expect((await refused('SELECT [Region], SUM([Amount]) OVER ()')).message).toMatch(
        /SUM\(SUM\(\[Amount\]\)\) OVER/,
      );
      expect((await refused('SELECT [Region], LAG(SUM([Amount])) OVER ()')).message).toMatch(
        /needs ORDER BY/,
      );
      expect((await refused('SELECT [Region], RANK()')).message).toMatch(/needs OVER/);
    });
  });

  describe('version 2: functions', () => {
    it('PERCENTILE, STDDEV and COUNT_DISTINCT (of an attribute and of a fact)', async () => {
      await check(
        'SELECT [Category], PERCENTILE([Amount], 0.9), STDDEV([Amount]), COUNT_DISTINCT([Order Customer]), COUNT_DISTINCT([Qty]), COUNT([Qty])',
        assemble(
          leaf(ORDERS, [category], (os) => percentile(amounts(os), 0.9)),
          leaf(ORDERS, [category], (os) => stddev(amounts(os))),
          countLeaf(ORDERS, [category], (os) => countDistinct(os.map((o) => o.customer_id))),
          countLeaf(ORDERS, [category], (os) => countDistinct(qtys(os))),
          countLeaf(ORDERS, [category], (os) => countPresent(qtys(os))),
        ),
      );
    });

    it('text expressions of attributes are dimensions: UPPER, ||, CONCAT, LEFT, LENGTH, REPLACE, SUBSTRING, TRIM, LOWER, COALESCE', async () => {
      await check(
        'SELECT UPPER(CONCAT([Category], ", ", [Status])) AS "Key", COUNT([Order ID])',
        assemble(
          countLeaf(ORDERS, [(o) => `${category(o) ?? ''}, ${o.status}`.toUpperCase()], orderCount),
        ),
      );
      await check(
        'SELECT [Status] || "/" || LOWER([Category]), LENGTH([Status]), COUNT([Order ID])',
        assemble(
          countLeaf(
            ORDERS,
            [
              (o) =>
                category(o) === null ? null : `${o.status}/${String(category(o)).toLowerCase()}`,
              (o) => o.status.length,
            ],
            orderCount,
          ),
        ),
      );
      await check(
        'SELECT LEFT([Status], 2), REPLACE(TRIM([Status]), "a", "4"), SUBSTRING([Status], 2, 3), COUNT([Order ID])',
        assemble(
          countLeaf(
            ORDERS,
            [
              (o) => o.status.slice(0, 2),
              (o) => o.status.replaceAll('a', '4'),
              (o) => o.status.slice(1, 4),
            ],
            orderCount,
          ),
        ),
      );
      await check(
        'SELECT COALESCE([Region], "none") AS "Region", SUM([Amount])',
        assemble(leaf(ORDERS, [(o) => region(o) ?? 'none'], (os) => sum(amounts(os)))),
      );
    });

    it('NULLIF, LEAST and GREATEST on measures; ILIKE in WHERE', async () => {
      const rows = assemble(
        leaf(ORDERS, [category], (os) => sum(amounts(os))),
        countLeaf(ORDERS, [category], orderCount),
      );
      await check(
        'SELECT [Category], NULLIF(COUNT([Order ID]), 0), LEAST(SUM([Amount]), 5000), GREATEST(SUM([Amount]), COUNT([Order ID]) * 100)',
        rows.map((r) => [
          r[0]!,
          r[2] === 0 ? null : r[2]!,
          r[1] === null ? null : Math.min(r[1] as number, 5000),
          r[1] === null ? null : Math.max(r[1] as number, (r[2] as number) * 100),
        ]),
      );
      await check(
        'SELECT [Status], COUNT([Order ID]) WHERE [Status] ILIKE "PA%"',
        assemble(
          countLeaf(
            ORDERS.filter((o) => /^pa/i.test(o.status)),
            [status],
            orderCount,
          ),
        ),
      );
    });
  });

  describe('version 2: a 0-row answer explains text values that match no member', () => {
    async function data(aql: string, as: string = ADMIN) {
      const r = await s.api('POST', `/projects/${p}/app/aql/execute`, { body: { aql }, as });
      expect(r.status, r.text).toBe(201);
      const links = r.json.link as { rel: string; href: string; id: string }[];
      const done = await pollJob(
        s.api,
        p,
        links.find((l) => l.rel === 'scache.created')!.id,
        isFinal,
        { as },
      );
      expect(done.status).toBe('OK');
      const d = await s.api('GET', links.find((l) => l.rel === 'data.created')!.href, { as });
      expect(d.status, d.text).toBe(200);
      return d.json.data as {
        values: string;
        warnings?: { message: string; line: number; column: number; suggestions: string[] }[];
      };
    }

    it('closest members, case-insensitively, at the value’s own line and column', async () => {
      const d = await data(
        'SELECT COUNT([Order ID])\nWHERE [Region] = "eu" AND [Status] IN ("paid", "Opne")',
      );
      expect(d.values).toBe('0');
      // COUNT answers one row (0): only a truly empty answer carries warnings.
      expect(d.warnings).toBeUndefined();
      const e = await data(
        'SELECT [Status], COUNT([Order ID])\nWHERE [Region] = "eu" AND [Status] IN ("paid", "Opne")',
      );
      expect(e.values).toBe('');
      expect(e.warnings!.map((w) => [w.message, w.line, w.column])).toEqual([
        ['[Region] has no member "eu"; closest members: "EU"', 2, 18],
        ['[Status] has no member "Opne"; closest members: "open"', 2, 48],
      ]);
      const ok = await data('SELECT [Status], COUNT([Order ID]) WHERE [Status] = "paid"');
      expect(ok.warnings).toBeUndefined();
    });

    it('suggests only members the reader’s row-level filter lets them see', async () => {
      const d = await data('SELECT [Region], COUNT([Order ID]) WHERE [Region] = "us"', RLS);
      expect(d.values).toBe('');
      expect(d.warnings![0]!.message).not.toMatch(/"US"/);
      const admin = await data('SELECT [Region], COUNT([Order ID]) WHERE [Region] = "us"');
      expect(admin.warnings![0]!.suggestions).toContain('US');
    });
  });

  v3Cases({
    engine,
    check,
    refused,
    run,
    hand: engine === 'postgres' ? async (sql) => (await wh!.exec(sql)).rows : null,
  });
}

/** What the cases of AQL v3 (aql-correctness-v3.ts) use from here. */
export const DATA = { ORDERS, RETURNS, CUSTOMERS, RLS };
export const CALC = {
  leaf,
  countLeaf,
  assemble,
  sum,
  avg,
  min,
  max,
  median,
  countPresent,
  amounts,
  refunds,
  region,
  customerKey,
  year,
  month,
  EU,
  status,
};
export type { Val, Row, Answer };
