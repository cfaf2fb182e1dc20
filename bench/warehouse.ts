// bench:warehouse — AQL on a warehouse project against hand-written PostgreSQL, on the flights
// of bench:aql (3,000,000 rows, vega-datasets) copied into a throwaway PostgreSQL 15
// (scripts/throwaway-postgres.ts; `psql \copy`, then ANALYZE). A server starts in-process with two
// projects: one bound to the PostgreSQL schema (the tables mapped with the same prescriptions
// as bench:aql), one embedded with the same files loaded into DuckDB. Per query, four sides
// in a rotating order:
//   REST   — POST app/aql/execute on the warehouse project, Prefer: wait=120, cold result and
//            compile caches, goal ≤ 1.10× hand SQL;
//   shape  — AQL's generated PostgreSQL alone on the warehouse's connection pool, goal ≤ 1.05×;
//   hand   — the hand-written PostgreSQL on the same pool;
//   DuckDB — the same AQL over REST on the embedded project (printed beside: what moving the
//            data costs or saves).
// Answers are compared first (AQL's SQL, the REST answer, the hand SQL and DuckDB's).
// Settings: BENCH_WAREHOUSE_ROUNDS (default 5), BENCH_EXPLAIN=1 (EXPLAIN ANALYZE of both
// PostgreSQL sides for queries above the SQL goal).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startPostgres } from '../scripts/throwaway-postgres.js';
import { CASES } from './aql-flights.js';
import { median, sameRows, startBenchServer } from './compare.js';
import { FLIGHT_PRESCRIPTIONS, FLIGHT_ROWS, flightFiles, Rest } from './flights-data.js';

const ROUNDS = Number(process.env.BENCH_WAREHOUSE_ROUNDS ?? 5);
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';
const GOAL_REST = 1.1;
const GOAL_SQL = 1.05;

const FA = 'bench.flights f LEFT JOIN bench.airports a ON a.iata = f.origin';
const MONTH = `CAST(date_trunc('month', date) AS DATE)`;

