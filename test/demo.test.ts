// The demo project's data (URSA_DEMO_DATA=true): loaded by jobs started on first start,
// the same rows on every first start, references that make flights queryable by airport,
// carrier and calendar, descriptions that say what the data holds, and saved metrics.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogColumn } from '../src/engine/catalog/catalog.js';
import { AIRPORTS } from '../src/engine/data/demo/airports.js';
import { CARRIERS } from '../src/engine/data/demo/carriers.js';
import { DEMO_FLIGHTS, generateFlights, type FlightRow } from '../src/engine/data/demo/flights.js';
import { isFinal, jobsPath, sleep, type JobJson } from './helpers/jobs.js';
import { connectMcp } from './helpers/mcp-client.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

/** Polls the admin's job list until the demo's two load jobs exist and have finished. */
async function demoJobs(s: TestServer): Promise<JobJson[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await s.api('GET', `${jobsPath(s.demo)}?type=transform`);
    expect(r.status, r.text).toBe(200);
    const jobs = r.json.jobs as JobJson[];
    if (jobs.length === 2 && jobs.every(isFinal)) return jobs;
    if (Date.now() > deadline) throw new Error(`demo jobs not finished: ${r.text}`);
    await sleep(100);
  }
}

const read = (s: TestServer, sql: string) =>
  s.engine.dbs.read(s.demo, async (c) => (await c.runAndReadAll(sql)).getRowObjectsJson());

/** A checksum of every flights row in flight_id order. */
async function flightsChecksum(s: TestServer): Promise<string> {
  const [r] = await read(
    s,
    `SELECT count(*) AS n, md5(string_agg(f::VARCHAR, chr(10) ORDER BY f.flight_id)) AS md5,
       sum(hash(f)) AS hash FROM ds_flights AS f`,
  );
  return `${r!.n}:${r!.md5}:${r!.hash}`;
}

