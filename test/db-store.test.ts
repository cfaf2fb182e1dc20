// The metadata store's transactions on both databases: SQLite (one connection, made safe by
// serializing transactions and reading outside them from a second, read-only connection) and
// PostgreSQL (a pool; a connection per transaction). Concurrent async transactions that await
// between statements must neither see nor clobber each other's writes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../src/engine/db/index.js';
import type { TestPostgres } from '../scripts/throwaway-postgres.js';
import { sharedPostgres } from './helpers/postgres.js';

const pause = () => new Promise((r) => setTimeout(r, 5));

/** Runs the same checks on a store. */
function storeSuite(name: string, open: () => Promise<Store>, close: () => Promise<void>) {
  describe(name, () => {
    let store: Store;
    beforeAll(async () => {
      store = await open();
      await store.db
        .insert(store.tables.organizations)
        .values({ id: 'counter', name: '0', plan: 'free', created: new Date().toISOString() });
    });
    afterAll(async () => {
      await store.close();
      await close();
    });

    const read = async () =>
      Number(
        (
          await store.db
            .select()
            .from(store.tables.organizations)
            .where(eq(store.tables.organizations.id, 'counter'))
        )[0]!.name,
      );
    const write = (n: number) =>
      store.db
        .update(store.tables.organizations)
        .set({ name: String(n) })
        .where(eq(store.tables.organizations.id, 'counter'));

    it('twenty concurrent read-modify-write transactions that await in between lose no update', async () => {
      const before = await read();
      await Promise.all(
        Array.from({ length: 20 }, () =>
          store.tx(
            async () => {
              const n = await read();
              await pause();
              await write(n + 1);
            },
            { lock: ['counter'] },
          ),
        ),
      );
      expect(await read()).toBe(before + 20);
    });

    it('a read outside a transaction never sees its uncommitted write', async () => {
      const before = await read();
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let written!: () => void;
      const didWrite = new Promise<void>((r) => (written = r));
      const t = store.tx(async () => {
        await write(before + 100);
        // Inside: the transaction sees its own write.
        expect(await read()).toBe(before + 100);
        written();
        await held;
      });
      await didWrite;
      expect(await read()).toBe(before);
      release();
      await t;
      expect(await read()).toBe(before + 100);
    });

    it('a failing transaction leaves nothing; a failing nested one only undoes itself', async () => {
      const before = await read();
      await expect(
        store.tx(async () => {
          await write(before + 1);
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect(await read()).toBe(before);
      await store.tx(async () => {
        await write(before + 2);
        await store
          .tx(async () => {
            await write(before + 3);
            throw new Error('inner');
          })
          .catch(() => undefined);
        expect(await read()).toBe(before + 2);
      });
      expect(await read()).toBe(before + 2);
    });

    it('statements started in a transaction and finished after it run on their own', async () => {
      let late!: Promise<unknown>;
      await store.tx(async () => {
        late = pause().then(() => read());
      });
      // The transaction committed before `late` ran: it must not run inside a closed one.
      await expect(late).resolves.toBeTypeOf('number');
      expect(store.inTx()).toBe(false);
    });

    it('raw rows come back as objects with numbers', async () => {
      const rows = await store.rows<{ n: number }>(
        sql`SELECT count(*) AS n FROM ${store.tables.organizations} WHERE ${store.tables.organizations.id} = ${'counter'}`,
      );
      expect(rows).toEqual([{ n: 1 }]);
    });

    it('a claim takes the first row by its order; claims made at once take each row once, and none when none is left', async () => {
      const orgs = store.tables.organizations;
      const created = new Date().toISOString();
      await store.db.insert(orgs).values(
        ['claim-b', 'claim-a', 'claim-c'].map((id) => ({
          id,
          name: id,
          plan: 'queued',
          created,
        })),
      );
      const claim = () =>
        store.claimOne({
          table: orgs,
          key: orgs.id,
          where: eq(orgs.plan, 'queued'),
          orderBy: [orgs.id],
          set: { plan: 'taken' },
        });
      expect(await claim()).toMatchObject({ id: 'claim-a', plan: 'taken' });
      const got = await Promise.all([claim(), claim(), claim()]);
      expect(got.map((r) => r?.id ?? 'none').sort()).toEqual(['claim-b', 'claim-c', 'none']);
      const left = await store.db.select().from(orgs).where(eq(orgs.plan, 'queued'));
      expect(left).toEqual([]);
    });
  });
}

const sqliteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-store-'));

// Each pass checks its own store, the PostgreSQL one in a database of the run's shared server
// (docs/testing.md).
if (process.env.URSA_TEST_DATABASE === 'postgres') {
  let pg: TestPostgres | undefined;
  storeSuite(
    'PostgreSQL store',
    async () => {
      pg = await sharedPostgres();
      const url = `postgres://${pg.user}:${pg.password}@${pg.host}:${pg.port}/${pg.database}`;
      return openStore({ dataDir: sqliteDir, databaseUrl: url });
    },
    async () => {
      await pg?.stop();
      fs.rmSync(sqliteDir, { recursive: true, force: true });
    },
  );
} else {
  storeSuite(
    'SQLite store',
    () => openStore({ dataDir: sqliteDir }),
    async () => fs.rmSync(sqliteDir, { recursive: true, force: true }),
  );
}
