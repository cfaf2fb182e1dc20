// AQL fuzzing (issue 4): 10,000 generated and mutated queries, each of which must compile to
// SQL that runs, or be rejected with a 400-kind error that says where — never a crash, a
// 500, a DuckDB error on compiled SQL, or a hang. In-process for speed, plus a few hundred
// through the real HTTP execute → poll → data round trip.
//
// Reproduce a failure with the seed fast-check prints: AQL_FUZZ_SEED=<seed> npx vitest run
// test/aql-fuzz.test.ts. AQL_FUZZ_RUNS changes the number of runs.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectActor } from '../src/engine/access/actor.js';
import type { Compiled } from '../src/engine/aql/compile.js';
import { formatCell } from '../src/engine/aql/format.js';
import { EngineError } from '../src/engine/errors.js';
import { actorOf, addSaved, vocabulary, waitForDemo } from './helpers/aql-demo.js';
import {
  extremeArbitrary,
  looseQueryArbitrary,
  mutatedArbitrary,
  typedQueryArbitrary,
  type Vocabulary,
} from './helpers/aql-gen.js';
import { isFinal, jobPath, sleep, type JobJson } from './helpers/jobs.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';

const RUNS = Number(process.env.AQL_FUZZ_RUNS ?? 10_000);
const HTTP_RUNS = 300;
// CI runs one fixed seed, so main stays reproducibly green; elsewhere every run explores a new
// part of the space (fast-check prints the seed of a failure).
const SEED = process.env.AQL_FUZZ_SEED
  ? Number(process.env.AQL_FUZZ_SEED)
  : process.env.CI === 'true'
    ? 20261122
    : undefined;
/** A query that has not answered by then hangs. */
const QUERY_TIMEOUT_MS = 10_000;
/**
 * A "hang" in compiling (exponential parsing would take minutes) is a compile slower than
 * this; generous, as the model is read from the metadata store, which another suite on the
 * same cores can slow.
 */
const COMPILE_LIMIT_MS = 5_000;
const MEMBER = 'fuzz-member@example.com';
const MEMBER_FILTER = '[Origin State] = "CA" OR [Origin Region] IN ("Midwest")';

/**
 * Execution failures that depend on the data, not on the SQL being wrong: arithmetic that
 * overflows. These end a job with ERROR and a message (AQL.md §9), a 400 on its data.
 */
const DATA_DEPENDENT = /^Out of Range Error: Overflow in /;

const shown = (text: string) =>
  JSON.stringify(text.length > 400 ? `${text.slice(0, 400)}…(${text.length} chars)` : text);

function arbitrary(v: Vocabulary): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: typedQueryArbitrary(v), weight: 30 },
    { arbitrary: looseQueryArbitrary(v), weight: 15 },
    { arbitrary: mutatedArbitrary(v), weight: 45 },
    { arbitrary: extremeArbitrary, weight: 10 },
  );
}

