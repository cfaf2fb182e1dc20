// bench:aql — what AQL costs over hand-written SQL, in two parts (BENCH_PART=retail|flights,
// default both): retail below, flights (3M real flights over REST) in aql-flights.ts.
// Retail: a deterministic model (1,000,000 sales and 200,000 returns referencing stores and
// products, ~1% of the rows pointing at a store that does not exist) is loaded through the
// real engine in-process. For each query,
// three sides run in a rotating order on the same read-connection path: AQL (engine.aql.compile
// with its cache cleared, then its SQL, bypassing the job runner), AQL's SQL alone (compiled
// beforehand: the cost of its shape) and a hand-written DuckDB query with the same answer
// (checked before timing). Medians and ratios are printed (goal ≤ 1.05×), with compile time per
// query (goal < 1 ms) and a cached repeat over REST (execute → job already OK → GET data, goal
// < 5 ms).
// Settings: BENCH_ROWS (sales, default 1,000,000; returns are a fifth), BENCH_ROUNDS (default
// 15), BENCH_REPEATS (cached REST requests, default 300), BENCH_EXPLAIN=1 prints EXPLAIN
// ANALYZE of both sides for queries above the goal.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatCell } from '../src/engine/aql/format.js';
import { csvPrescription } from '../src/engine/data/prescription-builder.js';
import type { Prescription } from '../src/engine/data/prescription.js';
import { hotCompileMs, median, quantile, sameRows, startBenchServer } from './compare.js';

const SALES = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RETURNS = Math.floor(SALES / 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 300);
const HOT = 200;
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';
const STORES = 200;
const PRODUCTS = 2000;
const GOAL = 1.05;
/** About half of the products sell more than this (a product sells ~0.14 × SALES). */
const HAVING_OVER = Math.round(SALES * 0.14);

const REGIONS = ['Central', 'East', 'North', 'South', 'West'];
const CATEGORIES = ['Audio', 'Books', 'Cameras', 'Garden', 'Games', 'Kitchen', 'Laptops', 'Music'];
const CHANNELS = ['online', 'phone', 'store'];

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-bench-aql-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

// ---- data ------------------------------------------------------------------------------

let seed = 7;
const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
const DAY0 = Date.UTC(2023, 0, 1);
const day = (n: number) => new Date(DAY0 + n * 86_400_000).toISOString().slice(0, 10);

function writeCsv(name: string, header: string, rows: number, row: (i: number) => string): string {
  const file = path.join(tmp, `${name}.csv`);
  const fd = fs.openSync(file, 'w');
  let buf = `${header}\n`;
  for (let i = 1; i <= rows; i++) {
    buf += `${row(i)}\n`;
    if (buf.length > 1 << 20) {
      fs.writeSync(fd, buf);
      buf = '';
    }
  }
  fs.writeSync(fd, buf);
  fs.closeSync(fd);
  return file;
}

function generate(): Record<string, string> {
  return {
    stores: writeCsv(
      'stores',
      'store_id,name,city,region',
      STORES,
      (i) => `${i},Store ${String(i).padStart(3, '0')},City ${1 + (i % 40)},${REGIONS[i % 5]}`,
    ),
    products: writeCsv(
      'products',
      'product_id,name,category,brand',
      PRODUCTS,
      (i) =>
        `P${String(i).padStart(5, '0')},Product ${i},${CATEGORIES[i % CATEGORIES.length]},Brand ${1 + (i % 37)}`,
    ),
    // Store ids up to STORES + 2: about 1% of sales reference a store that is not loaded.
    sales: writeCsv(
      'sales',
      'sale_id,sale_date,store,product,channel,quantity,amount,discount',
      SALES,
      (i) => {
        const store = 1 + Math.floor(rnd() * (STORES + 2));
        const product = `P${String(1 + Math.floor(rnd() * PRODUCTS)).padStart(5, '0')}`;
        const q = 1 + Math.floor(rnd() * 10);
        const amount = (q * (5 + rnd() * 95)).toFixed(2);
        const discount = rnd() < 0.2 ? '' : (rnd() * 20).toFixed(2);
        return `${i},${day(Math.floor(rnd() * 1096))},${store},${product},${pick(CHANNELS)},${q},${amount},${discount}`;
      },
    ),
    returns: writeCsv('returns', 'return_id,return_date,store,product,refund', RETURNS, (i) => {
      const store = 1 + Math.floor(rnd() * (STORES + 2));
      const product = `P${String(1 + Math.floor(rnd() * PRODUCTS)).padStart(5, '0')}`;
      return `${i},${day(Math.floor(rnd() * 1096))},${store},${product},${(rnd() * 200).toFixed(2)}`;
    }),
  };
}

