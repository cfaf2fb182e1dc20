// Two passes of the suite (docs/testing.md): every file with the metadata on SQLite, and the
// files of test/passes.ts BOTH_PASSES again on PostgreSQL. URSA_TEST_DATABASE picks them:
// unset or `sqlite` (npm test), `postgres` (npm run test:pg), `both` (CI: one run, one pool of
// workers for the two passes, so neither waits for the other's slowest file).
import fs from 'node:fs';
import os from 'node:os';
import { defineConfig } from 'vitest/config';
import { BOTH_PASSES, SQLITE_ONLY } from './test/passes.js';

const files = fs
  .readdirSync('test')
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => f.slice(0, -'.test.ts'.length));
const listed = [...BOTH_PASSES, ...Object.keys(SQLITE_ONLY)];
const unlisted = files.filter((f) => !listed.includes(f));
const twice = listed.filter((f, i) => listed.indexOf(f) !== i);
const gone = listed.filter((f) => !files.includes(f));
if (unlisted.length || twice.length || gone.length)
  throw new Error(
    'test/passes.ts must name every test file once' +
      (unlisted.length ? `; not listed: ${unlisted.join(', ')}` : '') +
      (twice.length ? `; listed twice: ${twice.join(', ')}` : '') +
      (gone.length ? `; no such file: ${gone.join(', ')}` : ''),
  );

const choice = process.env.URSA_TEST_DATABASE ?? 'sqlite';
const shapes = choice === 'both' ? ['sqlite', 'postgres'] : [choice];
for (const s of shapes)
  if (s !== 'sqlite' && s !== 'postgres')
    throw new Error(`URSA_TEST_DATABASE is sqlite, postgres or both, not ${choice}`);

// Most test time is waiting (servers, Chromium, child processes, polls), so one worker per
// core keeps both cores busy; vitest's default on 2 cores is a single worker.
const workers = Number(process.env.URSA_TEST_WORKERS) || Math.max(2, os.availableParallelism());

// Options of every pass. Inline projects do not inherit the root config (no `extends`), so
// the global setup below runs once for the whole run, not once per pass.
const common = {
  pool: 'forks' as const,
  // A worker runs its files one after another in one module graph: importing the server's
  // modules anew for every file cost about a third of the suite's CPU. Test files share no
  // state but the test servers they start and close themselves. URSA_TEST_ISOLATE=1 gives
  // each file a fresh process (to rule out a leak between files).
  isolate: process.env.URSA_TEST_ISOLATE === '1',
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    maxWorkers: workers,
    projects: shapes.map((shape) => ({
      test: {
        ...common,
        name: shape,
        include:
          shape === 'postgres'
            ? BOTH_PASSES.map((f) => `test/${f}.test.ts`)
            : ['test/**/*.test.ts'],
        // Seen by the test files when they load (test/helpers/server.ts ON_PG).
        env: { URSA_TEST_DATABASE: shape },
      },
    })),
  },
});