/** The hand-written PostgreSQL of each case of bench:aql (same answers). */
const HAND: Record<string, string> = {
  'join breakdown': `SELECT a.state, sum(f.distance), count(f.distance), avg(f.delay) FROM ${FA}
    GROUP BY a.state ORDER BY a.state NULLS LAST`,
  'monthly series': `SELECT EXTRACT(YEAR FROM date)::int AS y, EXTRACT(MONTH FROM date)::int AS m,
    count(distance), avg(delay) FROM bench.flights GROUP BY 1, 2 ORDER BY 1 NULLS LAST, 2 NULLS LAST`,
  'top 10 with HAVING': `SELECT a.name, count(f.distance), avg(f.delay) FROM ${FA}
    GROUP BY a.iata, a.name HAVING count(f.distance) > 10000 ORDER BY 3 DESC NULLS LAST LIMIT 10`,
  'top 10 by key count (HAVING)': `SELECT a.name, count(*), avg(f.delay) FROM ${FA}
    GROUP BY a.iata, a.name HAVING count(*) > 10000 ORDER BY 3 DESC NULLS LAST LIMIT 10`,
  'two levels + state totals (BY ALL [Origin])': `SELECT a.state, f.origin, count(f.distance),
    sum(count(f.distance)) OVER (PARTITION BY a.state) FROM ${FA}
    GROUP BY a.state, f.origin ORDER BY 1 NULLS LAST, 2 NULLS LAST`,
  'share of total (BY ALL)': `SELECT a.state, count(f.distance)::float8 / sum(count(f.distance)) OVER ()
    FROM ${FA} GROUP BY a.state ORDER BY 1 NULLS LAST`,
  // FULL JOIN needs an equality: states compared with their nullness, as one would by hand.
  'airports per state + miles': `WITH ap AS (SELECT state, count(iata) AS n FROM bench.airports GROUP BY state),
    mi AS (SELECT a.state, sum(f.distance) AS miles FROM ${FA} GROUP BY a.state)
    SELECT coalesce(ap.state, mi.state) AS state, ap.n, mi.miles FROM ap FULL JOIN mi
      ON coalesce(ap.state, '') = coalesce(mi.state, '') AND (ap.state IS NULL) = (mi.state IS NULL)
    ORDER BY state NULLS LAST`,
  'window: running total, LAG': `SELECT ${MONTH} AS m, count(distance),
    sum(count(distance)) OVER (ORDER BY ${MONTH}),
    count(distance) - lag(count(distance)) OVER (ORDER BY ${MONTH})
    FROM bench.flights GROUP BY 1 ORDER BY 1 NULLS LAST`,
  'window: top 3 per state (QUALIFY)': `SELECT state, origin, n, r FROM (
      SELECT a.state, f.origin, count(f.distance) AS n,
        rank() OVER (PARTITION BY a.state ORDER BY count(f.distance) DESC) AS r
      FROM ${FA} GROUP BY a.state, f.origin) q
    WHERE r <= 3 ORDER BY 1 NULLS LAST, 2 NULLS LAST`,
  'over groups: flights per day, averaged per state': `SELECT state, avg(n) FROM (
      SELECT a.state, CAST(date_trunc('day', f.date) AS DATE) AS d, count(f.distance) AS n
      FROM ${FA} GROUP BY 1, 2) g GROUP BY state ORDER BY state NULLS LAST`,
  'nested: top 5 destinations per state': `WITH d AS (SELECT a.state, f.destination, count(f.distance) AS n
      FROM ${FA} GROUP BY 1, 2),
    r AS (SELECT *, row_number() OVER (PARTITION BY state ORDER BY n DESC, destination) AS rn FROM d)
    SELECT state, sum(n), CAST(json_agg(json_build_object('Destination', destination, 'Flights', n)
      ORDER BY rn) FILTER (WHERE rn <= 5) AS text)
    FROM r GROUP BY state ORDER BY state NULLS LAST`,
  'relative window (DATE_ADD)': `SELECT a.state, count(f.distance), avg(f.delay) FROM ${FA}
    WHERE f.date >= DATE '2001-06-30' - 30 GROUP BY a.state ORDER BY a.state NULLS LAST`,
};

const PG_TYPES: Record<string, string> = {
  integer: 'bigint',
  number: 'double precision',
  datetime: 'timestamp',
  date: 'date',
  string: 'text',
};