describe('demo data', () => {
  let s: TestServer;
  let flights: FlightRow[];

  beforeAll(async () => {
    s = await startTestServer({ URSA_DEMO_DATA: 'true' });
    flights = generateFlights();
  });
  afterAll(() => s?.close());

  it('is loaded by two jobs the admin sees in the jobs list, both OK', async () => {
    const jobs = await demoJobs(s);
    for (const j of jobs) expect(j.status, j.message).toBe('OK');
    expect(jobs.map((j) => j.createdBy)).toEqual([
      s.engine.config.adminEmail,
      s.engine.config.adminEmail,
    ]);
    expect(await s.bootstrap.demoLoading).toEqual(expect.arrayContaining(jobs.map((j) => j.id)));
  });

  it('holds flights, airports, carriers and calendar with their rows', async () => {
    await demoJobs(s);
    const r = await s.api('GET', `/projects/${s.demo}/kodiak/dataload`);
    const rows = Object.fromEntries(
      (r.json.dataload.datasets as { name: string; rows: number }[]).map((d) => [d.name, d.rows]),
    );
    expect(rows).toEqual({ airports: 40, calendar: 731, carriers: 10, flights: DEMO_FLIGHTS });
    expect(DEMO_FLIGHTS).toBeGreaterThanOrEqual(50_000);
    const files = await rawStorage(s.engine).list(s.demo, '/demo');
    expect(files.children.map((c) => c.name)).toEqual([
      'airports.csv',
      'carriers.csv',
      'flights.csv',
    ]);
    const types = await read(s, 'DESCRIBE ds_flights');
    expect(Object.fromEntries(types.map((t) => [t.column_name, t.column_type]))).toEqual({
      flight_id: 'BIGINT',
      flight_date: 'DATE',
      carrier: 'VARCHAR',
      origin: 'VARCHAR',
      dest: 'VARCHAR',
      distance: 'BIGINT',
      dep_delay: 'DOUBLE',
      arr_delay: 'DOUBLE',
      cancelled: 'BOOLEAN',
      passengers: 'BIGINT',
    });
  });

  it('references airports (origin only), carriers and calendar', async () => {
    await demoJobs(s);
    const ref = async (ident: string) =>
      ((await s.engine.model.get(s.demo, ident))?.def as { reference?: unknown }).reference;
    expect(await ref('attr.flights.origin')).toEqual({
      dataset: 'airports',
      attribute: 'attr.airports.code',
    });
    expect(await ref('attr.flights.carrier')).toEqual({
      dataset: 'carriers',
      attribute: 'attr.carriers.code',
    });
    expect(await ref('attr.flights.flight_date')).toEqual({
      dataset: 'calendar',
      attribute: 'attr.calendar.date',
    });
    expect(await ref('attr.flights.dest')).toBeUndefined();
    const [orphans] = await read(
      s,
      `SELECT count(*) FILTER (WHERE a.code IS NULL) AS no_airport,
              count(*) FILTER (WHERE c.code IS NULL) AS no_carrier,
              count(*) FILTER (WHERE k.date IS NULL) AS no_day,
              count(*) FILTER (WHERE d.code IS NULL) AS no_dest
       FROM ds_flights f
       LEFT JOIN ds_airports a ON a.code = f.origin
       LEFT JOIN ds_airports d ON d.code = f.dest
       LEFT JOIN ds_carriers c ON c.code = f.carrier
       LEFT JOIN ds_calendar k ON k.date = f.flight_date`,
    );
    expect(orphans).toEqual({ no_airport: '0', no_carrier: '0', no_day: '0', no_dest: '0' });
  });

  it('gives every model object a friendly title, unique in the project', async () => {
    await demoJobs(s);
    const objects = await s.engine.model.listByType(s.demo, ['attribute', 'label', 'fact']);
    const title = (ident: string) => objects.find((o) => o.ident === ident)?.name;
    expect(title('attr.flights.flight_date')).toBe('Flight Date');
    expect(title('attr.flights.origin')).toBe('Origin');
    expect(title('fact.flights.distance')).toBe('Distance');
    expect(title('fact.flights.dep_delay')).toBe('Departure Delay');
    expect(title('label.carriers.name')).toBe('Carrier Name');
    expect(title('attr.airports.state')).toBe('Origin State');
    const names = objects.map((o) => o.name.toLowerCase());
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  it('matches aggregates computed from the generator’s rows', async () => {
    await demoJobs(s);
    const perCarrier: Record<string, number> = {};
    for (const f of flights) perCarrier[f.carrier] = (perCarrier[f.carrier] ?? 0) + 1;
    const db = await read(s, 'SELECT carrier, count(*) AS n FROM ds_flights GROUP BY carrier');
    expect(Object.fromEntries(db.map((r) => [r.carrier, Number(r.n)]))).toEqual(perCarrier);
    expect(Object.keys(perCarrier).sort()).toEqual(CARRIERS.map((c) => c.code).sort());

    const sum = (pick: (f: FlightRow) => number | null) =>
      flights.reduce((t, f) => t + (pick(f) ?? 0), 0);
    const [agg] = await read(
      s,
      `SELECT sum(distance) AS distance, sum(passengers) AS passengers,
              sum(dep_delay) AS dep, sum(arr_delay) AS arr,
              count(*) FILTER (WHERE cancelled) AS cancelled,
              count(*) FILTER (WHERE arr_delay IS NULL) AS no_arrival,
              count(DISTINCT origin) AS origins, min(flight_date)::VARCHAR AS first,
              max(flight_date)::VARCHAR AS last
       FROM ds_flights`,
    );
    expect(Number(agg!.distance)).toBe(sum((f) => f.distance));
    expect(Number(agg!.passengers)).toBe(sum((f) => f.passengers));
    expect(Number(agg!.dep)).toBe(sum((f) => f.dep_delay));
    expect(Number(agg!.arr)).toBe(sum((f) => f.arr_delay));
    const cancelled = flights.filter((f) => f.cancelled).length;
    expect(Number(agg!.cancelled)).toBe(cancelled);
    expect(Number(agg!.no_arrival)).toBe(flights.filter((f) => f.arr_delay === null).length);
    expect(agg).toMatchObject({ first: '2024-01-01', last: '2025-12-31' });
    expect(Number(agg!.origins)).toBeLessThanOrEqual(AIRPORTS.length);

    // Realistic shape: ~2% cancelled, delays skewed to the right, summer busier than February.
    expect(cancelled / flights.length).toBeGreaterThan(0.01);
    expect(cancelled / flights.length).toBeLessThan(0.03);
    const [delay] = await read(
      s,
      `SELECT median(dep_delay) AS median, avg(dep_delay) AS mean,
              count(*) FILTER (WHERE month(flight_date) = 7) AS july,
              count(*) FILTER (WHERE month(flight_date) = 2) AS february
       FROM ds_flights`,
    );
    expect(Number(delay!.mean)).toBeGreaterThan(Number(delay!.median));
    expect(Number(delay!.july)).toBeGreaterThan(Number(delay!.february));
  });

  it('describes its datasets, attributes and facts, and the descriptions hold on the data', async () => {
    await demoJobs(s);
    const mcp = await connectMcp(s, s.engine.config.adminEmail, 'demo-test');
    let model: {
      datasets: { name: string; description?: string; columns: CatalogColumn[] }[];
    };
    try {
      const r = (await mcp.callTool({
        name: 'get_model',
        arguments: { project: s.demo },
      })) as CallToolResult;
      model = r.structuredContent as typeof model;
    } finally {
      await mcp.close();
    }
    for (const d of model.datasets) {
      expect(d.description, d.name).toBeTruthy();
      const keys = d.columns.filter((c) => c.primaryKey || c.type !== 'label');
      for (const c of keys) expect(c.description, `${d.name} ${c.title}`).toBeTruthy();
    }
    const flights = model.datasets.find((d) => d.name === 'flights')!;
    const said = (title: string) => flights.columns.find((c) => c.title === title)!.description!;
    // What a cancelled flight holds: its distance, no delays, 0 passengers — in the data too.
    expect(said('Cancelled')).toMatch(/keeps its distance but has no delays and 0 passengers/);
    expect(said('Distance')).toMatch(/a cancelled flight keeps its distance/);
    expect(said('Departure Delay')).toMatch(/empty for a cancelled flight/);
    expect(said('Arrival Delay')).toMatch(/empty for a cancelled or diverted flight/);
    expect(said('Passengers')).toMatch(/0 for a cancelled flight/);
    const [cancelled] = await read(
      s,
      `SELECT count(*) AS n, count(distance) AS distance, count(dep_delay) AS dep,
              count(arr_delay) AS arr, max(passengers) AS passengers
       FROM ds_flights WHERE cancelled`,
    );
    expect(Number(cancelled!.n)).toBeGreaterThan(0);
    expect(cancelled).toMatchObject({
      distance: cancelled!.n,
      dep: '0',
      arr: '0',
      passengers: '0',
    });
    const [flown] = await read(
      s,
      `SELECT count(*) - count(dep_delay) AS no_dep, count(*) - count(arr_delay) AS no_arr
       FROM ds_flights WHERE NOT cancelled`,
    );
    expect(flown!.no_dep).toBe('0');
    expect(Number(flown!.no_arr)).toBeGreaterThan(0); // diverted
    // A destination has no airport lookup: the airports' attributes are the origin's.
    expect(said('Destination')).toMatch(/it has no airport lookup/);
    const airports = model.datasets.find((d) => d.name === 'airports')!;
    expect(airports.description).toMatch(/flights reach them by \[Origin\] only/);
    expect(
      ((await s.engine.model.get(s.demo, 'attr.flights.dest'))!.def as { reference?: unknown })
        .reference,
    ).toBeUndefined();
  });

  it('has saved metrics get_model lists, computing what hand-written SQL computes', async () => {
    await demoJobs(s);
    const mcp = await connectMcp(s, s.engine.config.adminEmail, 'demo-test');
    let metrics: { id: string; title: string; description?: string; aql: string }[];
    try {
      const r = (await mcp.callTool({
        name: 'get_model',
        arguments: { project: s.demo },
      })) as CallToolResult;
      metrics = (r.structuredContent as { metrics: typeof metrics }).metrics;
    } finally {
      await mcp.close();
    }
    expect(metrics.map((m) => [m.title, m.aql])).toEqual([
      ['Avg Arrival Delay', 'SELECT AVG([Arrival Delay])'],
      ['Avg Departure Delay', 'SELECT AVG([Departure Delay])'],
      ['Cancellation Rate', 'SELECT AVG(CASE WHEN [Cancelled] THEN 1 ELSE 0 END)'],
      ['Number of Flights', 'SELECT COUNT([flights])'],
      ['Total Passengers', 'SELECT SUM([Passengers])'],
    ]);
    for (const m of metrics) expect(m.description, m.title).toBeTruthy();
    const r = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
      body: {
        aql: 'SELECT [Carrier Code], [Number of Flights], [Total Passengers], [Cancellation Rate], [Avg Departure Delay], [Avg Arrival Delay]',
      },
      headers: { Prefer: 'wait=20' },
    });
    expect(r.status, r.text).toBe(200);
    const got = (r.json.data.values as string).split('\n').map((l) => l.split('\t'));
    const want = await read(
      s,
      `SELECT carrier, count(*) AS n, sum(passengers) AS p,
              avg(CASE WHEN cancelled THEN 1 ELSE 0 END) AS rate,
              avg(dep_delay) AS dep, avg(arr_delay) AS arr
       FROM ds_flights GROUP BY carrier ORDER BY carrier`,
    );
    const close = (x: unknown) => Number(x).toFixed(9);
    expect(
      got.map(([c, n, p, rate, dep, arr]) => [c, n, p, close(rate), close(dep), close(arr)]),
    ).toEqual(want.map((w) => [w.carrier, w.n, w.p, close(w.rate), close(w.dep), close(w.arr)]));
    const checks = await s.api('GET', `/projects/${s.demo}/pmd/check/obj`);
    expect(checks.json.problems, checks.text).toEqual([]);
  });

  it('ships a report of each visualization and a filtered dashboard of them, all computing', async () => {
    await demoJobs(s);
    const r = await s.api('GET', `/projects/${s.demo}/app/dashboards/dashboard.demo_flights`);
    expect(r.status, r.text).toBe(200);
    type Item = { id: string; error?: string; chart?: { svg: string }; kpi?: unknown };
    const items = r.json.items as Item[];
    expect(items.map((i) => i.error ?? null)).toEqual(items.map(() => null));
    const kinds = await Promise.all(
      (r.json.items as { report: string }[]).map(async (i) => {
        const o = await s.api('GET', `/projects/${s.demo}/pmd/obj/${i.report}`);
        return o.json.object.def.visualization.type as string;
      }),
    );
    expect([...kinds].sort()).toEqual(['area', 'bar', 'kpi', 'line', 'pie', 'scatter', 'table']);
    expect(items.filter((i) => i.chart?.svg.startsWith('<svg')).length).toBe(5);
    expect(r.json.filters.map((f: { title: string }) => f.title)).toEqual([
      'Origin Region',
      'Flight Date',
    ]);
    // Its date filter narrows every item: a month has fewer flights than the two years.
    const jan = await s.api(
      'GET',
      `/projects/${s.demo}/app/dashboards/dashboard.demo_flights?filter=attr.flights.flight_date:2024-01-01..2024-01-31`,
    );
    expect(jan.status, jan.text).toBe(200);
    const kpi = (x: { json: { items: Item[] } }) =>
      (x.json.items.find((i) => i.id === 'flights')!.kpi as { value: number }).value;
    expect(kpi(jan)).toBeGreaterThan(0);
    expect(kpi(jan)).toBeLessThan(kpi(r) / 12);
  });

  it('is the same on every first start (checksum of a second fresh server)', async () => {
    await demoJobs(s);
    const other = await startTestServer({ URSA_DEMO_DATA: 'true' });
    try {
      await demoJobs(other);
      expect(await flightsChecksum(other)).toBe(await flightsChecksum(s));
    } finally {
      await other.close();
    }
  });
});

describe('without demo data', () => {
  it('URSA_DEMO_DATA=false (the tests’ default) creates the demo project empty', async () => {
    const s = await startTestServer();
    try {
      expect(s.bootstrap.demoLoading).toBeUndefined();
      const jobs = await s.api('GET', jobsPath(s.demo));
      expect(jobs.json.jobs).toEqual([]);
      expect(await s.engine.datasets.infos(s.demo)).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('URSA_DEMO=false creates no demo project at all', async () => {
    const s = await startTestServer({ URSA_DEMO: 'false', URSA_DEMO_DATA: 'true' });
    try {
      expect(s.bootstrap.demoProjectId).toBeUndefined();
      expect(s.bootstrap.demoLoading).toBeUndefined();
      const r = await s.api('GET', '/projects');
      expect(r.json.projects).toEqual({});
    } finally {
      await s.close();
    }
  });
});
