// Debian's PostgreSQL clients (psql, Python's psycopg2, Java with PgJDBC, unixODBC's isql)
// run against a test server's SQL port as the admin. A missing client skips locally and fails
// under CI=true (.ci/run installs them).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ADMIN, type TestServer } from '../server.js';

const run = promisify(execFile);

/** stdout, or null when the client is not installed here (outside CI). */
export async function sqlClient(
  s: TestServer,
  cmd: string,
  args: string[],
  env: Record<string, string> = {},
  input?: string,
): Promise<string | null> {
  try {
    const p = run(cmd, args, {
      env: {
        ...process.env,
        PGHOST: '127.0.0.1',
        PGPORT: String(s.sqlPort),
        PGUSER: ADMIN,
        PGPASSWORD: await s.engine.issueToken(ADMIN),
        PGDATABASE: s.demo,
        ...env,
      },
    });
    if (input !== undefined) p.child.stdin!.end(input);
    return (await p).stdout;
  } catch (err) {
    const missing =
      (err as NodeJS.ErrnoException).code === 'ENOENT' ||
      /No module named/.test(String((err as { stderr?: string }).stderr));
    if (missing && process.env.CI !== 'true') return null;
    throw err;
  }
}