const fmt = (x: number, d = 2) => Number(x.toFixed(d));
const toRows = (values: string): string[][] =>
  values === '' ? [] : values.split('\n').map((l) => l.split('\t'));

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-bench-wh-'));
  process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
  const files = await flightFiles();
  const db = await startPostgres({ reader: true });
  try {
    // ---- the PostgreSQL copy --------------------------------------------------------
    let t0 = performance.now();
    const url = `postgresql://${db.user}:${db.password}@${db.host}:${db.port}/${db.database}`;
    const owner = new pg.Client({ connectionString: url });
    await owner.connect();
    await owner.query('CREATE SCHEMA bench');
    for (const [name, file] of Object.entries(files)) {
      const p = FLIGHT_PRESCRIPTIONS[name as keyof typeof files];
      const header = fs.readFileSync(file, 'utf8').slice(0, 1000).split('\n')[0]!.split(',');
      const byId = new Map(p.columns.map((c) => [c.id, c]));
      const cols = header.map((h) => `"${h}" ${PG_TYPES[byId.get(h)?.dataType ?? 'string']}`);
      await owner.query(`CREATE TABLE bench.${name} (${cols.join(', ')})`);
      execFileSync('psql', [url, '-q', '-c', `\\copy bench.${name} FROM '${file}' CSV HEADER`]);
      await owner.query(`ALTER TABLE bench.${name} ADD PRIMARY KEY (${p.primarykey})`);
    }
    await owner.query('ANALYZE');
    await owner.query(`GRANT USAGE ON SCHEMA bench TO ${db.reader!.user}`);
    await owner.query(`GRANT SELECT ON ALL TABLES IN SCHEMA bench TO ${db.reader!.user}`);
    console.log(
      `PostgreSQL copy of ${FLIGHT_ROWS} flights ready in ${(performance.now() - t0).toFixed(0)} ms`,
    );

    const { config, running } = await startBenchServer(tmp, {
      URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1',
      URSA_WAREHOUSE_CACHE_SECONDS: '0',
      URSA_WAREHOUSE_TIMEOUT_SECONDS: '600',
    });
    const { engine } = running;
    try {
      const token = await engine.issueToken(config.adminEmail);
      // ---- the embedded project (DuckDB) --------------------------------------------
      const duck = new Rest(running.url, running.bootstrap.demoProjectId!, token);
      t0 = performance.now();
      await duck.upload(files.airports, 'airports.csv');
      await duck.upload(files.flights, 'flights.csv');
      await duck.load(100);
      console.log(`embedded project loaded in ${(performance.now() - t0).toFixed(0)} ms`);

      // ---- the warehouse project ------------------------------------------------------
      const admin = new Rest(running.url, '', token);
      const created = await admin.call('POST', '/api/v1/projects', {
        id: 'flights-wh',
        label: 'Flights warehouse',
        entity: 'default',
      });
      if (created.status !== 201) throw new Error(`project: ${JSON.stringify(created.json)}`);
      const whId = (created.json.project as { id: string }).id;
      const wh = new Rest(running.url, whId, token);
      const cred = await wh.call('POST', '/pmd/obj', {
        ident: 'cred.bench',
        type: 'credentials',
        name: 'Bench warehouse',
        def: {
          kind: 'postgres',
          host: db.host,
          port: db.port,
          database: db.database,
          user: db.reader!.user,
          secret: db.reader!.password,
        },
      });
      if (cred.status !== 201) throw new Error(`credentials: ${JSON.stringify(cred.json)}`);
      const bound = await wh.call('PUT', '', {
        warehouse: { credentials: 'cred.bench', schema: 'bench' },
      });
      if (bound.status !== 200) throw new Error(`binding: ${JSON.stringify(bound.json)}`);
      const mapped = await wh.call('POST', '/kodiak/transform/execute', {
        type: 'cluster',
        clusters: Object.fromEntries(
          Object.entries(FLIGHT_PRESCRIPTIONS).map(([name, prescription]) => [
            name,
            { source_type: 'table', source: `bench.${name}`, prescription },
          ]),
        ),
      });
      if (mapped.status !== 202) throw new Error(`mapping: ${JSON.stringify(mapped.json)}`);
      const job = await engine.jobs.waitFor((mapped.json.link as { id: string }[])[0]!.id);
      if (job.status !== 'OK') throw new Error(`mapping ended ${job.status}: ${job.message}`);
      const actor = await engine.actor({ email: config.adminEmail }, whId);

      // ---- queries --------------------------------------------------------------------
      const onPg = (sql: string, params: unknown[] = []) =>
        engine.warehouse.read(whId, sql, params);
      const timed = async <T>(f: () => Promise<T>) => {
        const t = performance.now();
        const out = await f();
        return { out, ms: performance.now() - t };
      };
      const viaRest = async (rest: Rest, aql: string): Promise<string[][]> => {
        engine.aql.clearResultCache();
        engine.aql.clearCompileCache();
        const r = await rest.call('POST', '/app/aql/execute', { aql }, { prefer: 'wait=120' });
        const data = r.json.data as { values: string } | undefined;
        if (r.status !== 200 || !data)
          throw new Error(`execute answered ${r.status}: ${JSON.stringify(r.json)}`);
        return toRows(data.values);
      };
      const ready: { name: string; aql: string; hand: string; sql: string; params: unknown[] }[] =
        [];
      for (const q of CASES) {
        const hand = HAND[q.name];
        if (!hand) continue;
        const c = await engine.aql.compile(actor, q.aql);
        const h = await onPg(hand);
        const diff =
          sameRows(await onPg(c.sql, c.params), h) ??
          sameRows(await viaRest(wh, q.aql), h) ??
          sameRows(await viaRest(duck, q.aql), h);
        if (diff || !h.length) {
          console.log(
            `${q.name}: MISMATCH, not timed: ${diff ?? 'no rows'}\n  AQL's SQL: ${c.sql}`,
          );
          continue;
        }
        ready.push({ name: q.name, aql: q.aql, hand, sql: c.sql, params: c.params });
      }
      const results = ready.map(() => ({
        rest: [] as number[],
        shape: [] as number[],
        hand: [] as number[],
        duck: [] as number[],
      }));
      for (let round = 0; round < ROUNDS; round++)
        for (let i = 0; i < ready.length; i++) {
          const q = ready[i]!;
          const r = results[i]!;
          const sides = [
            async () => r.rest.push((await timed(() => viaRest(wh, q.aql))).ms),
            async () => r.shape.push((await timed(() => onPg(q.sql, q.params))).ms),
            async () => r.hand.push((await timed(() => onPg(q.hand))).ms),
            async () => r.duck.push((await timed(() => viaRest(duck, q.aql))).ms),
          ];
          for (let k = 0; k < sides.length; k++) await sides[(round + k) % sides.length]!();
        }

      const rows = ready.map((q, i) => {
        const r = results[i]!;
        const hand = median(r.hand);
        const e2e = median(r.rest) / hand;
        const shape = median(r.shape) / hand;
        return {
          query: q.name,
          'REST ms': fmt(median(r.rest)),
          'AQL SQL ms': fmt(median(r.shape)),
          'hand SQL ms': fmt(hand),
          'REST ÷ hand': fmt(e2e, 3),
          'SQL ÷ hand': fmt(shape, 3),
          'DuckDB REST ms': fmt(median(r.duck)),
          goals: `${e2e <= GOAL_REST ? 'ok' : 'REST ABOVE'} / ${shape <= GOAL_SQL ? 'ok' : 'SQL ABOVE'}`,
        };
      });
      console.log(
        `\nbench:warehouse — ${FLIGHT_ROWS} flights on PostgreSQL ${db.port}; ${ROUNDS} rounds (4 sides rotating), medians, ${os.cpus().length} cores; REST = execute with Prefer: wait, cold caches`,
      );
      console.table(rows);
      if (rows.length) {
        const geo = (k: 'REST ÷ hand' | 'SQL ÷ hand') =>
          Math.exp(rows.reduce((s, r) => s + Math.log(r[k]), 0) / rows.length);
        console.log(
          `REST ÷ hand: geometric mean ${geo('REST ÷ hand').toFixed(3)}×, ${rows.filter((r) => r['REST ÷ hand'] <= GOAL_REST).length}/${rows.length} within ${GOAL_REST}×; AQL's SQL ÷ hand: geometric mean ${geo('SQL ÷ hand').toFixed(3)}×, ${rows.filter((r) => r['SQL ÷ hand'] <= GOAL_SQL).length}/${rows.length} within ${GOAL_SQL}×`,
        );
      }
      if (EXPLAIN)
        for (let i = 0; i < ready.length; i++) {
          const q = ready[i]!;
          if (rows[i]!['SQL ÷ hand'] <= GOAL_SQL) continue;
          const plan = async (sql: string, params: unknown[]) =>
            (await onPg(`EXPLAIN ANALYZE ${sql}`, params)).map((r) => r[0]).join('\n');
          console.log(`\n==== ${q.name}\n-- AQL SQL:\n${q.sql}\n${await plan(q.sql, q.params)}`);
          console.log(`-- hand-written:\n${q.hand}\n${await plan(q.hand, [])}`);
        }
    } finally {
      await running.close();
      await owner.end();
    }
  } finally {
    await db.stop();
  }
}

await main();
