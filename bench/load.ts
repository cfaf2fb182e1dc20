// bench:load — rows/s of a full data load through Ursa (POST transform/execute over HTTP,
// polled until OK: validation, prescription, typed staging, reject/key checks, swap, publish,
// model sync) against DuckDB's own `CREATE TABLE t AS SELECT * FROM read_csv(file)` with
// auto-detection into a fresh file database, on the same generated CSV in the same run,
// alternating. Goal: Ursa ≥ 0.5× DuckDB's rows/s.
// Settings: BENCH_ROWS (default 1,000,000), BENCH_ROUNDS (default 3), BENCH_PROFILE=1 also
// times each statement of Ursa's load path on its own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { loadConfig } from '../src/engine/config.js';
import { createLogger } from '../src/engine/logger.js';
import { startServer } from '../src/server.js';
import {
  duplicateKeysSql,
  nullKeysSql,
  rejectsTable,
  replaceSql,
  stageSql,
  stagingTable,
} from '../src/engine/data/load-sql.js';
import type { Prescription } from '../src/engine/data/prescription.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PROFILE = process.env.BENCH_PROFILE === '1';
const STATUSES = ['open', 'paid', 'shipped', 'returned', 'cancelled'];
const WORDS = ['red', 'green', 'blue', 'small', 'large', 'fast', 'slow', 'new', 'old', 'spare'];

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-bench-load-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

