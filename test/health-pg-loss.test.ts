// A process whose PostgreSQL goes away (issue 21, health): /readyz answers 503 in the error
// shape naming the database, /healthz stays 200 (the process is alive: no restart), and both
// the probe and the API recover on their own when PostgreSQL is back, without a restart.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { createLogger } from '../src/engine/logger.js';
import { startServer, type RunningServer } from '../src/server.js';
import {
  postgresMissing,
  startPostgres,
  type TestPostgres,
} from '../scripts/throwaway-postgres.js';
import { ADMIN_PASSWORD } from './helpers/server.js';

const missing = postgresMissing();
if (missing && process.env.CI) throw new Error(missing);

// Has its own PostgreSQL: run once, in the SQLite pass.
describe.skipIf(!!missing || process.env.URSA_TEST_DATABASE === 'postgres')(
  'losing PostgreSQL and getting it back',
  () => {
    let pg: TestPostgres;
    let s: RunningServer;
    let token: string;
    // Made in beforeAll: a skipped describe still runs its body, and would leave the directory.
    let dataDir = '';

    beforeAll(async () => {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-pg-loss-'));
      pg = await startPostgres();
      const config = loadConfig({
        URSA_DATA_DIR: dataDir,
        URSA_DATABASE_URL: `postgres://${pg.user}:${pg.password}@${pg.host}:${pg.port}/${pg.database}`,
        PORT: '0',
        HOST: '127.0.0.1',
        URSA_ADMIN_PASSWORD: ADMIN_PASSWORD,
        URSA_DEMO_DATA: 'false',
        URSA_LOG_LEVEL: 'silent',
      });
      s = await startServer(config, createLogger('silent'), false);
      token = await s.engine.issueToken(config.adminEmail);
    }, 120_000);
    afterAll(async () => {
      await s?.close().catch(() => undefined);
      await pg?.stop();
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    });

    const get = async (p: string, auth = false) => {
      const r = await fetch(`${s.url}${p}`, {
        headers: auth ? { authorization: `Bearer ${token}`, accept: 'application/json' } : {},
        signal: AbortSignal.timeout(15_000),
      });
      const text = await r.text();
      return { status: r.status, json: JSON.parse(text) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
    };

    it('503 while it is gone, 200 again once it is back', async () => {
      expect((await get('/readyz')).status).toBe(200);
      expect((await get('/api/v1/projects', true)).status).toBe(200);

      pg.halt();
      const down = await get('/readyz');
      expect(down.status).toBe(503);
      expect(Object.keys(down.json).sort()).toEqual([
        'context',
        'errorId',
        'message',
        'statusCode',
      ]);
      expect(down.json.message).toContain('database');
      expect(down.json.context.checks.database).toMatchObject({ ok: false });
      // Nothing of the connection string (password) in the answer.
      expect(JSON.stringify(down.json)).not.toContain(pg.password);
      expect((await get('/healthz')).status).toBe(200);
      const api = await get('/api/v1/projects', true);
      expect(api.status).toBe(503);
      expect(api.json).toHaveProperty('errorId');

      pg.resume();
      await expect
        .poll(async () => (await get('/readyz')).status, { timeout: 30_000, interval: 500 })
        .toBe(200);
      expect((await get('/api/v1/projects', true)).status).toBe(200);
    }, 120_000);
  },
);
