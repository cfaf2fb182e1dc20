// bench:versions — does a query wait for a load? A dataset of BENCH_ROWS (default 3,000,000)
// orders is loaded over REST; then an AQL query on it (engine.aql.run: compile and DuckDB,
// no result cache) is timed alone, and again back to back while a full reload of the same
// dataset runs (POST transform/execute, polled until OK). Each answer during the load must be
// the one of the version it started on. Printed: p50 and max alone and during, their ratio
// (goal: no waiting for the writer — what remains is the two cores the load also uses).
// Then the data paths alone, interleaved in one process (what the layout itself costs, with
// every other thing equal): a full load's statements into one read-write project file (the
// layout before versions: BEGIN … swap … COMMIT) against the same into a new version file
// (ATTACH, USE, the same statements, CHECKPOINT, DETACH, fsync), and the query on that file
// against the query on the version attached READ_ONLY through the search path.
// Settings: BENCH_ROWS, BENCH_QUERIES (alone, default 40), BENCH_ROUNDS (paths, default 5).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { lit } from '../src/engine/data/databases.js';
import { replaceSql, stageSql } from '../src/engine/data/load-sql.js';
import { CSV_FORMAT, validatePrescription } from '../src/engine/data/prescription.js';
import { VersionWriter } from '../src/engine/data/version-writer.js';
import { median, quantile, startBenchServer } from './compare.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 3_000_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 40);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const QUERY = 'SELECT [Status], SUM([Amount]), COUNT([Order Id])';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-bench-versions-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

const PRESCRIPTION = {
  clustername: 'orders',
  primarykey: 'order_id',
  columns: [
    {
      id: 'order_id',
      originalheader: 'order_id',
      objectType: 'A',
      dataType: 'integer',
      label: 'Order Id',
    },
    {
      id: 'customer_id',
      originalheader: 'customer_id',
      objectType: 'A',
      dataType: 'integer',
      label: 'Customer',
    },
    {
      id: 'order_date',
      originalheader: 'order_date',
      objectType: 'A',
      dataType: 'date',
      label: 'Order Date',
    },
    {
      id: 'amount',
      originalheader: 'amount',
      objectType: 'F',
      dataType: 'number',
      label: 'Amount',
    },
    {
      id: 'status',
      originalheader: 'status',
      objectType: 'A',
      dataType: 'string',
      label: 'Status',
    },
  ],
};

/** A deterministic orders file of `rows` rows (DuckDB writes it: fast and the same each run). */
async function generate(file: string, rows: number, salt: number): Promise<void> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run(
    `COPY (SELECT i AS order_id, (i * 7919 + ${salt}) % 50000 AS customer_id, DATE '2023-01-01' + CAST((i * 31) % 730 AS INTEGER) AS order_date, ((i * 104729) % 100000) / 100.0 + ${salt} AS amount, ['open', 'paid', 'shipped', 'returned'][1 + (i + ${salt}) % 4] AS status FROM range(1, ${rows + 1}) t(i)) TO '${file}' (HEADER)`,
  );
  c.closeSync();
  db.closeSync();
}

