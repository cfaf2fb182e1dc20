// bench:flow — flows (FLOWS.md) against their baselines, the server running as its own
// process (`node bin/ursa.mjs start`, enterprise plan, loopback APIs allowed), driven over REST
// like a client: save the flow, `POST kodiak/transform/execute {type:"flow"}`, poll the job
// until OK. Three parts (BENCH_FLOW_PART=agg|join|http, default all):
//   agg  — 1M-row CSV in storage → filter → derive → aggregate → dataset, against the same
//          pipeline as one DuckDB statement in this process (COPY (SELECT … FROM read_csv …
//          WHERE … GROUP BY …) TO csv) plus the same load of its result (upload, file load
//          job over REST, polled the same way). Goal ≤ 2×. Rounds alternate after a warm-up.
//   join — 5M-row Parquet fact ⋈ 100k-row dimension → dataset, on a fresh server: peak growth
//          of the server process's resident memory during the run (sampled /proc VmRSS of it
//          and its children, and its VmHWM reset before the run). Goal < 1 GB.
//   http — 200 pages × 1,000 JSON records from a loopback API served by this process
//          (page pagination, ends on an empty page) → dataset. Goal ≥ 20k records/s; baseline:
//          fetching the same pages with plain `fetch` here.
// Settings: BENCH_FLOW_ROWS (agg, default 1,000,000), BENCH_FLOW_ROUNDS (agg rounds, default
// 5), BENCH_FLOW_JOIN_ROWS (default 5,000,000), BENCH_FLOW_JOIN_DIM (default 100,000),
// BENCH_FLOW_JOIN_ROUNDS (default 2: the second replaces the dataset the first wrote),
// BENCH_FLOW_PAGES (default 200), BENCH_FLOW_PER_PAGE (default 1,000), BENCH_FLOW_HTTP_ROUNDS
// (default 3), BENCH_POLL_MS (job polls, default 20).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { median } from './compare.js';
import { apiPages, writeJoinParquet, writeSalesCsv } from './flow-data.js';
import { rssMb, RssSampler, ServerProcess, type Finished, type Job } from './flow-server.js';

const PART = process.env.BENCH_FLOW_PART ?? 'all';
const ROWS = Number(process.env.BENCH_FLOW_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_FLOW_ROUNDS ?? 5);
const JOIN_ROWS = Number(process.env.BENCH_FLOW_JOIN_ROWS ?? 5_000_000);
const JOIN_DIM = Number(process.env.BENCH_FLOW_JOIN_DIM ?? 100_000);
const JOIN_ROUNDS = Number(process.env.BENCH_FLOW_JOIN_ROUNDS ?? 2);
const PAGES = Number(process.env.BENCH_FLOW_PAGES ?? 200);
const PER_PAGE = Number(process.env.BENCH_FLOW_PER_PAGE ?? 1000);
const HTTP_ROUNDS = Number(process.env.BENCH_FLOW_HTTP_ROUNDS ?? 3);
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 20);
const GOAL_AGG = 2;
const GOAL_RSS_MB = 1024;
const GOAL_RPS = 20_000;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-bench-flow-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

const ms = (x: number) => `${Math.round(x).toLocaleString('en-US')} ms`;
const int = (x: number) => Math.round(x).toLocaleString('en-US');
const since = (t0: number) => ms(performance.now() - t0);

/** The part of a run's job outside its boxes: commit through the loader, job bookkeeping. */
const outsideBoxes = (f: Finished) =>
  f.inJobMs - Object.values(f.job.result!.boxes!).reduce((a, b) => a + b.ms, 0);

/** Median ms of each box over several runs, in the flow's order. */
function boxMedians(runs: Finished[]): Record<string, { rows: number; ms: number }> {
  const boxes = runs[0]!.job.result!.boxes!;
  return Object.fromEntries(
    Object.keys(boxes).map((id) => [
      id,
      { rows: boxes[id]!.rows, ms: median(runs.map((r) => r.job.result!.boxes![id]!.ms)) },
    ]),
  );
}

const results: string[] = [];

// ---- agg: 1M rows, filter → derive → aggregate → dataset, against one DuckDB statement ------

