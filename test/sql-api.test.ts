// The SQL API (issue 33): PostgreSQL clients — node-postgres and Debian's psql — connect with
// an e-mail and an API token to a project, and read the model: SELECT … GROUP BY planned by AQL
// (answers equal to the same AQL over REST), parameters over the extended protocol, row
// filters of the member, errors with SQLSTATE and a hint, cancel requests.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import { promisify } from 'node:util';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForDemo } from './helpers/aql-demo.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';
import { sqlClient } from './helpers/sql-clients/run.js';

const run = promisify(execFile);
const HERE = path.dirname(fileURLToPath(import.meta.url));
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
  rows.map((r) =>
    Object.values(r).map((v) =>
      v === null ? '' : v instanceof Date ? v.toISOString().slice(0, 10) : String(v),
    ),
  );

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

/**
 * Takes the only job slot (URSA_JOB_CONCURRENCY 1) with a job that waits: a query sent now
 * stays queued until `release` (which also ends the holder).
 */
async function holdJobSlot(): Promise<{ release: () => Promise<void> }> {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
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
  const holder = await s.engine.jobs.submit(a, 'ai', {});
  return {
    release: async () => {
      open();
      await s.engine.jobs.cancel(a, holder.id).catch(() => undefined);
    },
  };
}

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
    // The connection is in the project's activity log, as a member's action.
    const log = await s.api('GET', `/projects/${s.demo}/activity?types=user_action`);
    expect(log.status, log.text).toBe(200);
    expect(log.text).toContain('connected over the SQL API');
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
      ['Distance', 20],
    ]);
    const max = await viaRest('SELECT MAX([Distance])');
    expect(r.rows[0].Distance).toBe(max[0]![0]); // int8: node-postgres keeps it as text
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

  it('a statement nested too deeply is refused with 54001, and the connection goes on', async () => {
    const c = await connect();
    const plus = Array(5000).fill('1').join(' + ');
    for (const sql of [
      `SELECT count(*) FROM flights WHERE "Distance" > ${plus}`,
      `SELECT count(*) FROM pg_catalog.pg_class WHERE oid > ${plus}`,
    ])
      await expect(c.query(sql)).rejects.toMatchObject({ code: '54001' });
    expect((await c.query('SELECT 2 AS two')).rows).toEqual([{ two: '2' }]);
  });

  it('a cancel request stops the running statement (57014)', async () => {
    const c = await connect();
    // A query held at its start: the job slot is taken by a job that waits.
    const slot = await holdJobSlot();
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
      await slot.release();
    }
  });
});

const client = (cmd: string, args: string[], env: Record<string, string> = {}) =>
  sqlClient(s, cmd, args, env);

