// bench:aql, flights part — AQL on 3,000,000 real flights (vega-datasets, see flights-data.ts)
// against hand-written DuckDB SQL, the way a REST client meets it. A server starts in-process;
// both files are uploaded over REST and loaded in one transform job, timed against DuckDB's
// own `CREATE TABLE AS SELECT * FROM read_csv` of the same two files (alternating rounds).
// Then per query, three sides in a rotating order:
//   REST  — POST app/aql/execute with `Prefer: wait=60` and a cold result and compile cache
//           (200 with the data inline; a 201/202 is polled like a client does: GET the data
//           link every BENCH_POLL_MS until 200), goal ≤ 1.10× hand SQL;
//   shape — AQL's generated SQL alone on the engine's read-connection path, goal ≤ 1.05×;
//   hand  — the hand-written SQL on the same path.
// Answers are compared first (AQL's SQL, the REST answer and the hand SQL); a query that does
// not compile yet (AQL v2 lands in parallel) or answers differently is reported, not timed.
// Settings: BENCH_FLIGHT_ROUNDS (default 11; 0 times the load only), BENCH_LOAD_ROUNDS (default 3, 0 loads once
// untimed), BENCH_REPEATS (cached REST requests, default 300), BENCH_POLL_MS (query polls,
// default 10), BENCH_LOAD_POLL_MS (load polls, default 100),
// BENCH_EXPLAIN=1 (AQL's SQL of every query, EXPLAIN ANALYZE of both sides of those above
// the SQL goal).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EngineError } from '../src/engine/errors.js';
import { formatCell } from '../src/engine/aql/format.js';
import { hotCompileMs, median, quantile, sameRows, startBenchServer } from './compare.js';
import { AIRPORT_ROWS, duckdbLoad, FLIGHT_ROWS, flightFiles, Rest } from './flights-data.js';

const ROUNDS = Number(process.env.BENCH_FLIGHT_ROUNDS ?? 11);
const LOAD_ROUNDS = Number(process.env.BENCH_LOAD_ROUNDS ?? 3);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 300);
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 10);
/** A load runs for seconds: a client polls it less often (and polls cost the server CPU). */
const LOAD_POLL_MS = Number(process.env.BENCH_LOAD_POLL_MS ?? 100);
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';
const HOT = 200;
const GOAL_REST = 1.1;
const GOAL_SQL = 1.05;
const GOAL_LOAD = 0.5;

export interface Case {
  name: string;
  aql: string;
  sql: string;
}

const FA = 'ds_flights f LEFT JOIN ds_airports a ON a.iata = f.origin';
const MONTH = `DATE_TRUNC("month", [Date])`;
const RANK = 'RANK() OVER (PARTITION BY [State] ORDER BY COUNT([Distance]) DESC)';

