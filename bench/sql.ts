// bench:sql — the SQL API (issue 33) on bench:aql's flights (3M rows, docs/benchmarks.md):
// each flights query over the wire with node-postgres (`/*aql*/` + the AQL, and for a few
// the same question in plain SQL, translated to AQL) against the same AQL over REST
// (Prefer: wait) and the hand-written SQL on DuckDB, in one run, three sides rotating, cold
// result and compile caches. Goal: SQL door ≤ 1.10× REST. Also printed: connection set-up
// (startup + password + SELECT 1) and cached small queries per second on one connection.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { formatCell } from '../src/engine/aql/format.js';
import { CASES } from './aql-flights.js';
import { median, sameRows, startBenchServer } from './compare.js';
import { AIRPORT_ROWS, FLIGHT_ROWS, flightFiles, Rest } from './flights-data.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const CONNECTS = Number(process.env.BENCH_CONNECTS ?? 100);
const CACHED = Number(process.env.BENCH_CACHED ?? 1000);
const GOAL = 1.1;

/** The same questions as SQL clients write them (translated to AQL by the SQL API). */
const PLAIN: { name: string; sql: string; aqlOf: string }[] = [
  {
    name: 'join breakdown (SQL)',
    sql: 'SELECT "State", sum("Distance") AS "Miles", count("Distance") AS "Flights", avg("Delay") AS "Avg Delay" FROM flights, airports GROUP BY 1',
    aqlOf: 'join breakdown',
  },
  {
    name: 'monthly series (SQL)',
    sql: 'SELECT extract(year FROM "Date"), extract(month FROM "Date"), count("Distance") AS "Flights", avg("Delay") AS "Avg Delay" FROM flights GROUP BY 1, 2',
    aqlOf: 'monthly series',
  },
  {
    name: 'top 10 with HAVING (SQL)',
    sql: 'SELECT "Airport Name", count("Distance") AS "Flights", avg("Delay") AS "Avg Delay" FROM flights, airports GROUP BY 1 HAVING count("Distance") > 10000 ORDER BY 3 DESC LIMIT 10',
    aqlOf: 'top 10 with HAVING',
  },
];