describe('connection details and SQL passwords', () => {
  it('GET …/sql tells a member how to connect; SQL passwords only when an Admin allows them', async () => {
    const d = await s.api('GET', `/projects/${s.demo}/sql`, { as: CA });
    expect(d.status, d.text).toBe(200);
    expect(d.json.sql).toEqual({
      enabled: true,
      host: 'localhost',
      port: s.sqlPort,
      database: s.demo,
      user: CA,
      tls: false,
      passwords: { allowed: false, set: false },
    });
    const refused = await s.api('POST', `/projects/${s.demo}/sql/password`, { as: CA });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toMatch(/an Admin can allow them/);

    const on = await s.api('PUT', `/projects/${s.demo}`, { body: { sqlPasswords: true } });
    expect(on.status, on.text).toBe(200);
    expect(on.json.project.sqlPasswords).toBe(true);
    const made = await s.api('POST', `/projects/${s.demo}/sql/password`, { as: CA });
    expect(made.status, made.text).toBe(201);
    const password = made.json.password as string;
    expect(password).toMatch(/^[\w-]{32}$/);
    expect((await s.api('GET', `/projects/${s.demo}/sql`, { as: CA })).json.sql.passwords).toEqual({
      allowed: true,
      set: true,
    });
    // The password connects as the member, row filter and all.
    const c = await connect(CA, { password });
    const sql = 'SELECT "Origin State", count(*) FROM flights, airports GROUP BY 1 ORDER BY 1';
    expect(text((await c.query(sql)).rows)).toEqual(
      await viaRest('SELECT [Origin State], COUNT([flights]) ORDER BY 1', CA),
    );
    // Not in another member's name, nor in a project it was not made for.
    await expect(connect(ADMIN, { password })).rejects.toMatchObject({ code: '28P01' });

    // Off: every member's password stops working, and is gone.
    await s.api('PUT', `/projects/${s.demo}`, { body: { sqlPasswords: false } });
    await expect(connect(CA, { password })).rejects.toMatchObject({ code: '28P01' });
    await s.api('PUT', `/projects/${s.demo}`, { body: { sqlPasswords: true } });
    await expect(connect(CA, { password })).rejects.toMatchObject({ code: '28P01' });
    const again = (await s.api('POST', `/projects/${s.demo}/sql/password`, { as: CA })).json
      .password as string;
    await connect(CA, { password: again });
    expect((await s.api('DELETE', `/projects/${s.demo}/sql/password`, { as: CA })).status).toBe(
      204,
    );
    await expect(connect(CA, { password: again })).rejects.toMatchObject({ code: '28P01' });
    await s.api('PUT', `/projects/${s.demo}`, { body: { sqlPasswords: false } });
  });

  it('wrong passwords are limited as sign-ins are: after ten, 28000 and a wait', async () => {
    const who = 'sql-guesser@example.com';
    for (let i = 0; i < 10; i++)
      await expect(connect(who, { password: `wrong-${i}` })).rejects.toMatchObject({
        code: '28P01',
      });
    const blocked = connect(who, { password: 'wrong-again' });
    await expect(blocked).rejects.toMatchObject({ code: '28000' });
    await expect(blocked).rejects.toThrow(/too many failed sign-ins from this address/);
  });
});

describe('a client that goes away', () => {
  it('frees its job: the waiting query ends CANCELLED', async () => {
    const c = await connect();
    const a = await s.engine.actor({ email: ADMIN }, s.demo);
    const slot = await holdJobSlot();
    try {
      const reports = async () =>
        (await s.engine.jobs.list(a, { type: 'report', limit: 50, offset: 0 })).items;
      const before = new Set((await reports()).map((j) => j.id));
      c.query('SELECT "Destination", count(*) FROM flights GROUP BY 1').catch(() => undefined);
      const mine = async () => (await reports()).find((j) => !before.has(j.id));
      for (let i = 0; i < 100 && !(await mine()); i++) await new Promise((r) => setTimeout(r, 20));
      expect((await mine())?.status).toBe('PREPARED');
      (c as unknown as { connection: { stream: net.Socket } }).connection.stream.destroy();
      let job = await mine();
      for (let i = 0; i < 100 && job?.status !== 'CANCELLED'; i++) {
        await new Promise((r) => setTimeout(r, 20));
        job = await mine();
      }
      expect(job?.status).toBe('CANCELLED');
    } finally {
      await slot.release();
    }
  });
});

