// Crash safety of data loads with a real server process (`node bin/ursa.mjs start`): a load is
// killed (SIGKILL to the whole process group) while it runs; after a restart on the same
// data directory the job is ERROR "interrupted by restart", the dataset still holds the rows
// of the last published load (over HTTP and in its version file itself), the killed load's
// unpublished file is gone, and loads work again.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { openStore } from '../src/engine/db/index.js';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import { lastLine, runCli, startCli, type StartedCli } from './helpers/cli.js';
import { ADMIN, testConfig } from './helpers/server.js';

const ROWS = 6_000_000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-crash-'));
const running: StartedCli[] = [];

afterAll(async () => {
  for (const s of running) await s.stop('SIGKILL').catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
type Json = any;

interface Server {
  cli: StartedCli;
  call(method: string, p: string, body?: unknown): Promise<{ status: number; json: Json }>;
}

async function start(): Promise<Server> {
  const cli = await startCli({
    URSA_DATA_DIR: dir,
    PORT: '0',
    URSA_DEFAULT_PLAN: 'enterprise',
    URSA_DEMO_DATA: 'false',
  });
  running.push(cli);
  // Each start has its own port, hence its own issuer: a token belongs to one server.
  const t = await runCli(['token', ADMIN], { URSA_DATA_DIR: dir, PORT: String(cli.port) });
  expect(t.code, t.stderr).toBe(0);
  const token = lastLine(t.stdout);
  const call = async (method: string, p: string, body?: unknown) => {
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${token}`,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${cli.url}/api/v1${p}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  };
  return { cli, call };
}

async function stop(s: Server, signal: NodeJS.Signals): Promise<void> {
  const pid = (
    JSON.parse(fs.readFileSync(path.join(dir, 'server.json'), 'utf8')) as { pid: number }
  ).pid;
  await s.cli.stop(signal);
  running.splice(running.indexOf(s.cli), 1);
  // tsx has exited; the server process it ran may take a moment longer to be gone, and a new
  // server refuses the data directory while it is alive.
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    if (Date.now() > deadline) throw new Error(`server process ${pid} still alive`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

const PRESCRIPTION = {
  primarykey: 'id',
  columns: [
    { id: 'id', originalheader: 'id', objectType: 'A', dataType: 'integer', label: 'Id' },
    { id: 'name', originalheader: 'name', objectType: 'A', dataType: 'string', label: 'Name' },
    {
      id: 'amount',
      originalheader: 'amount',
      objectType: 'F',
      dataType: 'number',
      label: 'Amount',
    },
  ],
};

async function execute(s: Server, project: string, source: string): Promise<string> {
  const r = await s.call('POST', `/projects/${project}/kodiak/transform/execute`, {
    type: 'cluster',
    clusters: { sales: { source_type: 'webdav', source, prescription: PRESCRIPTION } },
  });
  expect(r.status, JSON.stringify(r.json)).toBe(202);
  return r.json.link[0].id as string;
}

async function poll(s: Server, project: string, id: string, until: (j: Json) => boolean) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await s.call('GET', `/projects/${project}/kodiak/scache/obj/${id}`);
    expect(r.status).toBe(200);
    if (until(r.json)) return r.json;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${r.json.status}`);
    await new Promise((res) => setTimeout(res, 10));
  }
}

const final = (j: Json) => ['OK', 'ERROR', 'CANCELLED'].includes(j.status);

async function dataset(s: Server, project: string) {
  const r = await s.call('GET', `/projects/${project}/kodiak/dataload`);
  expect(r.status).toBe(200);
  return {
    dataVersion: r.json.dataload.dataVersion as number,
    sales: (r.json.dataload.datasets as Json[]).find((d) => d.name === 'sales'),
  };
}

/** The dataset's version files on disk (relative to the project's directory). */
function versionFiles(project: string, cluster: string): string[] {
  const d = path.join(dir, 'projects', project, 'datasets', cluster);
  return fs.readdirSync(d).map((f) => `datasets/${cluster}/${f}`);
}

/** The dataset's current version file, as the metadata publishes it. */
async function currentFile(project: string, cluster: string): Promise<string> {
  const store = await openStore(testConfig(dir));
  try {
    const [row] = await store.rows<{ file: string }>(
      sql`SELECT file FROM dataset_versions WHERE project_id = ${project} AND cluster = ${cluster} AND state = 'current'`,
    );
    return row!.file;
  } finally {
    await store.close();
  }
}

/** Reads the dataset's current version file directly (the server must be stopped). */
async function duck(project: string, sql: string) {
  const file = path.join(dir, 'projects', project, await currentFile(project, 'sales'));
  const db = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  try {
    const c = await db.connect();
    const rows = (await c.runAndReadAll(sql)).getRowObjectsJson();
    c.closeSync();
    return rows;
  } finally {
    db.closeSync();
  }
}

describe('a load killed with the server', () => {
  it('ends ERROR after the restart, keeps the last committed rows, and loads work again', async () => {
    let s = await start();
    // A project of its own, holding only what this test loads.
    const created = await s.call('POST', '/projects', {
      id: 'crash',
      label: 'Crash',
      entity: 'default',
    });
    expect(created.status).toBe(201);
    const project = created.json.project.id as string;
    const files = path.join(dir, 'projects', project, 'files');
    fs.mkdirSync(files, { recursive: true });
    fs.writeFileSync(path.join(files, 'small.csv'), 'id,name,amount\n1,one,1.5\n2,two,2.5\n');
    fs.writeFileSync(
      path.join(files, 'next.csv'),
      'id,name,amount\n7,seven,7\n8,eight,8\n9,nine,9\n',
    );
    // Straight into the storage folder: the file is there before the server is asked about it.
    const gen = await DuckDBInstance.create(':memory:');
    const g = await gen.connect();
    await g.run(
      `COPY (SELECT i AS id, 'name ' || (i % 1000) AS name, (i % 997) * 1.5 AS amount FROM range(1, ${ROWS + 1}) t(i)) TO '${path.join(files, 'big.csv')}' (HEADER)`,
    );
    g.closeSync();
    gen.closeSync();

    // 1. A small load, committed.
    const first = await poll(s, project, await execute(s, project, '/small.csv'), final);
    expect(first.status, first.message).toBe('OK');
    const committed = await dataset(s, project);
    expect(committed.sales).toMatchObject({ rows: 2, source: '/small.csv' });

    // 2. A large load, killed while it runs.
    const big = await execute(s, project, '/big.csv');
    const seen = await poll(s, project, big, (j) => j.status === 'RUNNING' || final(j));
    expect(seen.status).toBe('RUNNING');
    // Give DuckDB time to write part of the new table (and report progress), then kill.
    const inFlight = await poll(
      s,
      project,
      big,
      (j) => final(j) || (j.progress?.percentage ?? 0) > 0,
    );
    expect(inFlight.status, 'the load must still be running when it is killed').toBe('RUNNING');
    await stop(s, 'SIGKILL');

    // 3. After the restart: the job is over, the data is the committed one.
    s = await start();
    const job = await s.call('GET', `/projects/${project}/kodiak/scache/obj/${big}`);
    expect(job.json).toMatchObject({ status: 'ERROR', message: 'interrupted by restart' });
    expect(job.json.finished).toEqual(expect.any(String));
    expect(await dataset(s, project)).toEqual(committed);
    const loads = await s.call('GET', `/projects/${project}/activity/loads`);
    expect(loads.json.loads).toHaveLength(1);
    await stop(s, 'SIGTERM');
    // The killed load's unpublished file was removed at start-up: only the published one is left.
    expect(versionFiles(project, 'sales')).toEqual([await currentFile(project, 'sales')]);

    expect(
      await duck(project, 'SELECT id::INTEGER AS id, name, amount FROM "ds_sales" ORDER BY id'),
    ).toEqual([
      { id: 1, name: 'one', amount: 1.5 },
      { id: 2, name: 'two', amount: 2.5 },
    ]);
    expect(await duck(project, 'SELECT table_name FROM duckdb_tables() ORDER BY 1')).toEqual([
      { table_name: 'ds_sales' },
    ]);

    // 4. A new load works on the recovered database.
    s = await start();
    const again = await poll(s, project, await execute(s, project, '/next.csv'), final);
    expect(again.status, again.message).toBe('OK');
    const after = await dataset(s, project);
    expect(after.sales).toMatchObject({ rows: 3, source: '/next.csv' });
    expect(after.dataVersion).toBe(committed.dataVersion + 1);
    await stop(s, 'SIGTERM');
    expect(await duck(project, 'SELECT id::INTEGER AS id FROM "ds_sales" ORDER BY id')).toEqual([
      { id: 7 },
      { id: 8 },
      { id: 9 },
    ]);
  }, 180_000);
});
