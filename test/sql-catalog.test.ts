// The SQL API's catalog (issue 33): PostgreSQL 15's pg_catalog and information_schema emulated
// over the member's view of the model, as psql's \d, PgJDBC's DatabaseMetaData, psqlODBC and
// BI tools read them — PostgreSQL's type names and OIDs, primary and foreign keys from the
// model's keys and references, descriptions, PostgreSQL's regular-expression semantics.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForDemo } from './helpers/aql-demo.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';
import { sqlClient } from './helpers/sql-clients/run.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CA = 'sql-catalog-ca@example.com';

let s: TestServer;
const clients: pg.Client[] = [];

async function connect(user = ADMIN) {
  const c = new pg.Client({
    host: '127.0.0.1',
    port: s.sqlPort,
    user,
    password: await s.engine.issueToken(user),
    database: s.demo,
  });
  c.on('error', () => undefined);
  await c.connect();
  clients.push(c);
  return c;
}

beforeAll(async () => {
  s = await startTestServer({ URSA_DEMO_DATA: 'true', URSA_SQL_PORT: '0' });
  await waitForDemo(s);
  await invite(s, s.demo, CA, { filter: '[Origin State] = "CA"' });
}, 120_000);

afterAll(async () => {
  for (const c of clients) await c.end().catch(() => undefined);
  await s?.close();
});

const lines = (out: string) =>
  out
    .trim()
    .split('\n')
    .map((l) => l.trim());

describe('the catalog', () => {
  it("information_schema lists the member's tables and columns with their types", async () => {
    const c = await connect();
    const t = await c.query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
    );
    expect(t.rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining(['airports', 'carriers', 'flights', 'metrics']),
    );
    const cols = await c.query(
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'flights' ORDER BY ordinal_position",
    );
    expect(cols.rows).toEqual(
      expect.arrayContaining([
        { column_name: 'Distance', data_type: 'bigint' },
        { column_name: 'Flight Date', data_type: 'date' },
        { column_name: 'Carrier', data_type: 'text' },
      ]),
    );
    // A query over both the catalog and the model is refused, not half answered.
    await expect(
      c.query('SELECT count(*) FROM flights, information_schema.tables'),
    ).rejects.toMatchObject({ code: '0A000' });
  });

  it('shows a member only the objects their roles let them read', async () => {
    const c = await connect(CA);
    const t = await c.query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    expect(t.rows.length).toBeGreaterThan(0);
    // Every column listed is one the member can query.
    const cols = await c.query(
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'airports'",
    );
    for (const { column_name } of cols.rows)
      await c.query(`SELECT "${column_name}" FROM airports LIMIT 1`);
  });
});

describe("psql's \\d", () => {
  it('describes a table: PostgreSQL types, not null key, its index and foreign keys', async () => {
    const out = await sqlClient(s, 'psql', ['-X', '-c', '\\d flights']);
    if (out === null) return;
    const l = lines(out);
    expect(l[0]).toBe('Table "public.flights"');
    const row = (name: string) =>
      l.map((x) => x.split(/\s*\|\s*/)).find((cells) => cells[0] === name);
    expect(row('Distance')?.[1]).toBe('bigint');
    expect(row('Flight Date')?.[1]).toBe('date');
    expect(row('Arrival Delay')?.[1]).toBe('double precision');
    expect(row('Cancelled')?.[1]).toBe('boolean');
    expect(row('Flight')?.slice(1, 4)).toEqual(['bigint', '', 'not null']);
    expect(l).toEqual(
      expect.arrayContaining([
        'Indexes:',
        '"flights_pkey" PRIMARY KEY, btree ("Flight")',
        'Foreign-key constraints:',
        '"flights_origin_fkey" FOREIGN KEY ("Origin") REFERENCES airports("Airport Code")',
      ]),
    );
  });

  it("\\d+ shows the model's descriptions and who references a table; \\dn and \\l", async () => {
    const out = await sqlClient(s, 'psql', ['-X', '-c', '\\d+ airports']);
    if (out === null) return;
    const l = lines(out);
    const code = l.find((x) => x.startsWith('Airport Code '))!;
    expect(code).toMatch(/three-letter airport code/);
    expect(l).toEqual(
      expect.arrayContaining([
        'Referenced by:',
        'TABLE "flights" CONSTRAINT "flights_origin_fkey" FOREIGN KEY ("Origin") REFERENCES airports("Airport Code")',
      ]),
    );
    // \dn hides pg_catalog with `nspname !~ '^pg_'`: PostgreSQL's `~` matches anywhere.
    const dn = await sqlClient(s, 'psql', ['-X', '-A', '-t', '-c', '\\dn']);
    expect(lines(dn!)).toEqual(['public|ursa']);
    const l2 = await sqlClient(s, 'psql', ['-X', '-A', '-t', '-c', '\\l']);
    expect(lines(l2!)[0]!.split('|').slice(0, 3)).toEqual([s.demo, 'ursa', 'UTF8']);
  });
});