describe('real clients', () => {
  it('psql runs a query and lists the tables (\\dt)', async () => {
    const sql = 'SELECT "Origin Region", count(*) FROM flights, airports GROUP BY 1 ORDER BY 1';
    const out = await client('psql', ['-X', '-A', '-t', '-F', ',', '-c', sql]);
    if (out === null) return;
    const rest = await viaRest('SELECT [Origin Region], COUNT([flights]) ORDER BY 1');
    expect(out.trim().split('\n')).toEqual(rest.map((r) => r.join(',')));
    const dt = await client('psql', ['-X', '-A', '-t', '-c', '\\dt']);
    expect(dt!.trim().split('\n')).toEqual(
      expect.arrayContaining(['public|flights|table|ursa', 'public|airports|table|ursa']),
    );
  });

  it('psycopg2 with a parameter, and pandas.read_sql', async () => {
    const py = [
      'import json, psycopg2, pandas as pd, warnings',
      'warnings.simplefilter("ignore")',
      'c = psycopg2.connect("")',
      'cur = c.cursor()',
      `cur.execute('SELECT "Origin Region", count(*) AS n FROM flights, airports WHERE "Distance" > %s GROUP BY 1 ORDER BY 1', (1000,))`,
      'rows = cur.fetchall()',
      `df = pd.read_sql('SELECT "Carrier Code", sum("Distance") AS miles FROM flights, carriers GROUP BY 1 ORDER BY 1', c)`,
      'print(json.dumps({"rows": rows, "df": df.values.tolist(), "dtype": str(df["miles"].dtype)}))',
    ].join('\n');
    // Debian's python3, which has psycopg2 and pandas (another python3 may come first on PATH).
    const out = await client('/usr/bin/python3', ['-c', py]);
    if (out === null) return;
    const r = JSON.parse(out) as { rows: unknown[][]; df: unknown[][]; dtype: string };
    const num = (rows: string[][]) => rows.map(([a, b]) => [a, Number(b)]);
    expect(r.rows).toEqual(
      num(
        await viaRest(
          'SELECT [Origin Region], COUNT([flights]) WHERE [Distance] > 1000 ORDER BY 1',
        ),
      ),
    );
    expect(r.df).toEqual(num(await viaRest('SELECT [Carrier Code], SUM([Distance]) ORDER BY 1')));
    expect(r.dtype).toBe('float64');
  });

  it('PgJDBC: a prepared statement with an int parameter, and getTables', async () => {
    const jar = '/usr/share/java/postgresql.jar';
    if (!fs.existsSync(jar) && process.env.CI !== 'true') return;
    const out = await client('java', [
      '-cp',
      jar,
      path.join(HERE, 'helpers/sql-clients/JdbcProbe.java'),
    ]);
    if (out === null) return;
    const lines = out.trim().split('\n');
    const rest = await viaRest(
      'SELECT [Origin Region], COUNT([flights]) WHERE [Distance] > 1000 ORDER BY 1',
    );
    expect(lines.filter((l) => l.startsWith('row,'))).toEqual(
      rest.map((r) => `row,${r.join(',')}`),
    );
    expect(lines).toEqual(expect.arrayContaining(['table,flights', 'table,airports']));
  });

  it('psqlODBC through unixODBC isql (the path of Excel and Power BI)', async () => {
    const driver = '/usr/lib/x86_64-linux-gnu/odbc/psqlodbcw.so';
    if (!fs.existsSync(driver) && process.env.CI !== 'true') return;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-odbc-'));
    fs.writeFileSync(
      path.join(dir, 'odbc.ini'),
      [
        '[ursa]',
        `Driver=${driver}`,
        'Servername=127.0.0.1',
        `Port=${s.sqlPort}`,
        `Database=${s.demo}`,
        `Username=${ADMIN}`,
        `Password=${await s.engine.issueToken(ADMIN)}`,
        'SSLMode=disable',
        '',
      ].join('\n'),
    );
    const sql = 'SELECT "Origin Region", count(*) FROM flights, airports GROUP BY 1 ORDER BY 1';
    const out = await new Promise<string>((resolve, reject) => {
      const p = execFile(
        'isql',
        ['-b', '-d,', 'ursa'],
        { env: { ...process.env, ODBCINI: path.join(dir, 'odbc.ini'), ODBCSYSINI: dir } },
        (err, stdout) => (err ? reject(err) : resolve(stdout)),
      );
      p.stdin!.end(`${sql}\n`);
    });
    const rest = await viaRest('SELECT [Origin Region], COUNT([flights]) ORDER BY 1');
    expect(out.trim().split('\n')).toEqual(rest.map((r) => r.join(',')));
  });
});

