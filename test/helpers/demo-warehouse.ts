// The demo project's data in a warehouse: every dataset of the (loaded) demo project copied
// from DuckDB into a table of a throwaway PostgreSQL schema (columns named by the column ids,
// typed by the prescription), then a new project bound to that schema and the tables mapped
// with the demo's own prescriptions, so titles, labels and references are the demo's and the
// same AQL answers the same on both engines.
import { expect } from 'vitest';
import type { Prescription } from '../../src/engine/data/prescription.js';
import { createProject } from './fixtures.js';
import type { TestServer } from './server.js';
import { bindWarehouse, grantReader, type TestWarehouse } from './warehouse.js';

const PG_TYPES: Record<string, string> = {
  integer: 'bigint',
  number: 'double precision',
  string: 'text',
  date: 'date',
  datetime: 'timestamp',
  boolean: 'boolean',
};

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Copies the demo's datasets into `schema` and answers the id of the bound, mapped project. */
export async function demoWarehouseProject(
  s: TestServer,
  w: TestWarehouse,
  schema = 'demo',
): Promise<string> {
  const datasets = await s.engine.datasets.rows(s.demo);
  expect(datasets.length).toBeGreaterThanOrEqual(4);
  await w.exec(`CREATE SCHEMA ${quote(schema)}`);
  for (const d of datasets) {
    const p = d.prescription as Prescription;
    const cols = p.columns.map((c) => `${quote(c.id)} ${PG_TYPES[c.dataType]}`);
    const table = `${quote(schema)}.${quote(d.name)}`;
    await w.exec(`CREATE TABLE ${table} (${cols.join(', ')})`);
    const select = p.columns.map((c) => `CAST(${quote(c.id)} AS VARCHAR)`).join(', ');
    const rows = await s.engine.dbs.read(s.demo, async (c) =>
      (await c.runAndReadAll(`SELECT ${select} FROM ${quote(`ds_${d.name}`)}`)).getRowsJson(),
    );
    // Batches under PostgreSQL's 65,535 parameters.
    const per = Math.floor(60_000 / p.columns.length);
    for (let i = 0; i < rows.length; i += per) {
      const batch = rows.slice(i, i + per);
      const tuples = batch.map(
        (r, k) => `(${r.map((_, j) => `$${k * r.length + j + 1}`).join(', ')})`,
      );
      await w.exec(`INSERT INTO ${table} VALUES ${tuples.join(', ')}`, batch.flat());
    }
    if (p.primarykey) await w.exec(`ALTER TABLE ${table} ADD PRIMARY KEY (${quote(p.primarykey)})`);
  }
  await w.exec(`ANALYZE`);
  await grantReader(w, quote(schema));
  const project = await createProject(s, 'demo-wh', 'Demo in a warehouse');
  await bindWarehouse(s, project, w, schema);
  const clusters = Object.fromEntries(
    datasets.map((d) => {
      const p = d.prescription as Prescription;
      return [
        d.name,
        {
          source_type: 'table',
          source: `${schema}.${d.name}`,
          prescription: {
            ...p,
            columns: p.columns.map((c) => ({ ...c, originalheader: c.id })),
          },
        },
      ];
    }),
  );
  const r = await s.api('POST', `/projects/${project}/kodiak/transform/execute`, {
    body: { type: 'cluster', clusters },
  });
  expect(r.status, r.text).toBe(202);
  const job = await s.engine.jobs.waitFor(r.json.link[0].id);
  expect(job.status, job.message).toBe('OK');
  return project;
}
