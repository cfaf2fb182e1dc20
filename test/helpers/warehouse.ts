// Warehouse projects in tests: a throwaway PostgreSQL with a read-only role, SQL run as the
// owner, and a project bound to a schema of it over REST (a credentials object of kind
// postgres, then PUT /projects/{p} { warehouse }).
import { expect } from 'vitest';
import pg from 'pg';
import { startPostgres, type TestPostgres } from '../../scripts/throwaway-postgres.js';
import { sharedPostgres } from './postgres.js';
import type { TestServer } from './server.js';

export interface TestWarehouse {
  db: TestPostgres;
  /** Runs SQL as the database owner. */
  exec(sql: string, params?: unknown[]): Promise<pg.QueryResult>;
  stop(): Promise<void>;
}

/**
 * A warehouse in the run's shared PostgreSQL, or with `own` on a server of its own (a test that
 * halts it, replicates it, or reads the server's activity and roles as a whole).
 */
export async function startWarehouse(opts: { own?: boolean } = {}): Promise<TestWarehouse> {
  const db = await (opts.own ? startPostgres : sharedPostgres)({ reader: true });
  const owner = new pg.Client({
    host: db.host,
    port: db.port,
    user: db.user,
    password: db.password,
    database: db.database,
  });
  owner.on('error', () => {});
  await owner.connect();
  return {
    db,
    exec: (sql, params) => owner.query(sql, params),
    async stop() {
      await owner.end().catch(() => {});
      await db.stop();
    },
  };
}

/** Lets the read-only role read every table of the schema (and ones made later). */
export async function grantReader(w: TestWarehouse, schema: string): Promise<void> {
  const r = w.db.reader!.user;
  await w.exec(`GRANT USAGE ON SCHEMA ${schema} TO ${r}`);
  await w.exec(`GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO ${r}`);
}

/** Stores credentials of the read-only role and binds the project to `schema`. */
export async function bindWarehouse(
  s: TestServer,
  project: string,
  w: TestWarehouse,
  schema: string,
  ident = 'cred.warehouse',
): Promise<void> {
  const cred = await s.api('POST', `/projects/${project}/pmd/obj`, {
    body: {
      ident,
      type: 'credentials',
      name: `Warehouse ${ident}`,
      def: {
        kind: 'postgres',
        host: w.db.host,
        port: w.db.port,
        user: w.db.reader!.user,
        database: w.db.database,
        secret: w.db.reader!.password,
      },
    },
  });
  expect(cred.status, cred.text).toBe(201);
  const r = await s.api('PUT', `/projects/${project}`, {
    body: { warehouse: { credentials: ident, schema } },
  });
  expect(r.status, r.text).toBe(200);
}

/** A small shop schema with foreign keys (regions ← customers ← orders) and a NULL amount. */
export const SHOP_SCHEMA = `
  CREATE SCHEMA shop;
  CREATE TABLE shop.regions (region_code text PRIMARY KEY, "Region Name" text NOT NULL);
  CREATE TABLE shop.customers (
    customer_id integer PRIMARY KEY, customer_name text, region_code text REFERENCES shop.regions);
  CREATE TABLE shop.orders (
    order_id bigint PRIMARY KEY, customer_id integer REFERENCES shop.customers,
    ordered_on date NOT NULL, amount numeric(12, 2));
  INSERT INTO shop.regions VALUES ('EU', 'Europe'), ('US', 'United States');
  INSERT INTO shop.customers VALUES (1, 'Ann', 'EU'), (2, 'Bob', 'US'), (3, 'Cleo', 'EU');
  INSERT INTO shop.orders VALUES (10, 1, '2024-01-05', 120.50), (11, 1, '2024-02-10', 30.25),
    (12, 2, '2024-02-11', 200.00), (13, 3, '2024-03-01', NULL), (14, 3, '2024-03-15', 80.00);
`;
