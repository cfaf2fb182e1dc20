// Start-up conversion of the earlier data layout, one read-write `projects/<id>/data.duckdb`
// per project with a table `ds_<cluster>` per dataset, into dataset versions (databases.ts).
// Safe to interrupt: nothing is published until every dataset of the project is written, the
// old file is removed only after publishing, and a restart that finds versions already
// published only removes it; unpublished files are swept as orphans.
import fs from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { ProjectDatabases } from './databases.js';
import { ident, lit } from './databases.js';

export const OLD_DATA_FILE = 'data.duckdb';

/** Converts the project's old data file if it has one; returns the datasets converted. */
export async function convertOldLayout(
  dbs: ProjectDatabases,
  projectId: string,
  projectDir: string,
): Promise<number> {
  const old = path.join(projectDir, OLD_DATA_FILE);
  if (!(await exists(old))) return 0;
  const tables = await oldTables(old);
  const targets = tables.map((name) => ({ name, mode: 'full' as const }));
  const done = !tables.length
    ? 0
    : await dbs.write(projectId, targets, undefined, async (w, c) => {
        // Published before a crash: what was written now is discarded.
        if ((await dbs.store.current(projectId)).length) return 0;
        await c.run(`ATTACH ${lit(old)} AS old (READ_ONLY)`);
        for (const name of tables)
          await c.run(
            `CREATE TABLE ${w.writer.table(name)} AS SELECT * FROM old.${ident(`ds_${name}`)}`,
          );
        await c.run('DETACH old');
        await w.publish(await w.writer.finish());
        return tables.length;
      });
  await fs.rm(old, { force: true });
  await fs.rm(`${old}.wal`, { force: true });
  return done;
}

/** The datasets of an old data file (staging tables of an interrupted load are not). */
async function oldTables(file: string): Promise<string[]> {
  const db = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  try {
    const c = await db.connect();
    const rows = (
      await c.runAndReadAll(
        "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' AND table_name LIKE 'ds\\_%' ESCAPE '\\' AND table_name NOT LIKE '%\\_\\_staging' ESCAPE '\\'",
      )
    ).getRowsJson();
    c.closeSync();
    return rows.map((r) => String(r[0]).slice(3));
  } finally {
    db.closeSync();
  }
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}
