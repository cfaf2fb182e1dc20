// AQL over REST: execute → 201 with the job and data links; polling; the data before the job
// is OK (202 with the job link) and after ERROR (400 with the job's message); CSV and TSV;
// validation errors at once with their position; the result cache (repeats, other callers'
// row filters, invalidation by data loads and model changes); job privacy; explain; and
// the cell format.
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobContext } from '../src/engine/jobs/jobs.js';
import { actorOf, addSaved, rowsOf, runQuery, waitForDemo } from './helpers/aql-demo.js';
import {
  deferred,
  gateOrAbort,
  jobPath,
  jobsPath,
  pollJob,
  sleep,
  type Deferred,
  type JobJson,
} from './helpers/jobs.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

const CA = 'rest-ca@example.com';
const ALICE = 'alice@example.com';
const BOB = 'bob@example.com';

type Link = { rel: string; href: string; id?: string };
const linkOf = (links: Link[], rel: string) => {
  const l = links.find((x) => x.rel === rel);
  if (!l) throw new Error(`no ${rel} link in ${JSON.stringify(links)}`);
  return l;
};

describe('AQL over REST', () => {
  let s: TestServer;
  const execute = (aql: string, as: string = ADMIN) =>
    s.api('POST', `/projects/${s.demo}/app/aql/execute`, { as, body: { aql } });

  beforeAll(async () => {
    // One job at a time: a job the test holds keeps a query waiting, deterministically.
    s = await startTestServer({ URSA_DEMO_DATA: 'true', URSA_JOB_CONCURRENCY: '1' });
    await waitForDemo(s);
    await addSaved(s);
    await invite(s, s.demo, CA, { filter: '[Origin State] = "CA"' });
    await invite(s, s.demo, ALICE);
    await invite(s, s.demo, BOB);
  });
  afterAll(() => s?.close());

  /** Occupies the only job slot until the returned gate opens. */
  async function holdJobSlot(): Promise<Deferred> {
    const gate = deferred();
    s.engine.jobs.register('ai', { run: (ctx: JobContext) => gateOrAbort(gate.promise, ctx) });
    const blocker = await s.engine.jobs.submit(await actorOf(s, ADMIN), 'ai', {});
    await pollJob(s.api, s.demo, blocker.id, (j) => j.status === 'RUNNING');
    return gate;
  }

  it('execute answers 201 with scache.created and data.created links and a Location', async () => {
    const r = await execute('SELECT [Origin Region], COUNT([Flight]) AS "Flights"');
    expect(r.status, r.text).toBe(201);
    const links = r.json.link as Link[];
    const job = linkOf(links, 'scache.created');
    const data = linkOf(links, 'data.created');
    expect(job.href).toBe(`/api/v1${jobPath(s.demo, job.id!)}`);
    expect(data.href).toBe(`/api/v1/projects/${s.demo}/app/aql/data/${job.id}`);
    expect(data.id).toBe(job.id);
    expect(r.headers.get('location')).toBe(data.href);
    // Polling the job until it is final; the job links its result too.
    const final = await pollJob(s.api, s.demo, job.id!, (j) => j.status === 'OK');
    expect(final.type).toBe('report');
    expect(linkOf(final.link, 'data.created').href).toBe(data.href);
    const d = await s.api('GET', data.href);
    expect(d.status, d.text).toBe(200);
    expect(d.json.data.visual.column).toEqual([{ title: 'Origin Region' }, { title: 'Flights' }]);
    const rows = (d.json.data.values as string).split('\n').map((l) => l.split('\t'));
    expect(rows.map((x) => x[0])).toEqual(['Midwest', 'Northeast', 'South', 'West']);
    expect(rows.every((x) => /^\d+$/.test(x[1]!))).toBe(true);
  });

  it('GET data before the job is OK answers 202 with the job link; then the result', async () => {
    const gate = await holdJobSlot();
    try {
      const r = await execute('SELECT [Origin State], MAX([Distance]) AS "Longest"');
      expect(r.status, r.text).toBe(201);
      expect(r.json.status).toBe('PREPARED');
      const data = linkOf(r.json.link, 'data.created');
      const job = linkOf(r.json.link, 'scache.created');
      const early = await s.api('GET', data.href);
      expect(early.status, early.text).toBe(202);
      expect(early.json.status).toBe('PREPARED');
      expect(linkOf(early.json.link, 'scache').href).toBe(job.href);
      // Asked for as CSV, a pending result is still a 202 (not a 406 or an empty file).
      const csv = await s.api('GET', `${data.href}?format=csv`, { accept: 'text/csv' });
      expect(csv.status, csv.text).toBe(202);
      gate.resolve();
      await pollJob(s.api, s.demo, job.id!, (j) => j.status === 'OK');
      const done = await s.api('GET', data.href);
      expect(done.status, done.text).toBe(200);
      expect(done.json.data.visual.column[1]).toEqual({ title: 'Longest' });
    } finally {
      gate.resolve();
    }
  });

  it('GET data after ERROR answers 400 with the job message', async () => {
    // Valid AQL whose arithmetic overflows on this data: an execution failure.
    const r = await execute(
      'SELECT SUM([Passengers]) * 9007199254740991 * 9007199254740991 * 9007199254740991',
    );
    expect(r.status, r.text).toBe(201);
    const job = await pollJob(
      s.api,
      s.demo,
      linkOf(r.json.link, 'scache.created').id!,
      (j) => j.status === 'OK' || j.status === 'ERROR',
    );
    expect(job.status).toBe('ERROR');
    expect(job.message).toMatch(/^the query failed while running: .*Overflow/);
    const d = await s.api('GET', linkOf(r.json.link, 'data.created').href);
    expect(d.status, d.text).toBe(400);
    expect(d.json.message).toBe(job.message);
    expect(d.json.context).toMatchObject({ id: job.id, status: 'ERROR' });
  });

  it('a cancelled query answers 409 on its data', async () => {
    const gate = await holdJobSlot();
    try {
      const r = await execute('SELECT [Carrier Name], MIN([Distance])');
      const job = linkOf(r.json.link, 'scache.created');
      const c = await s.api('POST', `${job.href}/cancel`);
      if (c.status === 404) return; // no cancel route: nothing to check here
      await pollJob(s.api, s.demo, job.id!, (j) => j.status === 'CANCELLED');
      const d = await s.api('GET', linkOf(r.json.link, 'data.created').href);
      expect(d.status, d.text).toBe(409);
    } finally {
      gate.resolve();
    }
  });

  it('the result comes as CSV (?format=csv) and TSV (Accept), titles first, null empty', async () => {
    const rows = await rowsOf(
      s,
      ADMIN,
      'SELECT [Origin Region] AS "Region, name", SUM([Distance]) / 0 AS "Nothing", COUNT([Flight])',
    );
    const r = await execute(
      'SELECT [Origin Region] AS "Region, name", SUM([Distance]) / 0 AS "Nothing", COUNT([Flight])',
    );
    const data = linkOf(r.json.link, 'data.created').href;
    const csv = await s.api('GET', `${data}?format=csv`, { accept: '*/*' });
    expect(csv.status, csv.text).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = csv.text.split('\r\n');
    expect(lines[0]).toBe('"Region, name",Nothing,COUNT([Flight])');
    expect(lines.slice(1, -1)).toEqual(rows.map((x) => `${x[0]},,${x[2]}`));
    expect(lines.at(-1)).toBe('');
    const tsv = await s.api('GET', data, { accept: 'text/tab-separated-values' });
    expect(tsv.status, tsv.text).toBe(200);
    expect(tsv.headers.get('content-type')).toMatch(/^text\/tab-separated-values/);
    expect(tsv.text).toBe(
      ['Region, name\tNothing\tCOUNT([Flight])', ...rows.map((x) => x.join('\t')), ''].join('\n'),
    );
  });

  it('validation errors answer 400 at once with line, column, found and expected/suggestions', async () => {
    const before = await s.api('GET', `${jobsPath(s.demo)}?type=report&limit=1`);
    const syntax = await execute('SELECT [Origin State],\n  SUM([Distance])\nWHERE [Distance] >');
    expect(syntax.status, syntax.text).toBe(400);
    expect(syntax.json.message).toMatch(/^syntax error at line 3, column \d+/);
    expect(syntax.json.context).toMatchObject({ line: 3, found: '' });
    expect(syntax.json.context.column).toBeGreaterThan(18);
    expect(syntax.json.context.expected.length).toBeGreaterThan(0);

    const token = await execute('SELECT [Origin State]\nWHERE [Distance] > > 5');
    expect(token.status).toBe(400);
    expect(token.json.context).toMatchObject({ line: 2, column: 20, found: '>' });

    const unknown = await execute('SELECT [Origin],\n  SUM([Distanse])');
    expect(unknown.status).toBe(400);
    expect(unknown.json.message).toBe('unknown object [Distanse]; did you mean [Distance]?');
    expect(unknown.json.context).toMatchObject({
      line: 2,
      column: 7,
      found: '[Distanse]',
      suggestions: ['Distance'],
    });

    const fn = await execute('SELECT SUMM([Distance])');
    expect(fn.status).toBe(400);
    expect(fn.json.context).toMatchObject({ line: 1, column: 8, suggestions: ['SUM'] });

    const type = await execute('SELECT [Origin] WHERE [Flight Date] = "31.03.2024"');
    expect(type.status).toBe(400);
    expect(type.json.context).toMatchObject({ line: 1, column: expect.any(Number) });
    expect(type.json.message).toMatch(/date/);

    const limit = await execute('SELECT [Origin]\nLIMIT 10 OFFSET 2.5');
    expect(limit.status).toBe(400);
    expect(limit.json.message).toMatch(/^OFFSET takes a whole number/);
    expect(limit.json.context).toMatchObject({ line: 2, column: 17, found: '2.5' });

    const empty = await execute('   ');
    expect(empty.status).toBe(400);
    expect(empty.json.context).toMatchObject({ line: 1, column: 1 });

    // None of them started a job.
    const after = await s.api('GET', `${jobsPath(s.demo)}?type=report&limit=1`);
    expect(after.json.paging?.total ?? after.json.jobs.length).toBe(
      before.json.paging?.total ?? before.json.jobs.length,
    );
    expect(after.json.jobs[0]?.id).toBe(before.json.jobs[0]?.id);
  });

  it('an identical repeat is answered from the cache, also with other spacing and keyword case', async () => {
    const text = 'SELECT [Origin Region], SUM([Passengers]) AS "Pax" WHERE [Cancelled] = FALSE';
    const first = await runQuery(s, ADMIN, text);
    expect((first.job!.result as { cached: boolean }).cached).toBe(false);
    for (const again of [
      text,
      'select   [Origin Region],\n  sum([Passengers]) as "Pax"\n  where [Cancelled] = false -- again',
      'Select [origin region], Sum([ Passengers ]) As "Pax" Where [Cancelled] = False',
    ]) {
      const r = await execute(again);
      expect(r.status, r.text).toBe(201);
      expect(r.json.status, again).toBe('OK');
      const job = await s.api('GET', linkOf(r.json.link, 'scache.created').href);
      expect(job.json.status).toBe('OK');
      expect(job.json.result.cached, again).toBe(true);
      const d = await s.api('GET', linkOf(r.json.link, 'data.created').href);
      expect(d.json.data.values).toBe(first.data!.json.data.values);
    }
  });

  it('results unread past their retention are swept; asking again recomputes', async () => {
    const text = 'SELECT [Origin Region], MAX([Distance]) AS "Longest"';
    const first = await runQuery(s, ADMIN, text);
    const ttl = s.engine.config.resultTtlHours * 3_600_000;
    // A repeat reads it, which restarts its retention: a sweep right after keeps it.
    const repeat = await execute(text);
    expect(repeat.json.status).toBe('OK');
    expect(await s.engine.aql.sweepResults([s.demo], ttl)).toBe(0);
    // Later than the retention, it goes; the old job's data says so.
    expect(
      await s.engine.aql.sweepResults([s.demo], ttl, Date.now() + ttl + 60_000),
    ).toBeGreaterThan(0);
    const gone = await s.api('GET', linkOf(repeat.json.link, 'data.created').href);
    expect(gone.status).toBe(404);
    expect(gone.json.message).toMatch(/no longer stored; run the query again/);
    const again = await runQuery(s, ADMIN, text);
    expect((again.job!.result as { cached: boolean }).cached).toBe(false);
    expect(again.data!.json.data.values).toBe(first.data!.json.data.values);
  });

  it('a cached answer keeps the titles of the text asked (aliases are not part of the SQL)', async () => {
    const a = await runQuery(s, ADMIN, 'SELECT [Origin Region] AS "Area", MIN([Distance]) AS "A"');
    const b = await runQuery(s, ADMIN, 'SELECT [Origin Region] AS "Zone", MIN([Distance]) AS "B"');
    expect((b.job!.result as { cached: boolean }).cached).toBe(true);
    expect(a.titles).toEqual(['Area', 'A']);
    expect(b.titles).toEqual(['Zone', 'B']);
    const csv = await s.api(
      'GET',
      `${linkOf(b.execute.json.link, 'data.created').href}?format=csv`,
    );
    expect(csv.text.split('\r\n')[0]).toBe('Zone,B');
    expect(b.rows).toEqual(a.rows);
  });

  it("another caller's row filter does not share results", async () => {
    const text = 'SELECT [Origin State], SUM([Distance]) AS "Miles"';
    const admin = await runQuery(s, ADMIN, text);
    const ca = await runQuery(s, CA, text);
    expect((ca.job!.result as { cached: boolean }).cached).toBe(false);
    expect(ca.rows!.map((r) => r[0])).toEqual(['CA']);
    expect(admin.rows!.length).toBeGreaterThan(1);
    expect(ca.rows![0]).toEqual(admin.rows!.find((r) => r[0] === 'CA'));
    // And each one's repeat comes from their own cache entry.
    const adminAgain = await runQuery(s, ADMIN, text);
    const caAgain = await runQuery(s, CA, text);
    expect((adminAgain.job!.result as { cached: boolean }).cached).toBe(true);
    expect((caAgain.job!.result as { cached: boolean }).cached).toBe(true);
    expect(adminAgain.rows).toEqual(admin.rows);
    expect(caAgain.rows).toEqual(ca.rows);
  });

  it('a data load invalidates: a new computation with the new answer', async () => {
    const text = 'SELECT COUNT([Carrier Code]) AS "Carriers"';
    const before = await runQuery(s, ADMIN, text);
    const cachedBefore = await runQuery(s, ADMIN, text);
    expect((cachedBefore.job!.result as { cached: boolean }).cached).toBe(true);
    const { dataVersion } = await s.engine.model.versions(s.demo);

    const carriers = (await s.engine.datasets.rows(s.demo)).find((d) => d.name === 'carriers')!;
    const file = await fs.readFile(rawStorage(s.engine).abs(s.demo, '/demo/carriers.csv'), 'utf8');
    const more = `${file.trimEnd()}\nZZ,Zed Air\n`;
    await rawStorage(s.engine).writeFile(s.demo, '/demo/carriers-more.csv', Buffer.from(more), {
      user: ADMIN,
    });
    const load = await s.engine.loads.start(await actorOf(s, ADMIN), {
      type: 'cluster',
      clusters: {
        carriers: {
          source_type: 'webdav',
          source: '/demo/carriers-more.csv',
          prescription: carriers.prescription,
        },
      },
    });
    const loaded = await s.engine.jobs.waitFor(load.id, 30_000);
    expect(loaded.status, loaded.message).toBe('OK');
    expect((await s.engine.model.versions(s.demo)).dataVersion).toBeGreaterThan(dataVersion);

    const after = await runQuery(s, ADMIN, text);
    expect((after.job!.result as { cached: boolean }).cached).toBe(false);
    expect(Number(after.rows![0]![0])).toBe(Number(before.rows![0]![0]) + 1);
  });

  it('a model change invalidates: a new computation with the new answer', async () => {
    const text = 'SELECT [Origin Region], [Total Distance]';
    const before = await runQuery(s, ADMIN, text);
    expect((await runQuery(s, ADMIN, text)).job!.result).toMatchObject({ cached: true });
    const { modelVersion } = await s.engine.model.versions(s.demo);
    await s.engine.model.upsert(
      s.demo,
      [
        {
          ident: 'metric.total_distance',
          type: 'metric',
          name: 'Total Distance',
          def: { aql: 'SELECT SUM([Distance]) * 2' },
        },
      ],
      ADMIN,
    );
    expect((await s.engine.model.versions(s.demo)).modelVersion).toBeGreaterThan(modelVersion);
    const after = await runQuery(s, ADMIN, text);
    expect((after.job!.result as { cached: boolean }).cached).toBe(false);
    expect(after.rows!.map((r) => Number(r[1]))).toEqual(before.rows!.map((r) => Number(r[1]) * 2));
    // An unrelated change also means a new computation (same answer).
    await s.engine.model.upsert(
      s.demo,
      [
        {
          ident: 'metric.unrelated',
          type: 'metric',
          name: 'Unrelated',
          def: { aql: 'SELECT MAX([Passengers])' },
        },
      ],
      ADMIN,
    );
    const again = await runQuery(s, ADMIN, text);
    expect((again.job!.result as { cached: boolean }).cached).toBe(false);
    expect(again.rows).toEqual(after.rows);
  });

  it("a member sees only their own query jobs: 404 on another member's data", async () => {
    const r = await execute('SELECT [Origin City], COUNT([Flight])', ALICE);
    expect(r.status, r.text).toBe(201);
    const job = linkOf(r.json.link, 'scache.created');
    const data = linkOf(r.json.link, 'data.created');
    await pollJob(s.api, s.demo, job.id!, (j) => j.status === 'OK', { as: ALICE });
    expect((await s.api('GET', data.href, { as: ALICE })).status).toBe(200);
    const bobData = await s.api('GET', data.href, { as: BOB });
    expect(bobData.status, bobData.text).toBe(404);
    expect((await s.api('GET', job.href, { as: BOB })).status).toBe(404);
    const list = await s.api('GET', `${jobsPath(s.demo)}?type=report`, { as: BOB });
    expect((list.json.jobs as JobJson[]).some((j) => j.id === job.id)).toBe(false);
    // Bob's own run of the same text is his own job (from the cache), not Alice's.
    const mine = await execute('SELECT [Origin City], COUNT([Flight])', BOB);
    expect(linkOf(mine.json.link, 'scache.created').id).not.toBe(job.id);
    expect(
      (await s.api('GET', linkOf(mine.json.link, 'data.created').href, { as: BOB })).status,
    ).toBe(200);
    // The admin sees every job.
    expect((await s.api('GET', data.href)).status).toBe(200);
    // A job that is not a query has no data.
    const other = await s.engine.jobs.recordFinished(await actorOf(s, ADMIN), 'ai', {}, {});
    const notQuery = await s.api('GET', `/projects/${s.demo}/app/aql/data/${other.id}`);
    expect(notQuery.status).toBe(404);
    expect((await s.api('GET', `/projects/${s.demo}/app/aql/data/no-such-job`)).status).toBe(404);
  });

  it('explain answers the objects, leaves with anchors and join paths, and SQL with bound parameters', async () => {
    const text =
      'SELECT [Origin State], SUM([Distance]) AS "Miles", COUNT([Carrier]) WHERE [Origin Region] = "West" AND YEAR([Flight Date]) = 2024';
    const r = await s.api('POST', `/projects/${s.demo}/app/aql/explain`, { body: { aql: text } });
    expect(r.status, r.text).toBe(200);
    const e = r.json.explain;
    expect(e.objects).toEqual(
      expect.arrayContaining([
        { ident: 'attr.airports.state', type: 'attribute', title: 'Origin State' },
        { ident: 'fact.flights.distance', type: 'fact', title: 'Distance' },
        { ident: 'attr.flights.carrier', type: 'attribute', title: 'Carrier' },
        { ident: 'attr.airports.region', type: 'attribute', title: 'Origin Region' },
        { ident: 'attr.flights.flight_date', type: 'attribute', title: 'Flight Date' },
      ]),
    );
    expect(e.columns.map((c: { title: string; kind: string }) => [c.title, c.kind])).toEqual([
      ['Origin State', 'dimension'],
      ['Miles', 'measure'],
      ['COUNT([Carrier])', 'measure'],
    ]);
    const sum = e.leaves.find((l: { leaf: string }) => l.leaf === 'SUM([Distance])');
    expect(sum).toMatchObject({ anchor: 'flights', grain: ['Origin State'] });
    expect(sum.joins).toEqual(['flights.origin → airports']);
    const count = e.leaves.find((l: { leaf: string }) => l.leaf === 'COUNT([Carrier])');
    expect(count).toMatchObject({ anchor: 'flights', grain: ['Origin State'] });
    // The filters: the region (airports) and the year of the flight date.
    expect(sum.filters).toBeGreaterThan(0);
    expect(e.sql).toMatch(/\$1/);
    expect(e.params).toEqual(expect.arrayContaining(['West', 2024]));
    expect(e.sql).not.toContain("'West'");
    expect(e.sql).not.toContain('2024');
    expect(e.rowFilter).toBeNull();
  }, 30_000);

  it('explain rejects what execute rejects, with the same 400', async () => {
    for (const text of ['SELECT SUM([Distanse])', 'SELECT [Origin] WHERE', 'SELECT [Distance]']) {
      const x = await s.api('POST', `/projects/${s.demo}/app/aql/explain`, { body: { aql: text } });
      const r = await execute(text);
      expect(x.status).toBe(400);
      expect(r.status).toBe(400);
      expect(x.json.message).toBe(r.json.message);
      expect(x.json.context).toEqual(r.json.context);
    }
  });

  it('numbers print without trailing zeros or exponent; null is an empty cell', async () => {
    const rows = await rowsOf(
      s,
      ADMIN,
      'SELECT [Origin Region], AVG([Distance]), SUM([Distance]) / 4, ROUND(AVG([Departure Delay]), 2), SUM([Distance]) / 0, (SELECT SUM([Distance]) WHERE [Origin State] = "CA"), 0.1 + 0.2 + SUM([Distance]) * 0 AS "tenth"',
    );
    expect(rows).toHaveLength(4);
    for (const r of rows) {
      for (const c of r.slice(1, 4)) {
        expect(c).toMatch(/^-?\d+(\.\d+)?$/);
        expect(c).not.toMatch(/\.\d*0$/);
      }
      expect(r[4]).toBe('');
      expect(r[6]).toBe('0.3');
    }
    expect(rows.filter((r) => r[5] === '').length).toBe(3);
    expect(rows.find((r) => r[0] === 'West')![5]).toMatch(/^\d+$/);
    // Whole sums stay whole (no ".0"), big counts have no exponent or separators.
    const [total] = await rowsOf(s, ADMIN, 'SELECT SUM([Distance]) * 1000, COUNT([Flight])');
    expect(total![0]).toMatch(/^\d+$/);
    expect(total![1]).toBe('60000');
  });

  it('a query that keeps running shows RUNNING or PREPARED to its poller until it ends', async () => {
    const gate = await holdJobSlot();
    const r = await execute('SELECT [Day Name], AVG([Arrival Delay])');
    const job = linkOf(r.json.link, 'scache.created');
    const seen = await s.api('GET', job.href);
    expect(['PREPARED', 'EXPANDING', 'RUNNING']).toContain(seen.json.status);
    await sleep(50);
    expect((await s.api('GET', job.href)).json.status).toBe('PREPARED');
    gate.resolve();
    const done = await pollJob(s.api, s.demo, job.id!, (j) => j.status === 'OK');
    expect(done.finished).toBeDefined();
  });

  describe('Prefer: wait answers inline', () => {
    const waiting = (aql: string, prefer: string, as: string = ADMIN) =>
      s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
        as,
        body: { aql },
        headers: { prefer },
      });

    it('a query done within the wait: 200 with the data and the same links', async () => {
      const aql =
        'SELECT [Origin Region], COUNT([Flight]) AS "Flights" WHERE [Origin Region] <> "x"';
      const r = await waiting(aql, 'wait=10');
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get('preference-applied')).toBe('wait=10');
      expect(r.json.status).toBe('OK');
      const data = linkOf(r.json.link as Link[], 'data.created');
      linkOf(r.json.link as Link[], 'scache.created');
      expect(r.headers.get('location')).toBe(data.href);
      // The same body as the data link answers.
      const d = await s.api('GET', data.href);
      expect(r.json.data).toEqual(d.json.data);
      expect(r.json.data.values.split('\n').length).toBeGreaterThan(2);
    });

    it('other preferences, quotes and case are understood; a wait over 60 s is capped', async () => {
      const r = await waiting(
        'SELECT [Carrier Code], COUNT([Flight])',
        'respond-async, WAIT="999"',
      );
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get('preference-applied')).toBe('wait=60');
    });

    it('without the header, or with one it does not understand, execute answers 201 as before', async () => {
      for (const prefer of ['', 'wait=soon', 'return=minimal']) {
        const r = await waiting('SELECT [Carrier Code], COUNT([Flight])', prefer);
        expect(r.status, `${prefer}: ${r.text}`).toBe(201);
        expect(r.headers.get('preference-applied')).toBeNull();
      }
    });

    it('invalid AQL is still a 400 at once; a row-filtered member gets filtered rows inline', async () => {
      expect((await waiting('SELECT [Origin State', 'wait=5')).status).toBe(400);
      const r = await waiting('SELECT [Origin State], COUNT([Flight])', 'wait=5', CA);
      expect(r.status, r.text).toBe(200);
      expect(r.json.data.values.split('\n').map((l: string) => l.split('\t')[0])).toEqual(['CA']);
    });

    it('a query still running when the wait ends: 202 with the job links; it finishes later', async () => {
      const gate = await holdJobSlot();
      try {
        const t0 = Date.now();
        const r = await waiting(
          'SELECT [Origin State], SUM([Distance]) WHERE [Distance] > 1',
          'wait=1',
        );
        expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
        expect(r.status, r.text).toBe(202);
        expect(r.headers.get('preference-applied')).toBe('wait=1');
        expect(r.json.status).toBe('PREPARED');
        expect(r.json.data).toBeUndefined();
        const job = linkOf(r.json.link as Link[], 'scache.created');
        gate.resolve();
        const done = await pollJob(s.api, s.demo, job.id!, (j) => j.status === 'OK');
        expect(done.status).toBe('OK');
      } finally {
        gate.resolve();
      }
    });
  });
});
