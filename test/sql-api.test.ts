// The SQL API (issue 33): PostgreSQL clients — node-postgres and Debian's psql — connect with
// an e-mail and an API token to a project, and read the model: SELECT … GROUP BY planned by AQL
// (answers equal to the same AQL over REST), parameters over the extended protocol, row
// filters of the member, errors with SQLSTATE and a hint, cancel requests.
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForDemo } from './helpers/aql-demo.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';

const run = promisify(execFile);
const CA = 'sql-ca@example.com';

let s: TestServer;
const clients: pg.Client[] = [];

async function connect(user = ADMIN, opts: { password?: string; database?: string } = {}) {
  const c = new pg.Client({
    host: '127.0.0.1',
    port: s.sqlPort,
    user,
    password: opts.password ?? (await s.engine.issueToken(user)),
    database: opts.database ?? s.demo,
  });
  c.on('error', () => undefined);
  await c.connect();
  clients.push(c);
  return c;
}

/** The same question over REST as AQL: rows of text cells. */
async function viaRest(aql: string, as = ADMIN): Promise<string[][]> {
  const r = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
    as,
    body: { aql },
    headers: { prefer: 'wait=60' },
  });
  expect(r.status, r.text).toBe(200);
  const v = r.json.data.values as string;
  return v ? v.split('\n').map((l) => l.split('\t')) : [];
}

const text = (rows: Record<string, unknown>[]) =>
  rows.map((r) => Object.values(r).map((v) => (v === null ? '' : String(v))));

beforeAll(async () => {
  // One job at a time: a job the test holds keeps a statement waiting (the cancel test).
  s = await startTestServer({
    URSA_DEMO_DATA: 'true',
    URSA_SQL_PORT: '0',
    URSA_JOB_CONCURRENCY: '1',
  });
  await waitForDemo(s);
  await invite(s, s.demo, CA, { filter: '[Origin State] = "CA"' });
}, 120_000);

afterAll(async () => {
  for (const c of clients) await c.end().catch(() => undefined);
  await s?.close();
});