async function aggPart(s: ServerProcess): Promise<void> {
  const csv = path.join(tmp, 'sales.csv');
  let t0 = performance.now();
  writeSalesCsv(csv, ROWS);
  console.log(
    `\n[agg] generated ${int(ROWS)} rows, ${(fs.statSync(csv).size / 1e6).toFixed(1)} MB in ${since(t0)}`,
  );
  t0 = performance.now();
  await s.upload(csv, 'sales.csv');
  console.log(`[agg] uploaded to /sales.csv in ${since(t0)}`);

  await s.saveFlow('flow.sales_by_month', {
    boxes: [
      { id: 'src', type: 'input.storage', path: '/sales.csv' },
      { id: 'big', type: 'transform.filter', condition: '[amount] > 10' },
      {
        id: 'calc',
        type: 'transform.derive',
        columns: { net: '[amount] * [qty]', month: 'DATE_TRUNC("month", [day])' },
      },
      {
        id: 'agg',
        type: 'transform.aggregate',
        groupby: ['region', 'product', 'month'],
        measures: { orders: 'COUNT([id])', units: 'SUM([qty])', revenue: 'SUM([net])' },
      },
      { id: 'out', type: 'output.dataset', dataset: 'sales_by_month_flow', mode: 'full' },
    ],
    edges: [
      { from: 'src', to: 'big' },
      { from: 'big', to: 'calc' },
      { from: 'calc', to: 'agg' },
      { from: 'agg', to: 'out' },
    ],
  });

  const aggCsv = path.join(tmp, 'sales_by_month_sql.csv');
  // What the expressions compile to (flows/expressions.ts): the same SQL, one statement.
  const sql = `COPY (
      SELECT region, product, CAST(date_trunc('month', day) AS DATE) AS month,
             count(id) AS orders, sum(qty) AS units, sum(amount * qty) AS revenue
      FROM read_csv('${csv}', header = true)
      WHERE amount > 10
      GROUP BY region, product, month
    ) TO '${aggCsv}' (FORMAT csv, HEADER true)`;
  const baseline = async () => {
    const t = performance.now();
    const db = await DuckDBInstance.create(':memory:', { threads: '2' });
    const c = await db.connect();
    await c.run(sql);
    c.closeSync();
    db.closeSync();
    const sqlMs = performance.now() - t;
    const u = performance.now();
    await s.upload(aggCsv, 'sales_by_month_sql.csv');
    const uploadMs = performance.now() - u;
    const load = await s.execute(
      {
        type: 'cluster',
        clusters: {
          sales_by_month_sql: { source_type: 'webdav', source: '/sales_by_month_sql.csv' },
        },
      },
      POLL_MS,
    );
    return {
      ms: performance.now() - t,
      sqlMs,
      uploadMs,
      loadMs: load.ms,
      rows: load.job.result!.clusters!.sales_by_month_sql!.rows,
    };
  };
  const flow = () => s.runFlow('flow.sales_by_month', POLL_MS);

  // Warm-up (file cache, JIT, first dataset creation), and the same number of rows out.
  const f0 = await flow();
  const b0 = await baseline();
  const flowRows = f0.job.result!.outputs![0]!.rows;
  if (flowRows !== b0.rows)
    throw new Error(`the flow wrote ${flowRows} rows, the SQL baseline loaded ${b0.rows}`);
  console.log(
    `[agg] warm-up: flow ${ms(f0.ms)}, SQL + load ${ms(b0.ms)}; ${int(flowRows)} aggregated rows each`,
  );

  const flows: Finished[] = [];
  const bases: Awaited<ReturnType<typeof baseline>>[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      flows.push(await flow());
      bases.push(await baseline());
    } else {
      bases.push(await baseline());
      flows.push(await flow());
    }
  }
  console.table(
    flows.map((f, i) => ({
      round: i + 1,
      flowMs: Math.round(f.ms),
      flowInJobMs: f.inJobMs,
      sqlPlusLoadMs: Math.round(bases[i]!.ms),
      ratio: Number((f.ms / bases[i]!.ms).toFixed(2)),
    })),
  );
  const fMs = median(flows.map((f) => f.ms));
  const bMs = median(bases.map((b) => b.ms));
  const ratio = fMs / bMs;
  console.log(`[agg] flow per box (median ms, rows):`);
  for (const [id, b] of Object.entries(boxMedians(flows)))
    console.log(`        ${id.padEnd(6)} ${String(b.ms).padStart(6)} ms  ${int(b.rows)} rows`);
  console.log(`        commit and job outside the boxes ${ms(median(flows.map(outsideBoxes)))}`);
  console.log(
    `[agg] flow, execute → OK: ${ms(fMs)} (in the job ${ms(median(flows.map((f) => f.inJobMs)))})`,
  );
  console.log(
    `[agg] one DuckDB statement ${ms(median(bases.map((b) => b.sqlMs)))} + upload ${ms(median(bases.map((b) => b.uploadMs)))} + load execute → OK ${ms(median(bases.map((b) => b.loadMs)))} = ${ms(bMs)}`,
  );
  const line = `agg:  flow ${ms(fMs)} vs SQL + load ${ms(bMs)} → ${ratio.toFixed(2)}× (goal ≤ ${GOAL_AGG}×) ${ratio <= GOAL_AGG ? 'PASS' : 'MISSED'}`;
  console.log(`[agg] ${line}`);
  results.push(line);
}