/** A deterministic orders file: ids, dates, a datetime, numbers and text (8 columns). */
function generate(file: string, rows: number): void {
  const fd = fs.openSync(file, 'w');
  let seed = 42;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const day0 = Date.UTC(2023, 0, 1);
  let buf = 'order_id,customer_id,order_date,shipped_at,quantity,amount,status,note\n';
  for (let i = 1; i <= rows; i++) {
    const day = new Date(day0 + Math.floor(rnd() * 730) * 86_400_000);
    const date = day.toISOString().slice(0, 10);
    const shipped = new Date(day.getTime() + Math.floor(rnd() * 5 * 86_400) * 1000)
      .toISOString()
      .slice(0, 19)
      .replace('T', ' ');
    const note = `${WORDS[Math.floor(rnd() * 10)]} ${WORDS[Math.floor(rnd() * 10)]} item`;
    buf += `${i},${1 + Math.floor(rnd() * 50_000)},${date},${shipped},${1 + Math.floor(rnd() * 20)},${(rnd() * 1000).toFixed(2)},${STATUSES[Math.floor(rnd() * 5)]},${note}\n`;
    if (buf.length > 1 << 20) {
      fs.writeSync(fd, buf);
      buf = '';
    }
  }
  fs.writeSync(fd, buf);
  fs.closeSync(fd);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function duckdbLoad(file: string, round: number): Promise<number> {
  const dbFile = path.join(tmp, `duck-${round}.duckdb`);
  const db = await DuckDBInstance.create(dbFile);
  const c = await db.connect();
  const t0 = performance.now();
  await c.run(`CREATE TABLE t AS SELECT * FROM read_csv('${file}')`);
  const ms = performance.now() - t0;
  const n = Number(
    (await c.runAndReadAll('SELECT count(*) AS n FROM t')).getRowObjectsJson()[0]!.n,
  );
  if (n !== ROWS) throw new Error(`duckdb loaded ${n} rows, expected ${ROWS}`);
  c.closeSync();
  db.closeSync();
  fs.rmSync(dbFile, { force: true });
  fs.rmSync(`${dbFile}.wal`, { force: true });
  return ms;
}

/** Times each statement of Ursa's load path on its own, in a fresh file database. */
async function profile(file: string, p: Prescription): Promise<void> {
  const dbFile = path.join(tmp, 'profile.duckdb');
  const db = await DuckDBInstance.create(dbFile, { threads: '2' });
  const c: DuckDBConnection = await db.connect();
  const steps: [string, string][] = [
    ['BEGIN', 'BEGIN TRANSACTION'],
    ['stage (typed read_csv + rejects)', stageSql(p, file)],
    ['rejects count', `SELECT count(DISTINCT line) FROM ${rejectsTable(p.clustername)}`],
    ['row count', `SELECT count(*) FROM ${stagingTable(p.clustername)}`],
    ['null keys', nullKeysSql(p)],
    ['duplicate keys', duplicateKeysSql(p)],
    ...replaceSql(p).map((sql, i): [string, string] => [`swap ${i + 1}`, sql]),
    ['COMMIT', 'COMMIT'],
  ];
  console.log('\nUrsa load path, statement by statement (one run):');
  for (const [name, sql] of steps) {
    const t0 = performance.now();
    await c.runAndReadAll(sql);
    console.log(`  ${name.padEnd(34)} ${(performance.now() - t0).toFixed(0).padStart(6)} ms`);
  }
  c.closeSync();
  db.closeSync();
}

async function main(): Promise<void> {
  const file = path.join(tmp, 'orders.csv');
  const t0 = performance.now();
  generate(file, ROWS);
  const bytes = fs.statSync(file).size;
  console.log(
    `generated ${ROWS} rows, ${(bytes / 1e6).toFixed(1)} MB in ${(performance.now() - t0).toFixed(0)} ms`,
  );

  const dataDir = path.join(tmp, 'data');
  const config = loadConfig({
    ...process.env,
    URSA_DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    URSA_DEMO_DATA: 'false',
    URSA_DEFAULT_PLAN: 'enterprise',
    URSA_LOG_LEVEL: process.env.URSA_LOG_LEVEL ?? 'warn',
  });
  const running = await startServer(config, createLogger(config.logLevel), false);
  try {
    const project = running.bootstrap.demoProjectId!;
    const token = await running.engine.issueToken(config.adminEmail);
    const base = `${running.url}/api/v1/projects/${project}`;
    const headers = {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      'content-type': 'application/json',
    };
    await running.engine.files.writeFile(
      await running.engine.actor({ email: config.adminEmail }, project),
      '/bench/orders.csv',
      fs.createReadStream(file),
      {
        createParents: true,
      },
    );

    /** Time between the job's start and end (the rest is the request, queueing and polling). */
    const inJob: number[] = [];
    const ursaLoad = async (): Promise<number> => {
      const start = performance.now();
      const r = await fetch(`${base}/kodiak/transform/execute`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          type: 'cluster',
          clusters: { orders: { source_type: 'webdav', source: '/bench/orders.csv' } },
        }),
      });
      const started = (await r.json()) as { link: { href: string }[] };
      if (r.status !== 202)
        throw new Error(`execute answered ${r.status}: ${JSON.stringify(started)}`);
      const href = `${running.url}${started.link[0]!.href}`;
      for (;;) {
        const j = (await (await fetch(href, { headers })).json()) as {
          status: string;
          message?: string;
          started: string;
          finished: string;
          result?: { clusters: { orders: { rows: number } } };
        };
        if (j.status === 'OK') {
          if (j.result!.clusters.orders.rows !== ROWS) throw new Error('wrong row count');
          inJob.push(Date.parse(j.finished) - Date.parse(j.started));
          return performance.now() - start;
        }
        if (j.status === 'ERROR' || j.status === 'CANCELLED')
          throw new Error(`${j.status}: ${j.message}`);
        await sleep(10);
      }
    };

    // Warm both (file cache, JIT, first guess) before measuring; then alternate.
    await ursaLoad();
    await duckdbLoad(file, 0);
    inJob.length = 0;
    const ursa: number[] = [];
    const duck: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      ursa.push(await ursaLoad());
      duck.push(await duckdbLoad(file, round));
    }
    const saved = (await running.engine.datasets.prescriptionOf(project, 'orders'))!;
    const uMs = median(ursa);
    const dMs = median(duck);
    const uRps = ROWS / (uMs / 1000);
    const dRps = ROWS / (dMs / 1000);
    const ratio = uRps / dRps;
    console.log(
      `\nbench:load — ${ROWS} rows × 8 columns (${(bytes / 1e6).toFixed(1)} MB), ${ROUNDS} rounds alternating, ${os.cpus().length} cores`,
    );
    console.table(
      ursa.map((u, i) => ({ round: i + 1, ursaMs: Math.round(u), duckdbMs: Math.round(duck[i]!) })),
    );
    console.log(
      `Ursa transform/execute → OK (median): ${uMs.toFixed(0)} ms, ${Math.round(uRps)} rows/s`,
    );
    console.log(
      `  of which in the job (started → finished): ${median(inJob).toFixed(0)} ms; the rest is the request (validation, prescription check), queueing and polling`,
    );
    console.log(
      `DuckDB CREATE TABLE AS read_csv:      ${dMs.toFixed(0)} ms, ${Math.round(dRps)} rows/s`,
    );
    console.log(
      `ratio rows/s: ${ratio.toFixed(2)}× (goal ≥ 0.5×) ${ratio >= 0.5 ? 'PASS' : 'BELOW GOAL'}`,
    );
    console.log(
      `Ursa's prescription: ${saved.columns.map((c) => `${c.id}:${c.dataType}`).join(', ')}; primary key ${saved.primarykey || '(none)'}`,
    );
    if (PROFILE) await profile(file, saved);
  } finally {
    await running.close();
  }
}

await main();
