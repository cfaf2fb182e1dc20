// The PostgreSQL and SFTP connectors against real servers started by the tests (a throwaway
// PostgreSQL cluster, an OpenSSH sshd), on 127.0.0.1 only: typed rows, streaming, the
// read-only transaction, errors naming the field to fix, the network guard, cancellation
// that leaves nothing running, and secrets that never show in a message.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  isoTimestamp,
  postgresInputSchema,
  postgresRows,
  type PostgresChunk,
} from '../src/engine/flows/connectors/postgres.js';
import {
  sftpDownload,
  sftpFormatOf,
  sftpInputSchema,
  sftpList,
} from '../src/engine/flows/connectors/sftp.js';
import type { ColumnInfo, Credentials, ReadContext } from '../src/engine/flows/connectors/types.js';
import { BoxError } from '../src/engine/flows/errors.js';
import { postgresMissing, type TestPostgres } from '../scripts/throwaway-postgres.js';
import { sharedPostgres } from './helpers/postgres.js';
import { sftpMissing, startSftp, type TestSftp } from './helpers/sftp-server.js';

const inCi = process.env.CI === 'true';
const PG_MISSING = postgresMissing();
const SFTP_MISSING = sftpMissing();
if (PG_MISSING && !inCi) console.warn(`PostgreSQL connector tests skipped: ${PG_MISSING}`);
if (SFTP_MISSING && !inCi) console.warn(`SFTP connector tests skipped: ${SFTP_MISSING}`);

const LOOPBACK = { allowHosts: ['127.0.0.1'] };

function ctxOf(opts: { signal?: AbortSignal; allow?: string[] } = {}): ReadContext {
  return {
    box: 'src',
    signal: opts.signal ?? new AbortController().signal,
    net: opts.allow ? { allowHosts: opts.allow } : LOOPBACK,
  };
}

/** The BoxError `p` fails with; checks the field and that no secret shows in the message. */
async function boxError(
  p: Promise<unknown>,
  field: string | null,
  secrets: (string | null | undefined)[],
): Promise<BoxError> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  expect(err, 'expected a BoxError').toBeInstanceOf(BoxError);
  const be = err as BoxError;
  expect(be.field, be.message).toBe(field);
  expect(be.message).toMatch(/^box "src"/);
  for (const s of secrets) {
    if (!s) continue;
    expect(be.message).not.toContain(s);
    // no line of a key either
    for (const line of s.split('\n')) if (line.length > 20) expect(be.message).not.toContain(line);
  }
  return be;
}