const PRESCRIPTIONS: Record<string, Prescription> = {
  stores: csvPrescription('stores', 'store_id', [
    ['store_id', 'Store ID', 'A', 'integer'],
    ['name', 'Store Name', 'L', 'string', { labelOf: 'store_id' }],
    ['city', 'City', 'A', 'string'],
    ['region', 'Region', 'A', 'string'],
  ]),
  products: csvPrescription('products', 'product_id', [
    ['product_id', 'Product ID', 'A', 'string'],
    ['name', 'Product Name', 'L', 'string', { labelOf: 'product_id' }],
    ['category', 'Category', 'A', 'string'],
    ['brand', 'Brand', 'A', 'string'],
  ]),
  sales: csvPrescription('sales', 'sale_id', [
    ['sale_id', 'Sale', 'A', 'integer'],
    ['sale_date', 'Sale Date', 'A', 'date'],
    ['store', 'Sale Store', 'A', 'integer', { reference: 'stores' }],
    ['product', 'Sale Product', 'A', 'string', { reference: 'products' }],
    ['channel', 'Channel', 'A', 'string'],
    ['quantity', 'Quantity', 'F', 'integer'],
    ['amount', 'Amount', 'F', 'number'],
    ['discount', 'Discount', 'F', 'number'],
  ]),
  returns: csvPrescription('returns', 'return_id', [
    ['return_id', 'Return', 'A', 'integer'],
    ['return_date', 'Return Date', 'A', 'date'],
    ['store', 'Return Store', 'A', 'integer', { reference: 'stores' }],
    ['product', 'Return Product', 'A', 'string', { reference: 'products' }],
    ['refund', 'Refund', 'F', 'number'],
  ]),
};

// ---- queries ---------------------------------------------------------------------------

interface Case {
  name: string;
  aql: string;
  sql: string;
}

const SALES_STORES = 'ds_sales f LEFT JOIN ds_stores s ON s.store_id = f.store';
const SALES_PRODUCTS = 'ds_sales f LEFT JOIN ds_products p ON p.product_id = f.product';