async function main(): Promise<void> {
  const { config, running } = await startBenchServer(tmp);
  const engine = running.engine;
  try {
    const project = (
      await engine.projects.create(
        { email: config.adminEmail },
        { id: 'versions', label: 'Versions', entity: 'default' },
      )
    ).id;
    const files = path.join(engine.projects.dir(project), 'files');
    fs.mkdirSync(files, { recursive: true });
    const t0 = performance.now();
    await generate(path.join(files, 'a.csv'), ROWS, 0);
    await generate(path.join(files, 'b.csv'), ROWS, 1);
    console.log(`generated 2 × ${ROWS} rows in ${(performance.now() - t0).toFixed(0)} ms`);

    const token = await engine.issueToken(config.adminEmail);
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${running.url}/api/v1/projects/${project}${p}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      });
      return (await res.json()) as { status?: string; message?: string; link: { id: string }[] };
    };
    const startLoad = async (source: string) =>
      (
        await call('POST', '/kodiak/transform/execute', {
          type: 'cluster',
          clusters: { orders: { source_type: 'webdav', source, prescription: PRESCRIPTION } },
        })
      ).link[0]!.id;
    const status = async (id: string) => call('GET', `/kodiak/scache/obj/${id}`);
    const waitOk = async (id: string) => {
      for (;;) {
        const j = await status(id);
        if (j.status === 'OK') return;
        if (j.status === 'ERROR' || j.status === 'CANCELLED')
          throw new Error(`load ${j.status}: ${j.message}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };

    let t = performance.now();
    await waitOk(await startLoad('/a.csv'));
    const loadMs = performance.now() - t;
    console.log(`first load of ${ROWS} rows: ${loadMs.toFixed(0)} ms`);

    const actor = await engine.actor({ email: config.adminEmail }, project);
    const timed = async () => {
      const s = performance.now();
      const rows = await engine.aql.run(actor, QUERY);
      return { ms: performance.now() - s, answer: JSON.stringify(rows) };
    };
    for (let i = 0; i < 5; i++) await timed(); // warm-up
    const alone: number[] = [];
    let before = '';
    for (let i = 0; i < QUERIES; i++) {
      const r = await timed();
      alone.push(r.ms);
      before = r.answer;
    }

    // The same dataset reloaded from the other file while the query runs back to back.
    t = performance.now();
    const job = await startLoad('/b.csv');
    const during: number[] = [];
    let done = false;
    const loading = waitOk(job).then(() => (done = true));
    let after = 0;
    while (!done) {
      const r = await timed();
      if (done) break; // finished after the load published: not "during"
      if (r.answer !== before) after++;
      else during.push(r.ms);
    }
    await loading;
    const reloadMs = performance.now() - t;
    const last = await timed();
    if (last.answer === before) throw new Error('the reload did not change the answer');

    const p50a = median(alone);
    const p50d = median(during);
    console.log(`query: ${QUERY}`);
    console.log(
      `alone:       p50 ${p50a.toFixed(1)} ms, p95 ${quantile(alone, 0.95).toFixed(1)} ms, max ${Math.max(...alone).toFixed(1)} ms (${alone.length} queries)`,
    );
    console.log(
      `during load: p50 ${p50d.toFixed(1)} ms, p95 ${quantile(during, 0.95).toFixed(1)} ms, max ${Math.max(...during).toFixed(1)} ms (${during.length} queries in the ${reloadMs.toFixed(0)} ms reload${after ? `, ${after} saw the new version` : ''})`,
    );
    console.log(
      `ratio p50 during ÷ alone: ${(p50d / p50a).toFixed(2)}×; longest query ÷ load: ${(Math.max(...during) / reloadMs).toFixed(3)} (a query waiting for the writer would take the load's time)`,
    );
  } finally {
    await running.close();
  }
}

/** The old layout's load and query against the versions', interleaved (see the header). */
async function paths(): Promise<void> {
  const file = path.join(tmp, 'paths.csv');
  await generate(file, ROWS, 0);
  const p = validatePrescription({ ...PRESCRIPTION, format: CSV_FORMAT });
  const sql = 'SELECT status, sum(amount), count(order_id) FROM "ds_orders" GROUP BY ALL';
  const load = { old: [] as number[], versions: [] as number[] };
  const query = { old: [] as number[], versions: [] as number[] };
  const timeQueries = async (c: { run(sql: string): Promise<unknown> }, into: number[]) => {
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      await c.run(sql);
      into.push(performance.now() - t);
    }
  };
  for (let round = 0; round < ROUNDS; round++) {
    const dir = path.join(tmp, `paths-${round}`);
    fs.mkdirSync(dir, { recursive: true });
    // Before: one read-write file per project, the load one transaction in it.
    let t = performance.now();
    const old = await DuckDBInstance.create(path.join(dir, 'data.duckdb'), { threads: '2' });
    const oc = await old.connect();
    await oc.run('BEGIN TRANSACTION');
    await oc.run(stageSql(p, file));
    for (const s of replaceSql(p)) await oc.run(s);
    await oc.run('COMMIT');
    load.old.push(performance.now() - t);
    await timeQueries(oc, query.old);
    oc.closeSync();
    old.closeSync();
    // Now: a new version file, then read attached READ_ONLY through the search path.
    t = performance.now();
    const reader = await DuckDBInstance.create(':memory:', { threads: '2' });
    const w = new VersionWriter(reader, dir, []);
    const c = await w.open([{ name: 'orders', mode: 'full' }]);
    await w.use('orders');
    await c.run(stageSql(p, file));
    for (const s of replaceSql(p)) await c.run(s);
    const [v] = await w.finish();
    load.versions.push(performance.now() - t);
    const rc = await reader.connect();
    await rc.run(`ATTACH ${lit(path.join(dir, v!.file))} AS v_bench (READ_ONLY)`);
    await rc.run("SET search_path = 'v_bench.main'");
    await timeQueries(rc, query.versions);
    rc.closeSync();
    reader.closeSync();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const row = (what: string, x: { old: number[]; versions: number[] }) =>
    `${what}: before ${median(x.old).toFixed(0)} ms, versions ${median(x.versions).toFixed(0)} ms, ratio ${(median(x.versions) / median(x.old)).toFixed(3)}×`;
  console.log(`\ndata paths alone (${ROUNDS} rounds interleaved, ${ROWS} rows; medians):`);
  console.log(row('load (stage, swap, commit / publishable file)', load));
  console.log(row('query', query));
}

await main();
await paths();