async function waitFor(check: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

/** A TCP server on 127.0.0.1 that accepts connections and never says anything. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    port: (srv.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        srv.close(() => r());
      }),
  };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = await silentServer();
  await s.close();
  return s.port;
}

describe('connector box schemas', () => {
  it('are strict, described, and convert to JSON Schema', () => {
    for (const schema of [postgresInputSchema, sftpInputSchema]) {
      const json = z.toJSONSchema(schema) as {
        additionalProperties?: boolean;
        description?: string;
        properties: Record<string, { description?: string }>;
      };
      expect(json.additionalProperties).toBe(false);
      expect(json.description).toBeTruthy();
      for (const [name, prop] of Object.entries(json.properties))
        expect(prop.description, name).toBeTruthy();
    }
    expect(postgresInputSchema.safeParse({ credentials: 'db', query: 'SELECT 1' }).success).toBe(
      true,
    );
    expect(postgresInputSchema.safeParse({ credentials: 'db', query: '  ' }).success).toBe(false);
    expect(
      postgresInputSchema.safeParse({ credentials: 'db', query: 'SELECT 1', x: 1 }).success,
    ).toBe(false);
    expect(sftpInputSchema.safeParse({ credentials: 'f', path: '/a.csv' }).success).toBe(true);
    expect(
      sftpInputSchema.safeParse({ credentials: 'f', path: '/a', format: 'xlsx' }).success,
    ).toBe(false);
  });

  it('input.sftp takes the format from the extension unless given', () => {
    expect(sftpFormatOf('b', '/x/sales.CSV')).toBe('csv');
    expect(sftpFormatOf('b', 'rows.ndjson')).toBe('ndjson');
    expect(sftpFormatOf('b', 'a.parquet')).toBe('parquet');
    expect(sftpFormatOf('b', 'a.dat', 'json')).toBe('json');
    expect(() => sftpFormatOf('b', 'a.dat')).toThrow(BoxError);
  });

  it('timestamps with a zone become UTC ISO text, microseconds kept', () => {
    expect(isoTimestamp('2024-03-01 12:34:56.789012+00', true)).toBe('2024-03-01T12:34:56.789012Z');
    expect(isoTimestamp('2024-03-01 12:34:56.5+05:30', true)).toBe('2024-03-01T07:04:56.5Z');
    expect(isoTimestamp('2023-12-31 23:30:00-02', true)).toBe('2024-01-01T01:30:00Z');
    expect(isoTimestamp('0050-06-01 00:00:00+00', true)).toBe('0050-06-01T00:00:00Z');
    expect(isoTimestamp('2024-03-01 12:34:56.25', false)).toBe('2024-03-01T12:34:56.25');
    expect(isoTimestamp('infinity', true)).toBe('infinity');
    expect(isoTimestamp('0044-03-15 12:00:00+00 BC', true)).toBe('0044-03-15 12:00:00+00 BC');
  });
});

// ---------------------------------------------------------------------------------------

interface Collected {
  columns: ColumnInfo[];
  rows: Record<string, unknown>[];
  batches: number[];
}

async function collect(gen: AsyncGenerator<PostgresChunk>): Promise<Collected> {
  const out: Collected = { columns: [], rows: [], batches: [] };
  let first = true;
  for await (const chunk of gen) {
    if ('columns' in chunk) {
      expect(first, 'columns come first, once').toBe(true);
      out.columns = chunk.columns;
    } else {
      expect(first, 'columns come before rows').toBe(false);
      out.batches.push(chunk.rows.length);
      out.rows.push(...chunk.rows);
    }
    first = false;
  }
  return out;
}

describe.skipIf(PG_MISSING !== null && !inCi)('input.postgres on a real PostgreSQL', () => {
  let db: TestPostgres;
  let cred: Credentials;
  let admin: pg.Client;
  const secrets = () => [db.password];

  /** Backends of the connector (application_name ursa-flow) still connected. */
  const connectorBackends = async () =>
    Number(
      (
        await admin.query(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'ursa-flow' AND datname = current_database()`,
        )
      ).rows[0].n,
    );
  const noBackendLeft = () => waitFor(async () => (await connectorBackends()) === 0);

  beforeAll(async () => {
    db = await sharedPostgres(); // on CI a missing PostgreSQL fails here, loudly
    cred = {
      ident: 'pg',
      kind: 'postgres',
      host: db.host,
      port: db.port,
      user: db.user,
      database: db.database,
      secret: db.password,
    };
    admin = new pg.Client({
      host: db.host,
      port: db.port,
      user: db.user,
      password: db.password,
      database: db.database,
    });
    admin.on('error', () => {});
    await admin.connect();
    await admin.query(`
      CREATE TABLE typed (
        id int PRIMARY KEY, i2 smallint, i8 bigint, big bigint, f4 real, f8 double precision,
        num numeric(14,4), b boolean, d date, ts timestamp, tstz timestamptz, j json, jb jsonb,
        t text, vc varchar(10), u uuid, by bytea, arr int[], iv interval
      );
      INSERT INTO typed VALUES
        (1, -32768, 9007199254740991, 9223372036854775807, 1.5, 0.1, 12345.6789, true,
         '2024-02-29', '2024-03-01 12:34:56.123456', '2024-03-01 12:34:56.789012+02',
         '{"a":[1,2,{"b":null}]}', '{"k": "v", "n": 2}', 'héllo', 'x', 
         'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\\x00ff10', '{1,2,3}', '1 day 02:00:00'),
        (2, NULL, -9223372036854775808, NULL, NULL, 'NaN', -0.5, false, NULL, NULL, NULL, NULL,
         'null', '', NULL, NULL, '', NULL, NULL);
    `);
  });

  afterAll(async () => {
    await admin?.end();
    await db?.stop();
  });

  it('reads typed columns and values for every mapped type', async () => {
    const r = await collect(postgresRows('SELECT * FROM typed ORDER BY id', cred, ctxOf()));
    expect(r.columns).toEqual([
      { name: 'id', type: 'integer' },
      { name: 'i2', type: 'integer' },
      { name: 'i8', type: 'integer' },
      { name: 'big', type: 'integer' },
      { name: 'f4', type: 'number' },
      { name: 'f8', type: 'number' },
      { name: 'num', type: 'number' },
      { name: 'b', type: 'boolean' },
      { name: 'd', type: 'date' },
      { name: 'ts', type: 'datetime' },
      { name: 'tstz', type: 'datetime' },
      { name: 'j', type: 'json' },
      { name: 'jb', type: 'json' },
      { name: 't', type: 'string' },
      { name: 'vc', type: 'string' },
      { name: 'u', type: 'string' },
      { name: 'by', type: 'string' },
      { name: 'arr', type: 'string' },
      { name: 'iv', type: 'string' },
    ]);
    expect(r.rows).toHaveLength(2);
    expect(r.rows[0]).toEqual({
      id: 1,
      i2: -32768,
      i8: 9007199254740991, // the largest safe integer stays a number
      big: '9223372036854775807', // beyond it: exact text
      f4: 1.5,
      f8: 0.1,
      num: 12345.6789,
      b: true,
      d: '2024-02-29',
      ts: '2024-03-01T12:34:56.123456', // as written, no zone
      tstz: '2024-03-01T10:34:56.789012Z', // in UTC
      j: { a: [1, 2, { b: null }] },
      jb: { k: 'v', n: 2 },
      t: 'héllo',
      vc: 'x',
      u: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      by: Buffer.from([0x00, 0xff, 0x10]).toString('base64'),
      arr: '{1,2,3}',
      iv: '1 day 02:00:00',
    });
    const second = r.rows[1] as Record<string, unknown>;
    expect(second.i2).toBeNull();
    expect(second.i8).toBe('-9223372036854775808');
    expect(second.f8).toBeNaN();
    expect(second.num).toBe(-0.5);
    expect(second.b).toBe(false);
    expect(second.j).toBeNull(); // SQL NULL
    expect(second.jb).toBeNull(); // JSON null
    expect(second.t).toBe('');
    expect(second.by).toBe('');
  });

  it('reports columns of an empty result, renames repeated names, keeps computed ones', async () => {
    const r = await collect(
      postgresRows(
        `SELECT 1 AS a, 2 AS "A", 3 AS a, now()::date - now()::date, 'x'::text AS "__proto__"
         FROM typed WHERE false`,
        cred,
        ctxOf(),
      ),
    );
    expect(r.columns.map((c) => c.name)).toEqual(['a', 'A_2', 'a_3', '?column?', '__proto__']);
    expect(r.rows).toEqual([]);
    const one = await collect(postgresRows(`SELECT 1 AS a, 'x' AS "__proto__"`, cred, ctxOf()));
    expect(Object.getPrototypeOf(one.rows[0])).toBe(Object.prototype);
    expect(Object.keys(one.rows[0] as object)).toEqual(['a', '__proto__']);
  });

  it('streams a large result in batches, never the whole result at once', async () => {
    const t0 = Date.now();
    const gen = postgresRows(
      'SELECT g AS n, md5(g::text) AS h FROM generate_series(1, 200000) g',
      cred,
      ctxOf(),
      { batchRows: 5000 },
    );
    let batches = 0;
    let rows = 0;
    let last = 0;
    for await (const chunk of gen) {
      if (!('rows' in chunk)) continue;
      batches++;
      expect(chunk.rows.length).toBeLessThanOrEqual(5000);
      rows += chunk.rows.length;
      last = chunk.rows.at(-1)?.n as number;
    }
    expect({ batches, rows, last }).toEqual({ batches: 40, rows: 200_000, last: 200_000 });
    console.log(`200k rows in 40 batches: ${Date.now() - t0} ms`);
    expect(await noBackendLeft()).toBe(true);
  });

  it('a consumer that stops early leaves no backend behind', async () => {
    const gen = postgresRows('SELECT g FROM generate_series(1, 1000000) g', cred, ctxOf(), {
      batchRows: 100,
    });
    let got = 0;
    for await (const chunk of gen) {
      if ('rows' in chunk && ++got === 2) break;
    }
    expect(await noBackendLeft()).toBe(true);
  });

  it('runs in a read-only transaction: writes fail in PostgreSQL', async () => {
    for (const sql of [
      'DELETE FROM typed',
      'CREATE TABLE evil (a int)',
      'UPDATE typed SET t = $$x$$',
      'DROP TABLE typed',
    ]) {
      const e = await boxError(collect(postgresRows(sql, cred, ctxOf())), 'query', secrets());
      expect(e.message).toMatch(/read-only transaction/);
    }
    // One statement only: a second one cannot ride along.
    const multi = await boxError(
      collect(postgresRows('SELECT 1; DELETE FROM typed', cred, ctxOf())),
      'query',
      secrets(),
    );
    expect(multi.message).toMatch(/multiple commands/);
    const left = await admin.query('SELECT count(*)::int AS n FROM typed');
    expect(left.rows[0].n).toBe(2);
    expect((await admin.query(`SELECT to_regclass('evil') AS t`)).rows[0].t).toBeNull();
  });

  it('a failing query names the column, the position and the hint', async () => {
    const e = await boxError(
      collect(postgresRows('SELECT amout FROM typed', cred, ctxOf())),
      'query',
      secrets(),
    );
    expect(e.message).toBe('box "src" (query): column "amout" does not exist at position 8');
    const multi = await boxError(
      collect(postgresRows('SELECT id,\n  i2,\n  amout\nFROM typed', cred, ctxOf())),
      'query',
      secrets(),
    );
    expect(multi.message).toMatch(
      /column "amout" does not exist at position 20 \(line 3, column 3\)/,
    );
    const hinted = await boxError(
      collect(postgresRows('SELECT lenght(t) FROM typed', cred, ctxOf())),
      'query',
      secrets(),
    );
    expect(hinted.message).toMatch(/function lenght\(text\) does not exist at position 8; hint: /);
    const syntax = await boxError(
      collect(postgresRows('SELEC 1', cred, ctxOf())),
      'query',
      secrets(),
    );
    expect(syntax.message).toMatch(/syntax error at or near "SELEC" at position 1/);
  });

  it('a statement running past the statement timeout fails on the query', async () => {
    const e = await boxError(
      collect(postgresRows('SELECT pg_sleep(5)', cred, ctxOf(), { statementTimeoutMs: 200 })),
      'query',
      secrets(),
    );
    expect(e.message).toMatch(/statement timeout/);
  });

  it('a wrong password or database fails on the credentials, without the secret', async () => {
    const wrong = 'not-the-password-9f8e7d';
    const e = await boxError(
      collect(postgresRows('SELECT 1', { ...cred, secret: wrong }, ctxOf())),
      'credentials',
      [wrong, db.password],
    );
    expect(e.message).toContain(`password authentication failed for user "${db.user}"`);
    expect(e.message).toContain(`127.0.0.1:${db.port}`);
    const none = await boxError(
      collect(postgresRows('SELECT 1', { ...cred, secret: null }, ctxOf())),
      'credentials',
      secrets(),
    );
    expect(none.message).toContain(`127.0.0.1:${db.port} asks for a password`);
    const nodb = await boxError(
      collect(postgresRows('SELECT 1', { ...cred, database: 'nope' }, ctxOf())),
      'credentials',
      secrets(),
    );
    expect(nodb.message).toMatch(/database "nope" does not exist/);
  });

  it('the network guard refuses 127.0.0.1 unless it is allowed', async () => {
    const e = await boxError(
      collect(postgresRows('SELECT 1', cred, ctxOf({ allow: [] }))),
      'credentials',
      secrets(),
    );
    expect(e.message).toContain(`127.0.0.1:${db.port}`);
    expect(e.message).toContain('URSA_CONNECTOR_ALLOW_HOSTS');
    const byName = await boxError(
      collect(postgresRows('SELECT 1', { ...cred, host: 'localhost' }, ctxOf({ allow: [] }))),
      'credentials',
      secrets(),
    );
    expect(byName.message).toContain(`localhost:${db.port}`);
  });

  it('a refused or silent server fails on the credentials naming host:port', async () => {
    const port = await closedPort();
    const refused = await boxError(
      collect(postgresRows('SELECT 1', { ...cred, port }, ctxOf())),
      'credentials',
      secrets(),
    );
    expect(refused.message).toContain(`127.0.0.1:${port}: connection refused`);
    const silent = await silentServer();
    try {
      const t0 = Date.now();
      const e = await boxError(
        collect(
          postgresRows('SELECT 1', { ...cred, port: silent.port }, ctxOf(), {
            connectTimeoutMs: 300,
          }),
        ),
        'credentials',
        secrets(),
      );
      expect(e.message).toContain(`127.0.0.1:${silent.port}`);
      expect(Date.now() - t0).toBeLessThan(3000);
    } finally {
      await silent.close();
    }
  });

  it('cancel between batches stops the read and closes the connection', async () => {
    const ac = new AbortController();
    const gen = postgresRows(
      'SELECT g FROM generate_series(1, 1000000) g',
      cred,
      ctxOf({ signal: ac.signal }),
      {
        batchRows: 1000,
      },
    );
    let batches = 0;
    const reason = new Error('stopped by the user');
    const run = (async () => {
      for await (const chunk of gen) {
        if ('rows' in chunk && ++batches === 3) ac.abort(reason);
      }
    })();
    await expect(run).rejects.toBe(reason);
    expect(batches).toBe(3);
    expect(await noBackendLeft()).toBe(true);
  });

  it('cancel in the middle of a statement cancels it in PostgreSQL', async () => {
    const ac = new AbortController();
    const reason = new Error('cancelled');
    const t0 = Date.now();
    const run = collect(postgresRows('SELECT pg_sleep(60)', cred, ctxOf({ signal: ac.signal })));
    // wait until the statement runs
    expect(
      await waitFor(async () => {
        const r = await admin.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE application_name = 'ursa-flow' AND datname = current_database() AND query LIKE '%pg_sleep(60)%' AND state = 'active'`,
        );
        return r.rows[0].n === 1;
      }),
    ).toBe(true);
    ac.abort(reason);
    await expect(run).rejects.toBe(reason);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(await noBackendLeft()).toBe(true);
    // an aborted signal refuses to start
    await expect(
      collect(postgresRows('SELECT 1', cred, ctxOf({ signal: ac.signal }))),
    ).rejects.toBe(reason);
  });

  it('a connection killed by the server fails the read without crashing the process', async () => {
    const gen = postgresRows('SELECT g FROM generate_series(1, 100000) g', cred, ctxOf(), {
      batchRows: 1000,
    });
    const first = await gen.next(); // columns
    expect(first.value).toHaveProperty('columns');
    await gen.next(); // a batch: the connection now idles while we "process" it
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'ursa-flow' AND datname = current_database()`,
    );
    await new Promise((r) => setTimeout(r, 200)); // the idle client sees the error event
    const e = await boxError(
      (async () => {
        for (;;) if ((await gen.next()).done) break;
      })(),
      null,
      secrets(),
    );
    expect(e.message).toContain(`127.0.0.1:${db.port}`);
    expect(await noBackendLeft()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------

describe.skipIf(SFTP_MISSING !== null && !inCi)('input.sftp on a real OpenSSH server', () => {
  let srv: TestSftp;
  let cred: Credentials;
  let local: string;
  const secrets = () => [srv.password, srv.privateKey, srv.privateKeyPem];
  /** Processes of the SFTP user (the sessions sshd runs for our connections), from /proc. */
  const sessions = () => {
    const uid = execFileSync('id', ['-u', srv.user], { encoding: 'utf8' }).trim();
    const pids: number[] = [];
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const status = fs.readFileSync(`/proc/${entry}/status`, 'utf8');
        const zombie = /^State:\s+Z/m.test(status); // exited, waiting to be reaped
        if (!zombie && new RegExp(`^Uid:\\s+${uid}\\s`, 'm').test(status)) pids.push(Number(entry));
      } catch {
        // exited meanwhile
      }
    }
    return pids;
  };
  const noSessionLeft = () => waitFor(async () => sessions().length === 0);

  beforeAll(async () => {
    srv = await startSftp(); // on CI a missing sshd fails here, loudly
    cred = {
      ident: 'files',
      kind: 'sftp',
      host: srv.host,
      port: srv.port,
      user: srv.user,
      secret: srv.password,
    };
    local = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-sftp-local-'));
    fs.mkdirSync(path.join(srv.root, 'drop', 'sub', 'deeper'), { recursive: true });
    fs.writeFileSync(path.join(srv.root, 'sales.csv'), 'id,amount\n1,10\n2,20\n');
    fs.writeFileSync(path.join(srv.root, 'drop', 'a.csv'), 'a\n1\n');
    fs.writeFileSync(path.join(srv.root, 'drop', 'b.csv'), 'b\n22\n');
    fs.writeFileSync(path.join(srv.root, 'drop', 'notes.txt'), 'n');
    fs.writeFileSync(path.join(srv.root, 'drop', 'sub', 'c.csv'), 'c\n333\n');
    fs.writeFileSync(path.join(srv.root, 'drop', 'sub', 'deeper', 'd.csv'), 'd\n4444\n');
    // 1 GiB without data on disk: long enough to download that a cancel lands mid-way.
    fs.closeSync(fs.openSync(path.join(srv.root, 'big.bin'), 'w'));
    fs.truncateSync(path.join(srv.root, 'big.bin'), 1024 ** 3);
    execFileSync('chown', ['-R', `${srv.user}:`, srv.root]);
  });

  afterAll(async () => {
    await srv?.stop();
    if (local) fs.rmSync(local, { recursive: true, force: true });
  });

  it('downloads a file with a password', async () => {
    const to = path.join(local, 'p.csv');
    const r = await sftpDownload(cred, `${srv.root}/sales.csv`, to, ctxOf());
    expect(r).toEqual({ bytes: 20 });
    expect(fs.readFileSync(to, 'utf8')).toBe('id,amount\n1,10\n2,20\n');
    // relative to the login directory
    const rel = path.join(local, 'rel.csv');
    expect(await sftpDownload(cred, 'drop/a.csv', rel, ctxOf())).toEqual({ bytes: 4 });
    expect(fs.readFileSync(rel, 'utf8')).toBe('a\n1\n');
    expect(await noSessionLeft()).toBe(true);
  });

  it('downloads with a private key (OpenSSH and PEM formats)', async () => {
    for (const key of [srv.privateKey, srv.privateKeyPem]) {
      const to = path.join(local, 'k.csv');
      const r = await sftpDownload({ ...cred, secret: key }, 'sales.csv', to, ctxOf());
      expect(r.bytes).toBe(20);
      expect(fs.readFileSync(to, 'utf8')).toContain('2,20');
    }
    const e = await boxError(
      sftpDownload(
        {
          ...cred,
          secret:
            '-----BEGIN OPENSSH PRIVATE KEY-----\nbm90IGEga2V5\n-----END OPENSSH PRIVATE KEY-----\n',
        },
        'sales.csv',
        path.join(local, 'x.csv'),
        ctxOf(),
      ),
      'credentials',
      secrets(),
    );
    expect(e.message).toMatch(/private key/);
  });

  it('lists files matching a glob, deeper only with **', async () => {
    const base = `${srv.root}/drop`;
    const flat = await sftpList(cred, `${base}/*.csv`, ctxOf());
    expect(flat.map((f) => f.path)).toEqual([`${base}/a.csv`, `${base}/b.csv`]);
    expect(flat.map((f) => f.size)).toEqual([4, 5]);
    for (const f of flat) expect(Math.abs(f.mtime - Date.now())).toBeLessThan(120_000);
    const deep = await sftpList(cred, `${base}/**/*.csv`, ctxOf());
    expect(deep.map((f) => f.path)).toEqual([
      `${base}/a.csv`,
      `${base}/b.csv`,
      `${base}/sub/c.csv`,
      `${base}/sub/deeper/d.csv`,
    ]);
    const oneLevel = await sftpList(cred, `${base}/*/*.csv`, ctxOf());
    expect(oneLevel.map((f) => f.path)).toEqual([`${base}/sub/c.csv`]);
    const rel = await sftpList(cred, 'drop/{a,c}.csv', ctxOf());
    expect(rel.map((f) => f.path)).toEqual(['drop/a.csv']);
    const exact = await sftpList(cred, `${base}/b.csv`, ctxOf());
    expect(exact).toEqual([{ path: `${base}/b.csv`, size: 5, mtime: flat[1]?.mtime }]);
    expect(await sftpList(cred, `${srv.root}/nowhere/*.csv`, ctxOf())).toEqual([]);
    expect(await sftpList(cred, `${base}/none.csv`, ctxOf())).toEqual([]);
  });

  it('sees a rewritten file change (size, or modification time alone)', async () => {
    const pattern = `${srv.root}/drop/*.csv`;
    const before = await sftpList(cred, pattern, ctxOf());
    const b = path.join(srv.root, 'drop', 'b.csv');
    fs.writeFileSync(b, 'b\n22\n23\n');
    const grown = await sftpList(cred, pattern, ctxOf());
    expect(grown[1]?.size).toBe(8);
    expect(grown[0]).toEqual(before[0]); // a.csv unchanged
    // same size, new content, later modification time
    fs.writeFileSync(b, 'b\n99\n98\n');
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(b, later, later);
    const touched = await sftpList(cred, pattern, ctxOf());
    expect(touched[1]?.size).toBe(8);
    expect(touched[1]?.mtime).toBe(Math.floor(later.getTime() / 1000) * 1000);
    expect(touched[1]?.mtime).not.toBe(grown[1]?.mtime);
  });

  it('a missing file fails on the path; a directory too', async () => {
    const to = path.join(local, 'missing.csv');
    const e = await boxError(sftpDownload(cred, 'nope/none.csv', to, ctxOf()), 'path', secrets());
    expect(e.message).toMatch(/no such file on the SFTP server/);
    expect(fs.existsSync(to)).toBe(false);
    const d = await boxError(sftpDownload(cred, 'drop', to, ctxOf()), 'path', secrets());
    expect(d.message).toMatch(/is a directory/);
  });

  it('a file over the size limit fails on the path', async () => {
    const to = path.join(local, 'limit.csv');
    const e = await boxError(
      sftpDownload(cred, 'sales.csv', to, ctxOf(), { maxBytes: 10 }),
      'path',
      secrets(),
    );
    expect(e.message).toMatch(/larger than the 10 bytes/);
    expect(fs.existsSync(to)).toBe(false);
  });

  it('a wrong password fails on the credentials, without the secret', async () => {
    const wrong = 'wrong-password-5a4b3c';
    const e = await boxError(
      sftpList({ ...cred, secret: wrong }, 'drop/*.csv', ctxOf()),
      'credentials',
      [wrong, ...secrets()],
    );
    expect(e.message).toContain(`127.0.0.1:${srv.port}`);
    expect(e.message).toContain(`refused the login of user "${srv.user}"`);
    expect(await noSessionLeft()).toBe(true);
  });

  it('the network guard refuses 127.0.0.1 unless it is allowed', async () => {
    const e = await boxError(
      sftpDownload(cred, 'sales.csv', path.join(local, 'g.csv'), ctxOf({ allow: [] })),
      'credentials',
      secrets(),
    );
    expect(e.message).toContain(`127.0.0.1:${srv.port}`);
    expect(e.message).toContain('URSA_CONNECTOR_ALLOW_HOSTS');
    await boxError(sftpList(cred, '*.csv', ctxOf({ allow: ['10.0.0.1'] })), 'credentials', []);
  });

  it('a refused or silent server fails on the credentials naming host:port', async () => {
    const port = await closedPort();
    const refused = await boxError(
      sftpList({ ...cred, port }, '*.csv', ctxOf()),
      'credentials',
      secrets(),
    );
    expect(refused.message).toContain(`127.0.0.1:${port}: connection refused`);
    const silent = await silentServer();
    try {
      const t0 = Date.now();
      const e = await boxError(
        sftpList({ ...cred, port: silent.port }, '*.csv', ctxOf(), { timeoutMs: 300 }),
        'credentials',
        secrets(),
      );
      expect(e.message).toContain(`127.0.0.1:${silent.port}: no answer in time`);
      expect(Date.now() - t0).toBeLessThan(3000);
    } finally {
      await silent.close();
    }
  });

  it('cancel stops a download, removes the partial file and closes the connection', async () => {
    const ac = new AbortController();
    const reason = new Error('stopped');
    const to = path.join(local, 'big.bin');
    const t0 = Date.now();
    const run = sftpDownload(cred, 'big.bin', to, ctxOf({ signal: ac.signal }));
    // wait until data flows
    expect(await waitFor(async () => fs.existsSync(to) && fs.statSync(to).size > 0)).toBe(true);
    ac.abort(reason);
    await expect(run).rejects.toBe(reason);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(await waitFor(async () => !fs.existsSync(to))).toBe(true);
    expect(await noSessionLeft()).toBe(true);
    await expect(sftpList(cred, '*.csv', ctxOf({ signal: ac.signal }))).rejects.toBe(reason);
  });

  it('a connection dropped by the server fails the download without crashing', async () => {
    const to = path.join(local, 'drop.bin');
    // Killing the session processes usually closes the connection at once; when sshd's monitor
    // keeps the socket open instead, the server's silence fails the download (the idle
    // timeout), here well inside the test's own time limit.
    const run = sftpDownload(cred, 'big.bin', to, ctxOf(), { timeoutMs: 8_000 });
    expect(await waitFor(async () => fs.existsSync(to) && fs.statSync(to).size > 0)).toBe(true);
    // The session processes belong to the sshd this test started.
    for (const pid of sessions()) process.kill(pid, 'SIGKILL');
    const e = await boxError(run, null, secrets());
    expect(e.message).toContain(`127.0.0.1:${srv.port}`);
    expect(fs.existsSync(to)).toBe(false);
  });
});