describe('connecting', () => {
  it('takes an e-mail, an API token and the project id; says the server version', async () => {
    const c = await connect();
    const r = await c.query('SELECT 1 AS one, version(), current_database()');
    expect(r.rows[0]).toMatchObject({ one: '1', current_database: s.demo });
    expect(r.rows[0].version).toMatch(/^PostgreSQL 15\.0 \(Ursa/);
    expect((await c.query('SHOW server_version')).rows).toEqual([{ server_version: '15.0' }]);
    await c.query("SET application_name = 'notebook'");
    expect((await c.query('SHOW application_name')).rows[0].application_name).toBe('notebook');
    // Drivers open transactions: accepted, and nothing changes.
    await c.query('BEGIN');
    await c.query('COMMIT');
  });

  it('refuses a wrong token (28P01) and a project the member is not in (3D000)', async () => {
    await expect(connect(ADMIN, { password: 'not-a-token' })).rejects.toMatchObject({
      code: '28P01',
    });
    // Another member's token under the admin's name.
    const other = await s.engine.issueToken(CA);
    await expect(connect(ADMIN, { password: other })).rejects.toMatchObject({ code: '28P01' });
    await expect(connect(ADMIN, { database: 'no-such-project' })).rejects.toMatchObject({
      code: '3D000',
    });
  });
});

describe('SELECT over the model', () => {
  it('a GROUP BY across a reference answers as AQL does over REST', async () => {
    const c = await connect();
    const r = await c.query(
      'SELECT "Origin State", count(*) AS flights, sum("Distance") AS miles FROM flights, airports ' +
        'GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5',
    );
    expect(r.fields.map((f) => f.name)).toEqual(['Origin State', 'flights', 'miles']);
    const rest = await viaRest(
      'SELECT [Origin State], COUNT([flights]), SUM([Distance]) ORDER BY 2 DESC, 1 LIMIT 5',
    );
    expect(text(r.rows)).toEqual(rest);
  });

  it('a JOIN … ON the reference is the model join; another ON is refused', async () => {
    const c = await connect();
    const r = await c.query(
      'SELECT a."Origin Region", count(*) FROM flights f JOIN airports a ON f."Origin" = a."Airport Code" GROUP BY 1 ORDER BY 1',
    );
    expect(text(r.rows)).toEqual(
      await viaRest('SELECT [Origin Region], COUNT([flights]) ORDER BY 1'),
    );
    await expect(
      c.query('SELECT count(*) FROM flights f JOIN airports a ON f."Distance" = a."Airport Code"'),
    ).rejects.toMatchObject({ code: '0A000' });
  });

  it('binds parameters over the extended protocol, typed by what they are compared with', async () => {
    const c = await connect();
    const r = await c.query(
      'SELECT "Carrier Code", count(*) AS n FROM flights, carriers WHERE "Distance" > $1 AND "Carrier Code" IN ($2, $3) GROUP BY 1 ORDER BY 1',
      [1000, 'AA', 'DL'],
    );
    expect(text(r.rows)).toEqual(
      await viaRest(
        'SELECT [Carrier Code], COUNT([flights]) WHERE [Distance] > 1000 AND [Carrier Code] IN ("AA", "DL") ORDER BY 1',
      ),
    );
  });

  it('lists rows without aggregates, facts as they are; WHERE, ORDER BY and LIMIT apply', async () => {
    const c = await connect();
    const r = await c.query(
      'SELECT "Flight Date", "Distance" FROM flights WHERE "Distance" > 2500 ORDER BY "Distance" DESC, 1 LIMIT 3',
    );
    expect(r.rows).toHaveLength(3);
    expect(r.fields.map((f) => [f.name, f.dataTypeID])).toEqual([
      ['Flight Date', 1082],
      ['Distance', 701],
    ]);
    const max = await viaRest('SELECT MAX([Distance])');
    expect(r.rows[0].Distance).toBe(Number(max[0]![0]));
  });

  it('metrics are columns of the metrics table and MEASURE("…")', async () => {
    const c = await connect();
    const m = await c.query(
      'SELECT "Carrier Code", MEASURE(\'Cancellation Rate\') AS rate FROM flights, carriers GROUP BY 1 ORDER BY 1 LIMIT 3',
    );
    const rest = await viaRest('SELECT [Carrier Code], [Cancellation Rate] ORDER BY 1 LIMIT 3');
    expect(text(m.rows).map((r) => r[0])).toEqual(rest.map((r) => r[0]));
    expect(m.rows.map((r) => r.rate)).toEqual(rest.map((r) => Number(r[1])));
  });

  it('AQL itself after /*aql*/', async () => {
    const c = await connect();
    const r = await c.query('/*aql*/ SELECT [Origin Region], COUNT([Flight]) ORDER BY 1');
    expect(text(r.rows)).toEqual(
      await viaRest('SELECT [Origin Region], COUNT([Flight]) ORDER BY 1'),
    );
  });

  it("a member's row filter applies as in every door", async () => {
    const c = await connect(CA);
    const r = await c.query('SELECT "Origin State", count(*) FROM flights, airports GROUP BY 1');
    expect(r.rows.map((x) => x['Origin State'])).toEqual(['CA']);
    const all = await c.query('SELECT count(*) FROM flights');
    expect(text(all.rows)).toEqual(await viaRest('SELECT COUNT([flights])', CA));
    expect(text(all.rows)).not.toEqual(await viaRest('SELECT COUNT([flights])'));
  });
});

describe('errors', () => {
  it('name the construct with SQLSTATE and a hint, and the connection goes on', async () => {
    const c = await connect();
    await expect(c.query('SELECT "Carrier Name" FROM flights')).rejects.toMatchObject({
      code: '42703',
      hint: expect.stringContaining('carriers'),
    });
    await expect(c.query('SELECT 1 FROM nowhere')).rejects.toMatchObject({ code: '42P01' });
    await expect(c.query('SELEC 1')).rejects.toMatchObject({ code: '42601' });
    await expect(c.query('DELETE FROM flights')).rejects.toMatchObject({ code: '25006' });
    await expect(
      c.query('SELECT "Origin", "Distance", count(*) FROM flights GROUP BY 1'),
    ).rejects.toMatchObject({ code: '42803' });
    await expect(c.query('SELECT x FROM (SELECT 1 AS x) t')).rejects.toMatchObject({
      code: '0A000',
    });
    expect((await c.query('SELECT 2 AS two')).rows).toEqual([{ two: '2' }]);
  });

  it('a cancel request stops the running statement (57014)', async () => {
    const c = await connect();
    // A query held at its start: the job slot is taken by a job that waits for the gate.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const a = await s.engine.actor({ email: ADMIN }, s.demo);
    s.engine.jobs.register('ai', {
      run: async (ctx) =>
        Promise.race([
          gate,
          new Promise((_, reject) =>
            ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
          ),
        ]),
    });
    const blockers = [await s.engine.jobs.submit(a, 'ai', {})];
    try {
      const pending = c.query('SELECT "Origin", count(*) FROM flights GROUP BY 1');
      await new Promise((r) => setTimeout(r, 200));
      const pid = (c as unknown as { processID: number }).processID;
      const secret = (c as unknown as { secretKey: number }).secretKey;
      const sock = net.connect(s.sqlPort!, '127.0.0.1');
      sock.on('error', () => undefined);
      await new Promise((r) => sock.once('connect', r));
      const b = Buffer.alloc(16);
      b.writeInt32BE(16, 0);
      b.writeInt32BE(80877102, 4);
      b.writeInt32BE(pid, 8);
      b.writeInt32BE(secret, 12);
      sock.end(b);
      await expect(pending).rejects.toMatchObject({ code: '57014' });
      expect((await c.query('SELECT 3 AS three')).rows).toEqual([{ three: '3' }]);
    } finally {
      release();
      for (const j of blockers) await s.engine.jobs.cancel(a, j.id).catch(() => undefined);
    }
  });
});

describe('psql', () => {
  it('runs a query and prints the rows', async () => {
    const env = {
      ...process.env,
      PGHOST: '127.0.0.1',
      PGPORT: String(s.sqlPort),
      PGUSER: ADMIN,
      PGPASSWORD: await s.engine.issueToken(ADMIN),
      PGDATABASE: s.demo,
    };
    let out: string;
    try {
      ({ stdout: out } = await run(
        'psql',
        [
          '-X',
          '-A',
          '-t',
          '-F',
          ',',
          '-c',
          'SELECT "Origin Region", count(*) FROM flights, airports GROUP BY 1 ORDER BY 1',
        ],
        { env },
      ));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && process.env.CI !== 'true') return;
      throw err;
    }
    const rest = await viaRest('SELECT [Origin Region], COUNT([flights]) ORDER BY 1');
    expect(out.trim().split('\n')).toEqual(rest.map((r) => r.join(',')));
  });
});