// ---- http: 200 pages × 1,000 records from a loopback API → dataset -----------------------

async function httpPart(s: ServerProcess): Promise<void> {
  const pages = apiPages(PAGES, PER_PAGE);
  const records = PAGES * PER_PAGE;
  let served = 0;
  const api = http.createServer((req, res) => {
    const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? '1');
    const body = pages[Math.min(Math.max(page, 1), PAGES + 1) - 1]!;
    served++;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(api.address() as AddressInfo).port}/items`;
  try {
    const mb = pages.reduce((a, b) => a + b.length, 0) / 1e6;
    console.log(
      `\n[http] ${PAGES} pages × ${int(PER_PAGE)} records (${mb.toFixed(1)} MB) at ${url}`,
    );
    await s.saveFlow('flow.api_items', {
      boxes: [
        {
          id: 'api',
          type: 'input.http',
          url,
          pagination: { type: 'page', param: 'page', start: 1 },
        },
        { id: 'out', type: 'output.dataset', dataset: 'items_api', mode: 'full' },
      ],
      edges: [{ from: 'api', to: 'out' }],
    });
    const flow = async () => {
      served = 0;
      const f = await s.runFlow('flow.api_items', POLL_MS);
      if (f.job.result!.boxes!.api!.rows !== records)
        throw new Error(`the flow read ${f.job.result!.boxes!.api!.rows} records`);
      if (served !== PAGES + 1) throw new Error(`the flow asked for ${served} pages`);
      return f;
    };
    const plain = async () => {
      const t = performance.now();
      let n = 0;
      for (let page = 1; ; page++) {
        const r = await fetch(`${url}?page=${page}`, { headers: { accept: 'application/json' } });
        const got = (await r.json()) as unknown[];
        if (!got.length) break;
        n += got.length;
      }
      if (n !== records) throw new Error(`fetch read ${n} records`);
      return performance.now() - t;
    };
    await flow();
    await plain();
    const flows: Finished[] = [];
    const fetches: number[] = [];
    for (let round = 0; round < HTTP_ROUNDS; round++) {
      flows.push(await flow());
      fetches.push(await plain());
    }
    const fMs = median(flows.map((f) => f.ms));
    const pMs = median(fetches);
    const boxes = boxMedians(flows);
    const rps = records / (fMs / 1000);
    console.table(
      flows.map((f, i) => ({
        round: i + 1,
        flowMs: Math.round(f.ms),
        inputBoxMs: f.job.result!.boxes!.api!.ms,
        outputBoxMs: f.job.result!.boxes!.out!.ms,
        fetchMs: Math.round(fetches[i]!),
      })),
    );
    console.log(
      `[http] flow execute → OK ${ms(fMs)} (in the job ${ms(median(flows.map((f) => f.inJobMs)))}): ${int(rps)} records/s`,
    );
    console.log(
      `[http] input box ${ms(boxes.api!.ms)}: ${int(records / (boxes.api!.ms / 1000))} records/s; output box ${ms(boxes.out!.ms)}; commit and job outside the boxes ${ms(median(flows.map(outsideBoxes)))}`,
    );
    console.log(
      `[http] plain fetch of every page here: ${ms(pMs)}: ${int(records / (pMs / 1000))} records/s; flow ÷ fetch ${(fMs / pMs).toFixed(2)}×`,
    );
    const line = `http: ${int(rps)} records/s end to end (input box alone ${int(records / (boxes.api!.ms / 1000))}/s; plain fetch ${int(records / (pMs / 1000))}/s, flow takes ${(fMs / pMs).toFixed(2)}× its time) (goal ≥ ${int(GOAL_RPS)}/s) ${rps >= GOAL_RPS ? 'PASS' : 'MISSED'}`;
    console.log(`[http] ${line}`);
    results.push(line);
  } finally {
    api.closeAllConnections();
    await new Promise<void>((r) => api.close(() => r()));
  }
}

// ---- join: 5M ⋈ 100k → dataset, peak RSS growth of the server ----------------------------

async function joinPart(): Promise<void> {
  const fact = path.join(tmp, 'orders.parquet');
  const dim = path.join(tmp, 'customers.parquet');
  let t0 = performance.now();
  await writeJoinParquet(fact, dim, JOIN_ROWS, JOIN_DIM);
  const mb = (f: string) => (fs.statSync(f).size / 1e6).toFixed(1);
  console.log(
    `\n[join] generated ${int(JOIN_ROWS)} orders (${mb(fact)} MB) and ${int(JOIN_DIM)} customers (${mb(dim)} MB) in ${since(t0)}`,
  );
  const s = await ServerProcess.start(path.join(tmp, 'data-join'));
  try {
    t0 = performance.now();
    await s.upload(fact, 'orders.parquet');
    await s.upload(dim, 'customers.parquet');
    console.log(`[join] uploaded both in ${since(t0)}; server pid ${s.pid}`);
    await s.saveFlow('flow.orders_customers', {
      boxes: [
        { id: 'orders', type: 'input.storage', path: '/orders.parquet' },
        { id: 'customers', type: 'input.storage', path: '/customers.parquet' },
        {
          id: 'join',
          type: 'transform.join',
          left: 'orders',
          right: 'customers',
          on: [['customer_id', 'customer_id']],
          how: 'inner',
        },
        { id: 'out', type: 'output.dataset', dataset: 'orders_customers', mode: 'full' },
      ],
      edges: [
        { from: 'orders', to: 'join' },
        { from: 'customers', to: 'join' },
        { from: 'join', to: 'out' },
      ],
    });
    /** The box running at a poll, or "commit" once every box is done. */
    const phaseOf = (j: Job) => {
      if (j.status === 'OK') return 'job OK';
      const boxes = Object.entries(j.progress?.boxes ?? {});
      if (!boxes.length) return 'before the first poll';
      const running = boxes.find(([, b]) => b.status === 'running');
      if (running) return running[0];
      return boxes.every(([, b]) => b.status === 'done') ? 'commit' : 'between boxes';
    };
    await new Promise((r) => setTimeout(r, 1000));
    const fresh = rssMb(s.pid);
    let worst = 0;
    for (let round = 1; round <= JOIN_ROUNDS; round++) {
      await new Promise((r) => setTimeout(r, 1000));
      const before = rssMb(s.pid);
      const sampler = new RssSampler(s.pid);
      const f = await s.runFlow('flow.orders_customers', 100, (j) => {
        sampler.phase = phaseOf(j);
      });
      const peak = sampler.stop();
      const after = rssMb(s.pid);
      const growth = peak.peakMb - before;
      worst = Math.max(worst, peak.peakMb - fresh);
      const rows = f.job.result!.outputs![0]!.rows;
      if (rows !== JOIN_ROWS) throw new Error(`the join wrote ${rows} rows`);
      console.log(
        `[join] round ${round}${round > 1 ? ' (replaces the dataset)' : ''}: execute → OK ${ms(f.ms)} (in the job ${ms(f.inJobMs)}), ${int(rows)} rows, ${int(rows / (f.ms / 1000))} rows/s`,
      );
      console.log(
        `[join] per box: ${Object.entries(f.job.result!.boxes!)
          .map(([id, b]) => `${id} ${ms(b.ms)}`)
          .join(', ')}; commit and job outside the boxes ${ms(outsideBoxes(f))}`,
      );
      console.log(
        `[join] server RSS before ${int(before)} MB, peak ${int(peak.peakMb)} MB (${sampler.samples} samples: ${int(peak.sampledMb)} MB; VmHWM ${peak.hwmMb === null ? 'not resettable' : `${int(peak.hwmMb)} MB`}), after ${int(after)} MB`,
      );
      console.log(
        `[join] sampled peak by phase (polled every 100 ms): ${[...sampler.byPhase]
          .map(([p, mb]) => `${p} ${int(mb)} MB`)
          .join(', ')}`,
      );
      const line = `join round ${round}: peak RSS growth ${int(growth)} MB (goal < ${int(GOAL_RSS_MB)} MB) ${growth < GOAL_RSS_MB ? 'PASS' : 'MISSED'}; ${int(JOIN_ROWS)} rows in ${ms(f.ms)}`;
      console.log(`[join] ${line}`);
      results.push(line);
    }
    console.log(
      `[join] fresh server ${int(fresh)} MB (after the uploads); largest peak over it ${int(worst)} MB`,
    );
  } finally {
    await s.stop();
  }
}

async function main(): Promise<void> {
  console.log(
    `bench:flow — ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  if (PART === 'all' || PART === 'agg' || PART === 'http') {
    const s = await ServerProcess.start(path.join(tmp, 'data'));
    try {
      if (PART === 'all' || PART === 'agg') await aggPart(s);
      if (PART === 'all' || PART === 'http') await httpPart(s);
    } finally {
      await s.stop();
    }
  }
  if (PART === 'all' || PART === 'join') await joinPart();
  console.log(`\nbench:flow results\n${results.map((r) => `  ${r}`).join('\n')}`);
}

await main();