describe('drivers', () => {
  it("PgJDBC's DatabaseMetaData: columns with their JDBC types, primary and foreign keys", async () => {
    const jar = '/usr/share/java/postgresql.jar';
    if (!fs.existsSync(jar) && process.env.CI !== 'true') return;
    const out = await sqlClient(s, 'java', [
      '-cp',
      jar,
      path.join(HERE, 'helpers/sql-clients/JdbcMeta.java'),
    ]);
    if (out === null) return;
    expect(lines(out)).toEqual(
      expect.arrayContaining([
        'column,Distance,int8,-5',
        'column,Flight Date,date,91',
        'column,Carrier,text,12',
        'column,Arrival Delay,float8,8',
        'column,Cancelled,bool,-7',
        'pk,Airport Code',
        'fk,Origin,airports,Airport Code',
        'fk,Carrier,carriers,Carrier Code',
        'schema,public',
      ]),
    );
  });

  it("psqlODBC's SQLColumns (isql's help), the path of Excel and Power BI", async () => {
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
    const env = { ODBCINI: path.join(dir, 'odbc.ini'), ODBCSYSINI: dir };
    const out = await sqlClient(s, 'isql', ['-b', '-d,', 'ursa'], env, 'help flights\n');
    if (out === null) return;
    // catalog, schema, table, column, SQL type, type name
    const cols = lines(out).map((l) => l.split(',').slice(2, 6));
    expect(cols).toEqual(
      expect.arrayContaining([
        ['flights', 'Distance', '-5', 'int8'],
        ['flights', 'Flight Date', '9', 'date'],
        ['flights', 'Carrier', '-1', 'text'],
      ]),
    );
  });
});

describe('catalog queries', () => {
  it("follow PostgreSQL's regular expressions: ~ finds a match anywhere, ~* ignores case", async () => {
    const c = await connect();
    const names = async (where: string) =>
      (
        await c.query(`SELECT nspname FROM pg_catalog.pg_namespace WHERE ${where} ORDER BY 1`)
      ).rows.map((r) => r.nspname as string);
    expect(await names("nspname ~ 'catal'")).toEqual(['pg_catalog']);
    expect(await names("nspname !~ '^pg_'")).toEqual(['information_schema', 'public']);
    expect(await names("nspname ~* 'PUBLIC'")).toEqual(['public']);
    expect(await names("nspname OPERATOR(pg_catalog.!~*) 'PG_|INFO'")).toEqual(['public']);
  });

  it("take parameters, and answer with PostgreSQL's type OIDs and names", async () => {
    const c = await connect();
    const t = await c.query('SELECT typname FROM pg_catalog.pg_type WHERE oid = $1', [23]);
    expect(t.rows).toEqual([{ typname: 'int4' }]);
    const f = await c.query(
      "SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a WHERE a.attrelid = 'flights'::regclass AND a.attname = $1",
      ['Distance'],
    );
    expect(f.rows).toEqual([{ attname: 'Distance', format_type: 'bigint' }]);
    // A table's description, as obj_description reads it.
    const d = await c.query(
      "SELECT obj_description(oid, 'pg_class') AS d FROM pg_catalog.pg_class WHERE relname = 'flights'",
    );
    expect(d.rows[0].d).toMatch(/one row per US domestic flight/);
  });
});