describe('AQL fuzzing', () => {
  let s: TestServer;
  let v: Vocabulary;
  let admin: ProjectActor;
  let member: ProjectActor;
  const stats = { compiled: 0, rejected: 0, executed: 0, dataDependent: 0 };
  /** SQL already run (with its parameters): the same SQL needs no second run. */
  const ran = new Set<string>();

  beforeAll(async () => {
    s = await startTestServer({ URSA_DEMO_DATA: 'true' });
    await waitForDemo(s);
    await addSaved(s);
    await invite(s, s.demo, MEMBER, { filter: MEMBER_FILTER });
    v = await vocabulary(s);
    admin = await actorOf(s, ADMIN);
    member = await actorOf(s, MEMBER);
    // Stored by identifier (it survives renames); shown with titles over the API.
    expect(member.filter).toBe(
      '[attr.airports.state] = "CA" OR [attr.airports.region] IN ("Midwest")',
    );
    expect(v.attributes.length).toBeGreaterThan(10);
    expect(v.facts.length).toBeGreaterThan(2);
  });
  afterAll(() => s?.close());

  /** Runs compiled SQL on the project's DuckDB with a timeout; cells formatted as results are. */
  function execute(c: Compiled): Promise<string[][]> {
    return s.engine.dbs.read(s.demo, async (conn) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          conn.interrupt();
          reject(new Error(`hang: no answer in ${QUERY_TIMEOUT_MS} ms`));
        }, QUERY_TIMEOUT_MS);
      });
      try {
        const reader = await Promise.race([conn.runAndReadAll(c.sql, c.params), timeout]);
        return reader.getRowsJson().map((r) => r.map(formatCell));
      } finally {
        clearTimeout(timer);
      }
    });
  }

  /** The invariant: a result, or a 400 with a position. Throws (with the query) otherwise. */
  async function check(text: string, actor: ProjectActor): Promise<void> {
    const who = actor.filter ? 'member with a row filter' : 'admin';
    const started = performance.now();
    let c: Compiled;
    try {
      c = await s.engine.aql.compile(actor, text);
    } catch (err) {
      const ms = performance.now() - started;
      if (!(err instanceof EngineError) || err.kind !== 'invalid')
        throw new Error(
          `compile threw ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)} — not a 400 — as ${who} for ${shown(text)}`,
          { cause: err },
        );
      const ctx = err.context as { line?: unknown; column?: unknown; found?: unknown };
      if (
        !err.message ||
        typeof ctx.line !== 'number' ||
        typeof ctx.column !== 'number' ||
        ctx.line < 1 ||
        ctx.column < 1 ||
        typeof ctx.found !== 'string'
      )
        throw new Error(
          `400 without a position (${err.message}; ${JSON.stringify(ctx)}) for ${shown(text)}`,
          { cause: err },
        );
      if (ms > COMPILE_LIMIT_MS)
        throw new Error(`rejecting took ${Math.round(ms)} ms for ${shown(text)}`, { cause: err });
      stats.rejected++;
      return;
    }
    const ms = performance.now() - started;
    if (ms > COMPILE_LIMIT_MS)
      throw new Error(`compiling took ${Math.round(ms)} ms for ${shown(text)}`);
    stats.compiled++;
    const key = `${c.sql}\u0000${JSON.stringify(c.params)}`;
    if (ran.has(key)) return;
    let rows: string[][];
    try {
      rows = await execute(c);
    } catch (err) {
      const message = String((err as Error).message ?? err);
      if (DATA_DEPENDENT.test(message)) {
        stats.dataDependent++;
        ran.add(key);
        return;
      }
      throw new Error(
        `compiled SQL failed in DuckDB (the compiler must reject it with a 400) as ${who}: ${message.split('\n')[0]}\n  query: ${shown(text)}\n  sql: ${c.sql.slice(0, 2000)}\n  params: ${JSON.stringify(c.params).slice(0, 500)}`,
        { cause: err },
      );
    }
    ran.add(key);
    stats.executed++;
    for (const row of rows)
      if (row.length !== c.columns.length)
        throw new Error(
          `a row has ${row.length} cells for ${c.columns.length} columns: ${shown(text)}`,
        );
  }

  it(`${RUNS} generated and mutated queries compile and run, or answer a 400`, async () => {
    const property = fc.asyncProperty(arbitrary(v), fc.boolean(), (text, asMember) =>
      check(text, asMember ? member : admin),
    );
    await fc.assert(property, {
      numRuns: RUNS,
      ...(SEED !== undefined ? { seed: SEED } : {}),
      // Shrinking re-runs queries; keep a failure report quick enough to read.
      interruptAfterTimeLimit: 170_000,
      markInterruptAsFailure: true,
    });
    console.log(`AQL fuzz: ${RUNS} queries`, stats);
    // The generator must reach the executor often, or the test proves little.
    expect(stats.compiled).toBeGreaterThan(RUNS / 5);
    expect(stats.rejected).toBeGreaterThan(RUNS / 5);
  }, 180_000);

  it('known edge cases (found by fuzzing) compile to SQL that runs, or answer a 400', async () => {
    const cases = [
      'SELECT [Origin] WHERE [Flight Date] = "abc"',
      'SELECT [Origin] WHERE [Flight Date] = "2024-02-30"',
      'SELECT [Origin] WHERE [Flight Date] = 5',
      'SELECT [Origin] WHERE [Flight Date] > 2024',
      'SELECT [Origin] WHERE [Flight Date] IN (5)',
      'SELECT [Origin] WHERE TODAY() > "abc"',
      'SELECT [Origin] WHERE [Cancelled] = "x"',
      'SELECT [Origin] WHERE [Origin] = TRUE',
      'SELECT [Origin] WHERE [Origin] > [Distance]',
      'SELECT [Origin] WHERE [Origin] = [Distance]',
      'SELECT [Origin] WHERE [Flight Date] = [Origin]',
      'SELECT [Origin] WHERE [Origin] LIKE [Distance]',
      'SELECT [Origin] WHERE [Origin]',
      'SELECT [Origin] WHERE "abc"',
      'SELECT [Origin] WHERE NOT [Origin]',
      'SELECT [Origin] HAVING [Origin]',
      'SELECT [Origin] ORDER BY [Origin] + 1',
      'SELECT [Origin], SUM([Distance]) ORDER BY 1.5',
      'SELECT [Origin] LIMIT 1e400',
      'SELECT [Origin] LIMIT 99999999999999999999',
      'SELECT [Origin] LIMIT 5 OFFSET 1e30',
      'SELECT SUM([Origin])',
      'SELECT SUM([Flight Date])',
      'SELECT AVG([Cancelled])',
      'SELECT SUM([Distance] + [Origin])',
      'SELECT SUM(IFNULL([Origin], 1))',
      'SELECT MAX([Origin]) + 1',
      'SELECT MAX([Origin]) > 5',
      'SELECT [Origin] WHERE IFNULL(1, [Origin]) = 1',
      'SELECT CASE WHEN 1=1 THEN "a" ELSE SUM([Distance]) END',
      'SELECT ROUND(SUM([Distance]), 100000000000000000000)',
      'SELECT ROUND(SUM([Distance]), 1e400)',
      'SELECT SUM([Distance]) * 1e308 * 1e308',
      'SELECT SUM([Distance]) + 1e400',
      'SELECT SUM([Passengers] * 99999999999999999)',
      'SELECT SUM([Distance]) WHERE [Distance] > "0x10"',
      'SELECT SUM([Distance]) WHERE [Distance] > " 5 "',
      'SELECT [Origin] WHERE 1 = "1"',
      'SELECT [Origin] WHERE "1" IN (1, [Origin])',
      'SELECT [Origin City] ORDER BY TRUE, 1',
      'SELECT [Origin City] ORDER BY (5) DESC',
      'SELECT [Origin City], SUM([Distance]) ORDER BY NULL, -2',
      `SELECT ${'('.repeat(5000)}SUM([Distance])${')'.repeat(5000)}`,
      `SELECT SUM([Distance]) * ${'-'.repeat(30_000)}1`,
      `SELECT [Origin] WHERE ${'NOT '.repeat(20_000)}[Origin] = "SFO"`,
      `SELECT ${'SUM([Distance]) + '.repeat(2000)}1`,
      `SELECT [${'x'.repeat(99_990)}]`,
      // Version 2
      'SELECT [Origin], SUM([Distance]) QUALIFY SUM([Distance]) > 1',
      'SELECT [Origin] QUALIFY [Origin] = "SFO"',
      'SELECT [Origin], RANK() OVER (ORDER BY [Origin] ROWS 5 FOLLOWING)',
      'SELECT [Origin], LAG(SUM([Distance]), 99999999999999999999) OVER (ORDER BY [Origin])',
      'SELECT [Origin], LAG([Origin], 1, 5) OVER (ORDER BY [Origin])',
      'SELECT [Origin], SUM(SUM([Distance])) OVER (ORDER BY [Origin] RANGE BETWEEN 3 PRECEDING AND 1 FOLLOWING)',
      'SELECT [Origin], SUM(SUM([Distance])) OVER (PARTITION BY [Origin State])',
      'SELECT [Origin], COUNT([Flight]) ORDER BY RANK() OVER (ORDER BY COUNT([Flight]) DESC)',
      'SELECT DATE_TRUNC("month", "2024-02-30"), COUNT([Flight])',
      'SELECT DATE_ADD("day", 1e400, [Flight Date]), COUNT([Flight])',
      'SELECT DATE_ADD("year", 999999999, [Flight Date]), COUNT([Flight])',
      'SELECT DATE_DIFF("day", [Origin], [Flight Date]), COUNT([Flight])',
      'SELECT [Flight Date] + [Flight Date], COUNT([Flight])',
      'SELECT [Flight Date] - "2024-01-01", COUNT([Flight])',
      'SELECT LEFT([Origin], -1), SUBSTRING([Origin], 0, 99999999999), COUNT([Flight])',
      'SELECT PERCENTILE([Distance], 0.5 + 0.1), COUNT([Flight])',
      'SELECT PERCENTILE([Flight Date], 0.5)',
      'SELECT STDDEV([Origin])',
      'SELECT COUNT_DISTINCT([Distance] + 1)',
      'SELECT LEAST([Origin], [Distance]), COUNT([Flight])',
      'SELECT [Origin] || 1 || [Flight Date] || NULL, COUNT([Flight])',
      'SELECT NULLIF([Origin], NULL), COALESCE(NULL, NULL), COUNT([Flight])',
    ];
    for (const text of cases) {
      await check(text, admin);
      await check(text, member);
    }
  });

  it(`${HTTP_RUNS} queries through HTTP execute, poll and data never answer 500`, async () => {
    const texts = fc.sample(arbitrary(v), { numRuns: HTTP_RUNS, seed: SEED ?? 4242 });
    const seen = { created: 0, invalid: 0, ok: 0, error: 0 };
    const one = async (text: string, i: number) => {
      const as = i % 2 ? MEMBER : ADMIN;
      const r = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
        as,
        body: { aql: text },
      });
      if (r.status === 400) {
        expect(r.json.context, `no position for ${shown(text)}`).toMatchObject({
          line: expect.any(Number),
          column: expect.any(Number),
        });
        seen.invalid++;
        return;
      }
      expect(r.status, `execute ${shown(text)}: ${r.text.slice(0, 500)}`).toBe(201);
      seen.created++;
      const jobLink = (r.json.link as { rel: string; href: string }[]).find(
        (l) => l.rel === 'scache.created',
      )!;
      const dataLink = (r.json.link as { rel: string; href: string }[]).find(
        (l) => l.rel === 'data.created',
      )!;
      const jobId = jobLink.href.split('/').pop()!;
      let job: JobJson;
      const deadline = Date.now() + QUERY_TIMEOUT_MS;
      for (;;) {
        const j = await s.api('GET', jobPath(s.demo, jobId), { as });
        expect(j.status, j.text).toBe(200);
        job = j.json as JobJson;
        if (isFinal(job)) break;
        if (Date.now() > deadline) throw new Error(`job hangs for ${shown(text)}`);
        await sleep(10);
      }
      const d = await s.api('GET', dataLink.href, { as });
      if (job.status === 'OK') {
        expect(d.status, `data of ${shown(text)}: ${d.text.slice(0, 300)}`).toBe(200);
        seen.ok++;
      } else {
        expect(job.status, `${shown(text)}: ${job.message}`).toBe('ERROR');
        expect(job.message, shown(text)).toMatch(/Overflow/);
        expect(d.status, d.text).toBe(400);
        seen.error++;
      }
    };
    // Four at a time: the server runs two jobs at once, the rest wait (PREPARED).
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < texts.length) {
          const i = next++;
          await one(texts[i]!, i);
        }
      }),
    );
    expect(seen.created).toBeGreaterThan(HTTP_RUNS / 5);
    expect(seen.invalid).toBeGreaterThan(HTTP_RUNS / 5);
  }, 120_000);
});