const fmt = (x: number, d = 2) => Number(x.toFixed(d));
const toRows = (values: string): string[][] =>
  values === '' ? [] : values.split('\n').map((l) => l.split('\t'));

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-bench-sql-'));
  process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
  const files = await flightFiles();
  const { config, running } = await startBenchServer(tmp, { URSA_SQL_PORT: '0' });
  const { engine } = running;
  try {
    const project = running.bootstrap.demoProjectId!;
    const token = await engine.issueToken(config.adminEmail);
    const rest = new Rest(running.url, project, token);
    await rest.upload(files.airports, 'airports.csv');
    await rest.upload(files.flights, 'flights.csv');
    const loaded = await rest.load(100);
    if (loaded.rows.flights !== FLIGHT_ROWS || loaded.rows.airports !== AIRPORT_ROWS)
      throw new Error(`loaded ${JSON.stringify(loaded.rows)}`);
    const opts = {
      host: '127.0.0.1',
      port: running.sqlPort!,
      user: config.adminEmail,
      password: token,
      database: project,
    };
    // Rows as text, the way REST's values are (node-postgres parses no type).
    const client = new pg.Client({ ...opts, types: { getTypeParser: () => (v: string) => v } });
    client.on('error', (err) => console.error('pg client error', err));
    await client.connect();

    const hand = (sql: string) =>
      engine.dbs.read(project, async (c) =>
        (await c.runAndReadAll(sql)).getRowsJson().map((r) => r.map(formatCell)),
      );
    const viaRest = async (aql: string) => {
      const r = await rest.call('POST', '/app/aql/execute', { aql }, { prefer: 'wait=60' });
      if (r.status !== 200) throw new Error(`REST answered ${r.status}`);
      return toRows((r.json.data as { values: string }).values);
    };
    const viaSql = async (text: string) =>
      (await client.query({ text, rowMode: 'array' })).rows.map((r: unknown[]) =>
        r.map((v) => (v === null ? '' : String(v))),
      );
    const cold = () => {
      engine.aql.clearResultCache();
      engine.aql.clearCompileCache();
    };
    const timed = async (f: () => Promise<unknown>) => {
      const t = performance.now();
      await f();
      return performance.now() - t;
    };

    const cases = [
      ...CASES.map((c) => ({ name: c.name, wire: `/*aql*/ ${c.aql}`, aql: c.aql, hand: c.sql })),
      ...PLAIN.map((p) => {
        const c = CASES.find((x) => x.name === p.aqlOf)!;
        return { name: p.name, wire: p.sql, aql: c.aql, hand: c.sql };
      }),
    ];
    const ready: typeof cases = [];
    for (const c of cases) {
      cold();
      const r = await viaRest(c.aql);
      cold();
      const s = await viaSql(c.wire);
      // Plain SQL has no ORDER BY of AQL's default: compared as sets of rows.
      const sort = (rows: string[][]) => [...rows].sort((a, b) => (a.join() < b.join() ? -1 : 1));
      const diff = sameRows(
        sort(s.map((row) => row.map(normal))),
        sort(r.map((row) => row.map(normal))),
      );
      if (diff) {
        console.log(`${c.name}: MISMATCH, not timed: SQL door vs REST: ${diff}`);
        continue;
      }
      ready.push(c);
    }

    const t = ready.map(() => ({
      rest: [] as number[],
      sql: [] as number[],
      hand: [] as number[],
    }));
    for (let round = 0; round < ROUNDS; round++)
      for (const [i, c] of ready.entries()) {
        const sides = [
          async () => {
            cold();
            t[i]!.rest.push(await timed(() => viaRest(c.aql)));
          },
          async () => {
            cold();
            t[i]!.sql.push(await timed(() => viaSql(c.wire)));
          },
          async () => t[i]!.hand.push(await timed(() => hand(c.hand))),
        ];
        for (let k = 0; k < 3; k++) await sides[(round + k) % 3]!();
      }
    const rows = ready.map((c, i) => {
      const r = median(t[i]!.rest);
      const s = median(t[i]!.sql);
      const h = median(t[i]!.hand);
      return {
        query: c.name,
        'SQL door ms': fmt(s),
        'REST ms': fmt(r),
        'hand SQL ms': fmt(h),
        'SQL door ÷ REST': fmt(s / r, 3),
        'SQL door ÷ hand': fmt(s / h, 3),
        goal: s / r <= GOAL ? 'ok' : 'ABOVE',
      };
    });
    console.log(
      `\nbench:sql — ${FLIGHT_ROWS} flights; ${ROUNDS} rounds (3 sides rotating), medians, cold caches, ${os.cpus().length} cores`,
    );
    console.table(rows);
    const geo = Math.exp(
      rows.reduce((a, r) => a + Math.log(r['SQL door ÷ REST']), 0) / Math.max(rows.length, 1),
    );
    console.log(
      `SQL door ÷ REST: geometric mean ${geo.toFixed(3)}×, ${rows.filter((r) => r.goal === 'ok').length}/${rows.length} within ${GOAL}×`,
    );

    // Connection set-up: startup, password (token check, membership), SELECT 1, end.
    const connects: number[] = [];
    for (let i = 0; i < CONNECTS; i++)
      connects.push(
        await timed(async () => {
          const c = new pg.Client(opts);
          c.on('error', () => undefined);
          await c.connect();
          await c.query('SELECT 1');
          await c.end();
        }),
      );
    console.log(
      `connection set-up + SELECT 1: median ${fmt(median(connects))} ms over ${CONNECTS}`,
    );

    // Cached small queries: the same question again, answered from the stored result.
    const small = '/*aql*/ SELECT [State], COUNT([Distance]) AS "Flights"';
    await viaSql(small);
    const t0 = performance.now();
    for (let i = 0; i < CACHED; i++) await viaSql(small);
    const secs = (performance.now() - t0) / 1000;
    console.log(
      `${CACHED} cached small queries on one connection: ${fmt(CACHED / secs, 0)} per second (${fmt((secs * 1000) / CACHED, 3)} ms each)`,
    );
    await client.end();
  } finally {
    await running.close();
  }
}

/** Numbers as numbers: the wire's float8 text and REST's values may differ in the last digits. */
function normal(v: string): string {
  const n = Number(v);
  return v !== '' && Number.isFinite(n) ? String(Number(n.toPrecision(12))) : v;
}

await main();
process.exit(0);
