// A warehouse connection whose session the server ended (pg_terminate_backend, a failover) is
// never handed to the next statement: PostgreSQL's error (57P01) reaches the statement before
// the socket closes, so a connection given back to the pool then looks alive. One connection
// per server here, so the next statement gets the same one unless it was dropped.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Server } from '../src/engine/warehouse/connection.js';
import type { TestPostgres } from '../scripts/throwaway-postgres.js';
import { sharedPostgres } from './helpers/postgres.js';

let db: TestPostgres;
let su: pg.Client;
let server: Server;

beforeAll(async () => {
  db = await sharedPostgres();
  su = new pg.Client({
    host: db.socketDir,
    port: db.port,
    user: 'postgres',
    database: db.database,
  });
  su.on('error', () => {});
  await su.connect();
  server = new Server(
    '127.0.0.1',
    db.port,
    { ident: 'wh', kind: 'postgres', user: db.user, database: db.database, secret: db.password },
    {
      timeoutMs: 30_000,
      loadTimeoutMs: 30_000,
      sampleTimeoutMs: 30_000,
      pool: 1,
      net: { allowHosts: ['127.0.0.1'] },
    },
    true,
  );
}, 60_000);

afterAll(async () => {
  await server?.close();
  await su?.end();
});

describe('a terminated warehouse session', () => {
  it('fails its statement, and the next statement runs on a new connection', async () => {
    for (let round = 0; round < 5; round++) {
      // Settled into a value at once: its rejection may come before anything awaits it.
      const slow = server.query('SELECT pg_sleep(30)', []).then(
        () => null,
        (err: Error) => err,
      );
      let pid: number | undefined;
      for (let i = 0; i < 200 && !pid; i++) {
        const r = await su.query(
          `SELECT pid FROM pg_stat_activity WHERE application_name = 'ursa-warehouse' AND query LIKE 'SELECT pg_sleep%'`,
        );
        pid = r.rows[0]?.pid as number | undefined;
        if (!pid) await new Promise((r) => setTimeout(r, 25));
      }
      expect(pid).toBeDefined();
      await su.query('SELECT pg_terminate_backend($1::int)', [pid]);
      expect((await slow)?.message).toMatch(/terminating connection due to administrator command/);
      // At once, before the dead socket's end is read: the pool must not hand it out.
      const next = await server.query('SELECT 1 AS one', []);
      expect(next.rows.map((r) => String(r[0]))).toEqual(['1']);
    }
  }, 60_000);
});
