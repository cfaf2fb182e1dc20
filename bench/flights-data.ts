// Real flights for the benchmarks: vega-datasets' flights-3m.parquet (3,000,000 US flights,
// January–June 2001, numbered 1… as flight_id in file order) and airports.csv (3,376 airports), fetched with `npm pack vega-datasets`
// into a cache folder reused across runs (BENCH_CACHE, default <tmp>/ursa-bench-vega), the
// parquet converted to CSV by DuckDB. Also their prescriptions, and the two-file load over
// REST (one-shot uploads, then one transform job) that bench:aql's flights part times.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { csvPrescription } from '../src/engine/data/prescription-builder.js';
import type { Prescription } from '../src/engine/data/prescription.js';

export const FLIGHT_ROWS = 3_000_000;
export const AIRPORT_ROWS = 3376;
const CACHE = process.env.BENCH_CACHE ?? path.join(os.tmpdir(), 'ursa-bench-vega');

export interface FlightFiles {
  flights: string;
  airports: string;
}

/** The two CSV files, fetched and converted on the first run, then taken from the cache. */
export async function flightFiles(): Promise<FlightFiles> {
  const files = {
    // Named for its columns: a cache written before flight_id existed is not reused.
    flights: path.join(CACHE, 'flights-id.csv'),
    airports: path.join(CACHE, 'airports.csv'),
  };
  if (fs.existsSync(files.flights) && fs.existsSync(files.airports)) return files;
  fs.mkdirSync(CACHE, { recursive: true });
  let tgz = fs.readdirSync(CACHE).find((f) => /^vega-datasets-.*\.tgz$/.test(f));
  if (!tgz) {
    const t = performance.now();
    tgz = execFileSync('npm', ['pack', 'vega-datasets', '--silent'], {
      cwd: CACHE,
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .pop()!;
    console.log(`npm pack vega-datasets → ${tgz} in ${(performance.now() - t).toFixed(0)} ms`);
  }
  const members = ['package/data/flights-3m.parquet', 'package/data/airports.csv'];
  execFileSync('tar', ['xzf', tgz, ...members], { cwd: CACHE });
  const parquet = path.join(CACHE, members[0]!);
  // Written under a temporary name and renamed: a run cut short never leaves half a file.
  const tmp = `${files.flights}.${process.pid}.tmp`;
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run(
    `COPY (SELECT row_number() OVER () AS flight_id, date, delay, distance, origin, destination FROM read_parquet('${parquet}')) TO '${tmp}' (HEADER, DELIMITER ',')`,
  );
  c.closeSync();
  db.closeSync();
  fs.renameSync(tmp, files.flights);
  fs.copyFileSync(path.join(CACHE, members[1]!), `${files.airports}.${process.pid}.tmp`);
  fs.renameSync(`${files.airports}.${process.pid}.tmp`, files.airports);
  fs.rmSync(path.join(CACHE, 'package'), { recursive: true, force: true });
  return files;
}

/**
 * Flights reference their origin airport. The destination is a plain attribute: a second
 * reference to airports would give every airport attribute two paths from flights, and AQL
 * refuses those as ambiguous. flight_id is the primary key ([Flight]): COUNT([Flight]) counts
 * rows; the older cases count COUNT([Distance]) (distances are never null), the same number.
 */
export const FLIGHT_PRESCRIPTIONS: Record<keyof FlightFiles, Prescription> = {
  airports: csvPrescription('airports', 'iata', [
    ['iata', 'Airport', 'A', 'string'],
    ['name', 'Airport Name', 'L', 'string', { labelOf: 'iata' }],
    ['city', 'City', 'A', 'string'],
    ['state', 'State', 'A', 'string'],
    ['country', 'Country', 'A', 'string'],
    ['latitude', 'Latitude', 'F', 'number'],
    ['longitude', 'Longitude', 'F', 'number'],
  ]),
  flights: csvPrescription('flights', 'flight_id', [
    ['flight_id', 'Flight', 'A', 'integer'],
    ['date', 'Date', 'A', 'datetime'],
    ['delay', 'Delay', 'F', 'integer'],
    ['distance', 'Distance', 'F', 'integer'],
    ['origin', 'Origin', 'A', 'string', { reference: 'airports' }],
    ['destination', 'Destination', 'A', 'string'],
  ]),
};

/** A bearer-token REST client of one project. */
export class Rest {
  constructor(
    readonly url: string,
    readonly project: string,
    readonly token: string,
  ) {}

  get base(): string {
    return `${this.url}/api/v1/projects/${this.project}`;
  }

  async call(
    method: string,
    p: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; json: Record<string, unknown> }> {
    const r = await fetch(p.startsWith('/api/') ? `${this.url}${p}` : `${this.base}${p}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, json: (await r.json()) as Record<string, unknown> };
  }

  /** A one-shot multipart upload of a local file into the storage root. */
  async upload(file: string, name: string): Promise<void> {
    const form = new FormData();
    form.append('folder', '/');
    form.append('file', await fs.openAsBlob(file), name);
    const r = await fetch(`${this.base}/storage/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.token}`, accept: 'application/json' },
      body: form,
    });
    if (r.status !== 201)
      throw new Error(`upload of ${name} answered ${r.status}: ${await r.text()}`);
  }

  /** Both files in one transform job, polled until it ends; the time in the job and the rows. */
  async load(pollMs = 10): Promise<{ inJobMs: number; rows: Record<string, number> }> {
    const clusters = Object.fromEntries(
      Object.entries(FLIGHT_PRESCRIPTIONS).map(([name, prescription]) => [
        name,
        { source_type: 'webdav', source: `/${name}.csv`, prescription },
      ]),
    );
    const started = await this.call('POST', '/kodiak/transform/execute', {
      type: 'cluster',
      clusters,
    });
    if (started.status !== 202)
      throw new Error(
        `transform/execute answered ${started.status}: ${JSON.stringify(started.json)}`,
      );
    const href = (started.json.link as { href: string }[])[0]!.href;
    for (;;) {
      const j = (await this.call('GET', href)).json as {
        status: string;
        message?: string;
        started: string;
        finished: string;
        result?: { clusters: Record<string, { rows: number }> };
      };
      if (j.status === 'OK') {
        const rows = Object.fromEntries(
          Object.entries(j.result!.clusters).map(([k, v]) => [k, v.rows]),
        );
        return { inJobMs: Date.parse(j.finished) - Date.parse(j.started), rows };
      }
      if (j.status === 'ERROR' || j.status === 'CANCELLED')
        throw new Error(`load ended ${j.status}: ${j.message}`);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }
}

/** DuckDB's own load of the same two files into a fresh file database, auto-detected. */
export async function duckdbLoad(files: FlightFiles, dir: string): Promise<number> {
  const dbFile = path.join(dir, `duck-${process.pid}-${Date.now()}.duckdb`);
  const db = await DuckDBInstance.create(dbFile);
  const c = await db.connect();
  const t0 = performance.now();
  for (const [name, file] of Object.entries(files))
    await c.run(`CREATE TABLE ${name} AS SELECT * FROM read_csv('${file}')`);
  const ms = performance.now() - t0;
  const n = Number(
    (await c.runAndReadAll('SELECT count(*) AS n FROM flights')).getRowObjectsJson()[0]!.n,
  );
  if (n !== FLIGHT_ROWS) throw new Error(`duckdb loaded ${n} flights, expected ${FLIGHT_ROWS}`);
  c.closeSync();
  db.closeSync();
  fs.rmSync(dbFile, { force: true });
  fs.rmSync(`${dbFile}.wal`, { force: true });
  return ms;
}
