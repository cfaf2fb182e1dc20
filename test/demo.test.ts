// The demo project's data (URSA_DEMO_DATA=true): loaded by jobs started on first start,
// the same rows on every first start, and references that make flights queryable by
// airport, carrier and calendar.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AIRPORTS } from '../src/engine/data/demo/airports.js';
import { CARRIERS } from '../src/engine/data/demo/carriers.js';
import { DEMO_FLIGHTS, generateFlights, type FlightRow } from '../src/engine/data/demo/flights.js';
import { isFinal, jobsPath, sleep, type JobJson } from './helpers/jobs.js';
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
    const ref = (ident: string) =>
      (s.engine.model.get(s.demo, ident)?.def as { reference?: unknown }).reference;
    expect(ref('attr.flights.origin')).toEqual({
      dataset: 'airports',
      attribute: 'attr.airports.code',
    });
    expect(ref('attr.flights.carrier')).toEqual({
      dataset: 'carriers',
      attribute: 'attr.carriers.code',
    });
    expect(ref('attr.flights.flight_date')).toEqual({
      dataset: 'calendar',
      attribute: 'attr.calendar.date',
    });
    expect(ref('attr.flights.dest')).toBeUndefined();
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
    const objects = s.engine.model.listByType(s.demo, ['attribute', 'label', 'fact']);
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
      expect(s.engine.datasets.infos(s.demo)).toEqual([]);
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