describe('docs/sql.md', () => {
  it('every SQL example runs, and answers as the table under it shows', async () => {
    const md = fs.readFileSync(path.join(HERE, '../docs/sql.md'), 'utf8');
    const blocks = [...md.matchAll(/```sql\n([\s\S]*?)```\n(?:\n((?:\|.*\|\n)+))?/g)];
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    const c = await connect();
    for (const [, sql, table] of blocks) {
      const r = await c.query(sql!);
      if (!table) continue;
      const lines = table.trim().split('\n');
      const cells = (l: string) =>
        l
          .slice(1, -1)
          .split('|')
          .map((x) => x.trim());
      expect(
        r.fields.map((f) => f.name),
        sql,
      ).toEqual(cells(lines[0]!));
      expect(text(r.rows), sql).toEqual(lines.slice(2).map(cells));
    }
  });
});

describe('COPY TO STDOUT', () => {
  it('streams a query as CSV with a header (psql), and as text (pg-copy-streams)', async () => {
    const sql =
      'COPY (SELECT "Origin Region", count(*) AS n FROM flights, airports GROUP BY 1 ORDER BY 1) TO STDOUT WITH (FORMAT csv, HEADER)';
    const rest = await viaRest('SELECT [Origin Region], COUNT([flights]) ORDER BY 1');
    const out = await client('psql', ['-X', '-c', sql]);
    if (out !== null)
      expect(out.trim().split('\n')).toEqual(['Origin Region,n', ...rest.map((r) => r.join(','))]);
    const c = await connect();
    const chunks: Buffer[] = [];
    const stream = c.query(
      copyTo(
        'COPY (SELECT "Origin Region", count(*) FROM flights, airports GROUP BY 1 ORDER BY 1) TO STDOUT',
      ),
    );
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString().trim().split('\n')).toEqual(
      rest.map((r) => r.join('\t')),
    );
    await expect(c.query('COPY flights FROM STDIN')).rejects.toMatchObject({ code: '25006' });
  });
});

describe('TLS', () => {
  it('is refused cleanly when not configured: sslmode=require fails, prefer goes on in the clear', async () => {
    const strict = await client('psql', ['-X', '-A', '-t', '-c', 'SELECT 1'], {
      PGSSLMODE: 'require',
    }).catch((err: { stderr?: string }) => err.stderr ?? String(err));
    if (strict === null) return;
    expect(strict).toMatch(/does not support SSL/);
    expect(
      (await client('psql', ['-X', '-A', '-t', '-c', 'SELECT 1'], { PGSSLMODE: 'prefer' }))!.trim(),
    ).toBe('1');
  });

  it('with URSA_SQL_TLS_CERT and _KEY, clients connect over TLS', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-sql-tls-'));
    const cert = path.join(dir, 'cert.pem');
    const key = path.join(dir, 'key.pem');
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ]);
    const t = await startTestServer({
      URSA_SQL_PORT: '0',
      URSA_SQL_TLS_CERT: cert,
      URSA_SQL_TLS_KEY: key,
    });
    try {
      const c = new pg.Client({
        host: '127.0.0.1',
        port: t.sqlPort,
        user: ADMIN,
        password: await t.engine.issueToken(ADMIN),
        database: t.demo,
        ssl: { ca: fs.readFileSync(cert), servername: 'localhost' },
      });
      c.on('error', () => undefined);
      await c.connect();
      try {
        const sock = (c as unknown as { connection: { stream: { encrypted?: boolean } } })
          .connection.stream;
        expect(sock.encrypted).toBe(true);
        expect((await c.query('SELECT 1 AS one')).rows).toEqual([{ one: '1' }]);
      } finally {
        await c.end();
      }
      const out = await run('psql', ['-X', '-A', '-t', '-c', 'SELECT 2'], {
        env: {
          ...process.env,
          PGHOST: '127.0.0.1',
          PGPORT: String(t.sqlPort),
          PGUSER: ADMIN,
          PGPASSWORD: await t.engine.issueToken(ADMIN),
          PGDATABASE: t.demo,
          PGSSLMODE: 'require',
        },
      }).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT' && process.env.CI !== 'true') return null;
        throw err;
      });
      if (out) expect(out.stdout.trim()).toBe('2');
    } finally {
      await t.close();
    }
  });
});