const CASES: Case[] = [
  {
    name: 'breakdown',
    aql: 'SELECT [Region], SUM([Amount])',
    sql: `SELECT s.region, sum(f.amount) FROM ${SALES_STORES} GROUP BY s.region ORDER BY s.region NULLS LAST`,
  },
  {
    name: 'two dims, three measures',
    aql: 'SELECT [Region], [Category], SUM([Amount]), SUM([Quantity]), AVG([Discount])',
    sql: `SELECT s.region, p.category, sum(f.amount), sum(f.quantity), avg(f.discount)
          FROM ds_sales f LEFT JOIN ds_stores s ON s.store_id = f.store
          LEFT JOIN ds_products p ON p.product_id = f.product
          GROUP BY s.region, p.category ORDER BY s.region NULLS LAST, p.category NULLS LAST`,
  },
  {
    name: 'filters',
    aql: 'SELECT [Category], AVG([Amount]) WHERE [Channel] = "online" AND [Region] IN ("North", "South") AND [Quantity] >= 3',
    sql: `SELECT p.category, avg(f.amount)
          FROM ds_sales f LEFT JOIN ds_products p ON p.product_id = f.product
          LEFT JOIN ds_stores s ON s.store_id = f.store
          WHERE f.channel = 'online' AND s.region IN ('North', 'South') AND f.quantity >= 3
          GROUP BY p.category ORDER BY p.category NULLS LAST`,
  },
  {
    name: 'date parts',
    aql: 'SELECT YEAR([Sale Date]), MONTH([Sale Date]), SUM([Amount]) WHERE YEAR([Sale Date]) >= 2024',
    sql: `SELECT year(sale_date) AS y, month(sale_date) AS m, sum(amount) FROM ds_sales
          WHERE year(sale_date) >= 2024 GROUP BY y, m ORDER BY y NULLS LAST, m NULLS LAST`,
  },
  {
    name: 'share of total (BY ALL)',
    aql: 'SELECT [Region], SUM([Amount]) / (SELECT SUM([Amount]) BY ALL) AS "Share"',
    sql: `SELECT s.region, sum(f.amount) / sum(sum(f.amount)) OVER () FROM ${SALES_STORES}
          GROUP BY s.region ORDER BY s.region NULLS LAST`,
  },
  {
    name: 'share within region (BY ALL [Category])',
    aql: 'SELECT [Region], [Category], SUM([Amount]) / (SELECT SUM([Amount]) BY ALL [Category]) AS "Share"',
    sql: `SELECT s.region, p.category, sum(f.amount) / sum(sum(f.amount)) OVER (PARTITION BY s.region)
          FROM ds_sales f LEFT JOIN ds_stores s ON s.store_id = f.store
          LEFT JOIN ds_products p ON p.product_id = f.product
          GROUP BY s.region, p.category ORDER BY s.region NULLS LAST, p.category NULLS LAST`,
  },
  {
    name: 'two fact datasets (chasm)',
    aql: 'SELECT [Region], SUM([Amount]), SUM([Refund])',
    sql: `WITH a AS (SELECT s.region, sum(f.amount) AS amount FROM ${SALES_STORES} GROUP BY s.region),
          r AS (SELECT s.region, sum(x.refund) AS refund FROM ds_returns x
                LEFT JOIN ds_stores s ON s.store_id = x.store GROUP BY s.region)
          SELECT coalesce(a.region, r.region) AS region, a.amount, r.refund
          FROM a FULL JOIN r ON a.region IS NOT DISTINCT FROM r.region ORDER BY region NULLS LAST`,
  },
  {
    name: 'HAVING',
    aql: `SELECT [Product Name], SUM([Amount]) HAVING SUM([Amount]) > ${HAVING_OVER}`,
    sql: `SELECT p.name, sum(f.amount) FROM ${SALES_PRODUCTS} GROUP BY p.product_id, p.name
          HAVING sum(f.amount) > ${HAVING_OVER} ORDER BY p.name NULLS LAST`,
  },
  {
    name: 'top 10',
    aql: 'SELECT [Store Name], SUM([Amount]) ORDER BY 2 DESC LIMIT 10',
    sql: `SELECT s.name, sum(f.amount) FROM ${SALES_STORES} GROUP BY s.store_id, s.name
          ORDER BY 2 DESC NULLS LAST, 1 NULLS LAST LIMIT 10`,
  },
  {
    name: 'counts and median',
    aql: 'SELECT [Channel], COUNT([Sale]), COUNT([Product ID], [Sale]), MEDIAN([Amount])',
    sql: `SELECT f.channel, count(*), count(DISTINCT p.product_id), median(f.amount)
          FROM ${SALES_PRODUCTS} GROUP BY f.channel ORDER BY f.channel NULLS LAST`,
  },
];