/** The issue's six shapes, a count by key, two windows and a relative date window. */
export const CASES: Case[] = [
  {
    name: 'join breakdown',
    aql: 'SELECT [State], SUM([Distance]) AS "Miles", COUNT([Distance]) AS "Flights", AVG([Delay]) AS "Avg Delay"',
    sql: `SELECT a.state, sum(f.distance), count(f.distance), avg(f.delay) FROM ${FA}
          GROUP BY a.state ORDER BY a.state NULLS LAST`,
  },
  {
    name: 'monthly series',
    aql: 'SELECT YEAR([Date]), MONTH([Date]), COUNT([Distance]) AS "Flights", AVG([Delay]) AS "Avg Delay"',
    sql: `SELECT year(date) AS y, month(date) AS m, count(distance), avg(delay) FROM ds_flights
          GROUP BY y, m ORDER BY y NULLS LAST, m NULLS LAST`,
  },
  {
    name: 'top 10 with HAVING',
    aql: 'SELECT [Airport Name], COUNT([Distance]) AS "Flights", AVG([Delay]) AS "Avg Delay" HAVING COUNT([Distance]) > 10000 ORDER BY "Avg Delay" DESC LIMIT 10',
    sql: `SELECT a.name, count(f.distance), avg(f.delay) FROM ${FA} GROUP BY a.iata, a.name
          HAVING count(f.distance) > 10000 ORDER BY 3 DESC NULLS LAST LIMIT 10`,
  },
  {
    // Counted by the anchor's key (rows, as count(*)), broken down by a label of a joined key.
    name: 'top 10 by key count (HAVING)',
    aql: 'SELECT [Airport Name], COUNT([Flight]) AS "Flights", AVG([Delay]) AS "Avg Delay" HAVING COUNT([Flight]) > 10000 ORDER BY "Avg Delay" DESC LIMIT 10',
    sql: `SELECT a.name, count(*), avg(f.delay) FROM ${FA} GROUP BY a.iata, a.name
          HAVING count(*) > 10000 ORDER BY 3 DESC NULLS LAST LIMIT 10`,
  },
  {
    name: 'two levels + state totals (BY ALL [Origin])',
    aql: 'SELECT [State], [Origin], COUNT([Distance]) AS "Flights", (SELECT COUNT([Distance]) BY ALL [Origin]) AS "State Flights"',
    sql: `SELECT a.state, f.origin, count(f.distance), sum(count(f.distance)) OVER (PARTITION BY a.state)
          FROM ${FA} GROUP BY a.state, f.origin ORDER BY 1 NULLS LAST, 2 NULLS LAST`,
  },
  {
    name: 'share of total (BY ALL)',
    aql: 'SELECT [State], COUNT([Distance]) / (SELECT COUNT([Distance]) BY ALL) AS "Share"',
    sql: `SELECT a.state, count(f.distance) / sum(count(f.distance)) OVER () FROM ${FA}
          GROUP BY a.state ORDER BY 1 NULLS LAST`,
  },
  {
    name: 'airports per state + miles',
    aql: 'SELECT [State], COUNT([Airport]) AS "Airports", SUM([Distance]) AS "Miles"',
    sql: `WITH ap AS (SELECT state, count(iata) AS n FROM ds_airports GROUP BY state),
          mi AS (SELECT a.state, sum(f.distance) AS miles FROM ${FA} GROUP BY a.state)
          SELECT coalesce(ap.state, mi.state) AS state, ap.n, mi.miles
          FROM ap FULL JOIN mi ON ap.state IS NOT DISTINCT FROM mi.state ORDER BY state NULLS LAST`,
  },
  {
    name: 'window: running total, LAG',
    aql: `SELECT ${MONTH} AS "Month", COUNT([Distance]) AS "Flights", SUM(COUNT([Distance])) OVER (ORDER BY ${MONTH}) AS "Running", COUNT([Distance]) - LAG(COUNT([Distance])) OVER (ORDER BY ${MONTH}) AS "Change"`,
    sql: `SELECT CAST(date_trunc('month', date) AS DATE) AS m, count(distance),
          sum(count(distance)) OVER (ORDER BY m), count(distance) - lag(count(distance)) OVER (ORDER BY m)
          FROM ds_flights GROUP BY m ORDER BY m NULLS LAST`,
  },
  {
    name: 'window: top 3 per state (QUALIFY)',
    aql: `SELECT [State], [Origin], COUNT([Distance]) AS "Flights", ${RANK} AS "Rank" QUALIFY ${RANK} <= 3`,
    sql: `SELECT a.state, f.origin, count(f.distance),
          rank() OVER (PARTITION BY a.state ORDER BY count(f.distance) DESC) AS r
          FROM ${FA} GROUP BY a.state, f.origin QUALIFY r <= 3 ORDER BY 1 NULLS LAST, 2 NULLS LAST`,
  },
  {
    // Issue 32: an aggregation over groups; the hand query aggregates twice, as it must.
    name: 'over groups: flights per day, averaged per state',
    aql: 'SELECT [State], AVG(COUNT([Distance]) BY DATE_TRUNC("day", [Date])) AS "Flights per day"',
    sql: `SELECT state, avg(n) FROM (SELECT a.state, CAST(date_trunc('day', f.date) AS DATE) AS d,
          count(f.distance) AS n FROM ${FA} GROUP BY 1, 2) g GROUP BY state ORDER BY state NULLS LAST`,
  },
  {
    // Issue 32: NEST, the top 5 destinations of each state beside its flights; the hand query
    // reads the rows once and adds the state's flights up from its destinations.
    name: 'nested: top 5 destinations per state',
    aql: 'SELECT [State], COUNT([Distance]) AS "Flights", NEST(SELECT [Destination], COUNT([Distance]) AS "Flights" ORDER BY 2 DESC LIMIT 5) AS "Top destinations"',
    sql: `WITH d AS (SELECT a.state, f.destination, count(f.distance) AS n FROM ${FA} GROUP BY 1, 2),
          r AS (SELECT *, row_number() OVER (PARTITION BY state ORDER BY n DESC, destination) AS rn FROM d)
          SELECT state, sum(n), CAST(to_json(list(struct_pack("Destination" := destination, "Flights" := n) ORDER BY rn)
            FILTER (WHERE rn <= 5)) AS VARCHAR)
          FROM r GROUP BY state ORDER BY state NULLS LAST`,
  },
  {
    name: 'relative window (DATE_ADD)',
    aql: 'SELECT [State], COUNT([Distance]) AS "Flights", AVG([Delay]) AS "Avg Delay" WHERE [Date] >= DATE_ADD("day", -30, "2001-06-30")',
    sql: `SELECT a.state, count(f.distance), avg(f.delay) FROM ${FA}
          WHERE f.date >= DATE '2001-06-30' - INTERVAL 30 DAY GROUP BY a.state ORDER BY a.state NULLS LAST`,
  },
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const toRows = (values: string): string[][] =>
  values === '' ? [] : values.split('\n').map((l) => l.split('\t'));
const fmt = (x: number, d = 2) => Number(x.toFixed(d));

export async function flights(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-bench-flights-'));
  process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
  let t0 = performance.now();
  const files = await flightFiles();
  const mb = (f: string) => (fs.statSync(f).size / 1e6).toFixed(1);
  console.log(
    `\nflights: ${files.flights} (${mb(files.flights)} MB), ${files.airports} (${mb(files.airports)} MB) ready in ${(performance.now() - t0).toFixed(0)} ms`,
  );

  const { config, running } = await startBenchServer(tmp);
  const { engine } = running;
  try {
    const project = running.bootstrap.demoProjectId!;
    const actor = await engine.actor({ email: config.adminEmail }, project);
    const rest = new Rest(running.url, project, await engine.issueToken(config.adminEmail));

    // ---- load: two one-shot uploads, then one job for both files, against DuckDB's own --
    t0 = performance.now();
    await rest.upload(files.airports, 'airports.csv');
    await rest.upload(files.flights, 'flights.csv');
    console.log(`uploaded both files over REST in ${(performance.now() - t0).toFixed(0)} ms`);
    const ursaLoad = async () => {
      const t = performance.now();
      const r = await rest.load(LOAD_POLL_MS);
      if (r.rows.flights !== FLIGHT_ROWS || r.rows.airports !== AIRPORT_ROWS)
        throw new Error(`loaded ${JSON.stringify(r.rows)}`);
      return { ms: performance.now() - t, inJob: r.inJobMs };
    };
    const first = await ursaLoad(); // also the warm-up (file cache, JIT)
    if (LOAD_ROUNDS > 0) {
      await duckdbLoad(files, tmp);
      const ursa: number[] = [];
      const inJob: number[] = [];
      const duck: number[] = [];
      for (let i = 0; i < LOAD_ROUNDS; i++) {
        const u = await ursaLoad();
        ursa.push(u.ms);
        inJob.push(u.inJob);
        duck.push(await duckdbLoad(files, tmp));
      }
      const ratio = median(duck) / median(ursa);
      console.log(
        `\nload of ${FLIGHT_ROWS} flights + ${AIRPORT_ROWS} airports (two files, one job), ${LOAD_ROUNDS} rounds alternating after one warm-up (${first.ms.toFixed(0)} ms), medians, ${os.cpus().length} cores`,
      );
      console.table(
        ursa.map((u, i) => ({
          round: i + 1,
          'Ursa ms': Math.round(u),
          'DuckDB ms': Math.round(duck[i]!),
        })),
      );
      console.log(
        `Ursa transform/execute → OK ${median(ursa).toFixed(0)} ms (${median(inJob).toFixed(0)} ms in the job); DuckDB CREATE TABLE AS read_csv ${median(duck).toFixed(0)} ms; ratio ${ratio.toFixed(2)}× DuckDB's speed (goal ≥ ${GOAL_LOAD}×) ${ratio >= GOAL_LOAD ? 'PASS' : 'BELOW GOAL'}`,
      );
    }

    if (ROUNDS <= 0) return; // the load alone

    // ---- queries -----------------------------------------------------------------------
    const run = (sql: string, params: (string | number | boolean | null)[] = []) =>
      engine.dbs.read(project, async (c) =>
        (await c.runAndReadAll(sql, params)).getRowsJson().map((r) => r.map(formatCell)),
      );
    const timed = async <T>(f: () => Promise<T>) => {
      const t = performance.now();
      const out = await f();
      return { out, ms: performance.now() - t };
    };
    /** What a client does: execute with Prefer: wait; else poll the data link until 200. */
    const viaRest = async (
      aql: string,
    ): Promise<{ rows: string[][]; inline: boolean; job: string }> => {
      const r = await rest.call('POST', '/app/aql/execute', { aql }, { prefer: 'wait=60' });
      const links = (r.json.link ?? []) as { rel: string; href: string; id?: string }[];
      const job = links.find((l) => l.rel.startsWith('scache'))?.id ?? '';
      const data = r.json.data as { values: string } | undefined;
      if (r.status === 200 && data) return { rows: toRows(data.values), inline: true, job };
      if (r.status !== 201 && r.status !== 202)
        throw new Error(`execute answered ${r.status}: ${JSON.stringify(r.json)}`);
      const link = links.find((l) => l.rel === 'data.created')!.href;
      for (;;) {
        const d = await rest.call('GET', link);
        if (d.status === 200)
          return { rows: toRows((d.json.data as { values: string }).values), inline: false, job };
        if (d.status !== 202)
          throw new Error(`data answered ${d.status}: ${JSON.stringify(d.json)}`);
        await sleep(POLL_MS);
      }
    };
    const cold = () => {
      engine.aql.clearResultCache();
      engine.aql.clearCompileCache();
    };

    // Which queries compile and answer like the hand SQL (also warms both sides).
    const ready: { q: Case; sql: string; params: (string | number | boolean | null)[] }[] = [];
    const skipped: { query: string; why: string }[] = [];
    let inline = false;
    for (const q of CASES) {
      let c;
      try {
        c = await engine.aql.compile(actor, q.aql);
      } catch (err) {
        if (!(err instanceof EngineError)) throw err;
        skipped.push({ query: q.name, why: `does not compile yet: ${err.message}` });
        continue;
      }
      const h = await run(q.sql);
      const diff = sameRows(await run(c.sql, c.params), h);
      cold();
      const viaR = await viaRest(q.aql);
      inline ||= viaR.inline;
      const restDiff = sameRows(viaR.rows, h);
      if (diff || restDiff || !h.length) {
        const why = `MISMATCH, not timed: AQL ${diff ? `SQL vs hand SQL: ${diff}` : `over REST vs hand SQL: ${restDiff ?? 'no rows'}`}`;
        skipped.push({ query: q.name, why });
        console.log(`${q.name}: ${why}\n  AQL's SQL: ${c.sql}`);
        continue;
      }
      ready.push({ q, sql: c.sql, params: c.params });
    }

    const results = ready.map(() => ({
      rest: [] as number[],
      inJob: [] as number[],
      shape: [] as number[],
      hand: [] as number[],
      compile: [] as number[],
    }));
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < ready.length; i++) {
        const { q, sql, params } = ready[i]!;
        const r = results[i]!;
        const sides = [
          async () => {
            cold();
            const { out, ms } = await timed(() => viaRest(q.aql));
            r.rest.push(ms);
            // The job's own span (started → finished): the rest is request, queue and polling.
            const j = await engine.jobs.get(actor, out.job);
            r.inJob.push(Date.parse(j.finished!) - Date.parse(j.started!));
          },
          async () => r.shape.push((await timed(() => run(sql, params))).ms),
          async () => r.hand.push((await timed(() => run(q.sql))).ms),
        ];
        for (let k = 0; k < 3; k++) await sides[(round + k) % 3]!();
        // Compilation in the middle of the work (the cache is cold after the REST side).
        engine.aql.clearCompileCache();
        r.compile.push((await timed(async () => engine.aql.compile(actor, q.aql))).ms);
      }
    }
    const hot = ready.map(({ q }) => hotCompileMs(engine.aql, actor, q.aql, HOT));

    // A cached repeat over REST: the stored result answers (the first query of the list).
    const repeat = ready[0]?.q.aql;
    const cachedMs: number[] = [];
    if (repeat) {
      await viaRest(repeat);
      for (let i = 0; i < REPEATS + 20; i++) {
        const t = performance.now();
        await viaRest(repeat);
        if (i >= 20) cachedMs.push(performance.now() - t);
      }
    }

    // ---- report ------------------------------------------------------------------------
    const rows = ready.map(({ q }, i) => {
      const r = results[i]!;
      const hand = median(r.hand);
      const e2e = median(r.rest) / hand;
      const shape = median(r.shape) / hand;
      return {
        query: q.name,
        'REST ms': fmt(median(r.rest)),
        'in job ms': fmt(median(r.inJob)),
        'AQL SQL ms': fmt(median(r.shape)),
        'hand SQL ms': fmt(hand),
        'REST ÷ hand': fmt(e2e, 3),
        'SQL ÷ hand': fmt(shape, 3),
        'compile ms': fmt(median(r.compile), 3),
        'hot compile ms': fmt(hot[i]!, 3),
        goals: `${e2e <= GOAL_REST ? 'ok' : 'REST ABOVE'} / ${shape <= GOAL_SQL ? 'ok' : 'SQL ABOVE'}`,
      };
    });
    console.log(
      `\nbench:aql flights — ${FLIGHT_ROWS} flights, ${AIRPORT_ROWS} airports; ${ROUNDS} rounds (3 sides rotating), medians, ${os.cpus().length} cores; REST = execute with Prefer: wait=60, cold result cache (${inline ? 'answered inline' : `no inline answer yet: polled every ${POLL_MS} ms`})`,
    );
    console.table(rows);
    for (const s of skipped) console.log(`${s.query}: ${s.why}`);
    if (rows.length) {
      const geo = (k: 'REST ÷ hand' | 'SQL ÷ hand') =>
        Math.exp(rows.reduce((s, r) => s + Math.log(r[k]), 0) / rows.length);
      const worst = Math.max(...rows.map((r) => r['compile ms']));
      console.log(
        `REST ÷ hand: geometric mean ${geo('REST ÷ hand').toFixed(3)}×, ${rows.filter((r) => r['REST ÷ hand'] <= GOAL_REST).length}/${rows.length} within ${GOAL_REST}×; AQL's SQL ÷ hand: geometric mean ${geo('SQL ÷ hand').toFixed(3)}×, ${rows.filter((r) => r['SQL ÷ hand'] <= GOAL_SQL).length}/${rows.length} within ${GOAL_SQL}×`,
      );
      console.log(
        `compile (cache cleared): worst query ${worst.toFixed(3)} ms (goal < 1 ms) ${worst < 1 ? 'PASS' : 'ABOVE GOAL'}`,
      );
      const c = median(cachedMs);
      console.log(
        `cached repeat over REST ("${repeat}"): median ${c.toFixed(2)} ms, p95 ${quantile(cachedMs, 0.95).toFixed(2)} ms over ${REPEATS} (goal < 5 ms) ${c < 5 ? 'PASS' : 'ABOVE GOAL'}`,
      );
    }

    if (EXPLAIN) {
      const plan = (sql: string, params: (string | number | boolean | null)[] = []) =>
        engine.dbs.read(project, async (cn) =>
          (await cn.runAndReadAll(`EXPLAIN ANALYZE ${sql}`, params))
            .getRowsJson()
            .map((r) => String(r[1]))
            .join('\n'),
        );
      for (let i = 0; i < ready.length; i++) {
        const { q, sql, params } = ready[i]!;
        if (rows[i]!['SQL ÷ hand'] <= GOAL_SQL) {
          console.log(`\n==== ${q.name} (within the goal)\n-- AQL SQL:\n${sql}`);
          continue;
        }
        console.log(`\n==== ${q.name}\n-- AQL SQL:\n${sql}\n${await plan(sql, params)}`);
        console.log(`-- hand-written:\n${q.sql}\n${await plan(q.sql)}`);
      }
    }
  } finally {
    await running.close();
  }
}