async function retail(): Promise<void> {
  let t0 = performance.now();
  const files = generate();
  console.log(
    `generated ${SALES} sales, ${RETURNS} returns, ${STORES} stores, ${PRODUCTS} products in ${(performance.now() - t0).toFixed(0)} ms`,
  );

  const { config, running } = await startBenchServer(tmp);
  const { engine } = running;
  try {
    const project = running.bootstrap.demoProjectId!;
    const actor = await engine.actor({ email: config.adminEmail }, project);

    // Load through the real engine: files into the project's storage, one cluster load job.
    t0 = performance.now();
    const clusters: Record<string, unknown> = {};
    for (const [name, file] of Object.entries(files)) {
      await engine.files.writeFile(actor, `/bench/${name}.csv`, fs.createReadStream(file), {
        createParents: true,
      });
      clusters[name] = {
        source_type: 'webdav',
        source: `/bench/${name}.csv`,
        prescription: PRESCRIPTIONS[name],
      };
    }
    const load = await engine.loads.start(actor, { type: 'cluster', clusters });
    const done = await engine.jobs.waitFor(load.id, 600_000);
    if (done.status !== 'OK') throw new Error(`load ended ${done.status}: ${done.message}`);
    console.log(`loaded through the engine in ${(performance.now() - t0).toFixed(0)} ms`);

    const run = (sql: string, params: (string | number | boolean | null)[] = []) =>
      engine.dbs.read(project, async (c) =>
        (await c.runAndReadAll(sql, params)).getRowsJson().map((r) => r.map(formatCell)),
      );
    const aql = async (text: string) => {
      engine.aql.clearCompileCache();
      const t = performance.now();
      const c = await engine.aql.compile(actor, text);
      const compileMs = performance.now() - t;
      const rows = await run(c.sql, c.params);
      return { rows, compileMs, ms: performance.now() - t };
    };
    const hand = async (sql: string) => {
      const t = performance.now();
      const rows = await run(sql);
      return { rows, ms: performance.now() - t };
    };

    // Same answers first (this also warms caches and the JIT for both sides).
    for (const q of CASES) {
      const a = await aql(q.aql);
      const h = await hand(q.sql);
      const diff = sameRows(a.rows, h.rows);
      if (diff) throw new Error(`${q.name}: AQL and SQL disagree: ${diff}`);
      if (!a.rows.length) throw new Error(`${q.name}: no rows`);
    }

    // Three sides per round, in a rotating order: AQL (compile + run), AQL's SQL alone (compiled
    // beforehand: the cost of the SQL's shape) and the hand-written SQL.
    const compiled = await Promise.all(CASES.map((q) => engine.aql.compile(actor, q.aql)));
    const results = CASES.map(() => ({
      aql: [] as number[],
      shape: [] as number[],
      sql: [] as number[],
      compile: [] as number[],
    }));
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < CASES.length; i++) {
        const q = CASES[i]!;
        const r = results[i]!;
        const sides = [
          async () => {
            const a = await aql(q.aql);
            r.aql.push(a.ms);
            r.compile.push(a.compileMs);
          },
          async () => {
            const t = performance.now();
            await run(compiled[i]!.sql, compiled[i]!.params);
            r.shape.push(performance.now() - t);
          },
          async () => r.sql.push((await hand(q.sql)).ms),
        ];
        for (let k = 0; k < 3; k++) await sides[(round + k) % 3]!();
      }
    }

    // Compilation alone, hot: back to back with the cache cleared each time.
    const hot = CASES.map((q) => hotCompileMs(engine.aql, actor, q.aql, HOT));

    // A cached repeat over REST: the result is stored, so execute answers with a finished job.
    const token = await engine.issueToken(config.adminEmail);
    const headers = {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      'content-type': 'application/json',
    };
    const base = `${running.url}/api/v1/projects/${project}/app/aql`;
    const restQuery = CASES[1]!.aql;
    const viaRest = async (): Promise<{ status: string; rows: number }> => {
      const r = await fetch(`${base}/execute`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ aql: restQuery }),
      });
      const started = (await r.json()) as { status: string; link: { rel: string; href: string }[] };
      if (r.status !== 201) throw new Error(`execute answered ${r.status}`);
      const data = started.link.find((l) => l.rel === 'data.created')!.href;
      for (;;) {
        const d = await fetch(`${running.url}${data}`, { headers });
        const body = (await d.json()) as { data?: { values: string } };
        if (d.status === 200)
          return { status: started.status, rows: body.data!.values.split('\n').length };
        if (d.status !== 202) throw new Error(`data answered ${d.status}`);
        await new Promise((res) => setTimeout(res, 5));
      }
    };
    const first = performance.now();
    await viaRest();
    const firstMs = performance.now() - first;
    const rest: number[] = [];
    for (let i = 0; i < REPEATS + 20; i++) {
      const t = performance.now();
      const r = await viaRest();
      if (r.status !== 'OK')
        throw new Error(`a repeated query was not answered from the cache (${r.status})`);
      if (i >= 20) rest.push(performance.now() - t);
    }

    // ---- report --------------------------------------------------------------------------
    const rows = CASES.map((q, i) => {
      const r = results[i]!;
      const a = median(r.aql);
      const s = median(r.sql);
      const c = median(r.compile);
      return {
        query: q.name,
        'AQL ms': Number(a.toFixed(2)),
        'SQL ms': Number(s.toFixed(2)),
        ratio: Number((a / s).toFixed(3)),
        'AQL SQL only ms': Number(median(r.shape).toFixed(2)),
        'SQL shape ratio': Number((median(r.shape) / s).toFixed(3)),
        'compile ms': Number(c.toFixed(3)),
        'hot compile ms': Number(hot[i]!.toFixed(3)),
        goal: a / s <= GOAL ? 'ok' : 'ABOVE',
      };
    });
    console.log(
      `\nbench:aql — ${SALES} sales + ${RETURNS} returns, ${STORES} stores, ${PRODUCTS} products; ${ROUNDS} rounds (3 sides rotating), medians, ${os.cpus().length} cores`,
    );
    console.table(rows);
    const totalA = rows.reduce((s, r) => s + r['AQL ms'], 0);
    const totalS = rows.reduce((s, r) => s + r['SQL ms'], 0);
    const geo = Math.exp(rows.reduce((s, r) => s + Math.log(r.ratio), 0) / rows.length);
    const compileMax = Math.max(...rows.map((r) => r['compile ms']));
    const compileMed = median(rows.map((r) => r['compile ms']));
    const hotMax = Math.max(...rows.map((r) => r['hot compile ms']));
    const execGeo = Math.exp(
      rows.reduce((s, r) => s + Math.log(r['SQL shape ratio']), 0) / rows.length,
    );
    console.log(
      `AQL ÷ SQL: overall ${(totalA / totalS).toFixed(3)}× (sum of medians ${totalA.toFixed(1)} vs ${totalS.toFixed(1)} ms), geometric mean ${geo.toFixed(3)}× (goal ≤ ${GOAL}×) ${geo <= GOAL ? 'PASS' : 'ABOVE GOAL'}; AQL's SQL alone ÷ SQL (shape, no compile): geometric mean ${execGeo.toFixed(3)}×`,
    );
    console.log(
      `compile (cache cleared), in the timed runs: median ${compileMed.toFixed(3)} ms, worst query ${compileMax.toFixed(3)} ms; hot (${HOT}× back to back): worst query ${hotMax.toFixed(3)} ms (goal < 1 ms) ${compileMed < 1 ? 'PASS' : 'ABOVE GOAL'}`,
    );
    const restMs = median(rest);
    console.log(
      `cached repeat over REST (POST execute → OK at once → GET data, "${restQuery}"): median ${restMs.toFixed(2)} ms, p95 ${quantile(rest, 0.95).toFixed(2)} ms over ${REPEATS} (first, uncached: ${firstMs.toFixed(0)} ms) (goal < 5 ms) ${restMs < 5 ? 'PASS' : 'ABOVE GOAL'}`,
    );

    if (EXPLAIN) {
      for (let i = 0; i < CASES.length; i++) {
        if (rows[i]!.ratio <= GOAL) continue;
        const q = CASES[i]!;
        const c = await engine.aql.compile(actor, q.aql);
        const plan = async (sql: string, params: (string | number | boolean | null)[] = []) =>
          engine.dbs.read(project, async (cn) =>
            (await cn.runAndReadAll(`EXPLAIN ANALYZE ${sql}`, params))
              .getRowsJson()
              .map((r) => String(r[1]))
              .join('\n'),
          );
        console.log(`\n==== ${q.name}\n-- AQL SQL:\n${c.sql}\n${await plan(c.sql, c.params)}`);
        console.log(`-- hand-written:\n${q.sql}\n${await plan(q.sql)}`);
      }
    }
  } finally {
    await running.close();
  }
}

const PART = process.env.BENCH_PART ?? 'all';
if (!['all', 'retail', 'flights'].includes(PART))
  throw new Error(`BENCH_PART is retail, flights or all, not "${PART}"`);
if (PART !== 'flights') await retail();
if (PART !== 'retail') await (await import('./aql-flights.js')).flights();
