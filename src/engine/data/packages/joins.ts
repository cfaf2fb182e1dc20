// `joinTo`: existing dataset columns that get a reference to a package's dataset. The
// reference is recorded in the dataset's prescription (and in the one saved for its file, so
// a reload keeps it), then the model is synced: the column's attribute references the package.
import { invalid } from '../../errors.js';
import { datasetTable, ident, type ProjectDatabases } from '../databases.js';
import type { Datasets } from '../datasets.js';
import type { Prescription } from '../prescription.js';
import type { Prescriptions } from '../prescriptions.js';
import type { DataPackage } from './package.js';

export interface JoinRequest {
  dataset: string;
  column: string;
}

/** One dataset's new prescription, with the reference on every requested column. */
export interface PlannedJoin {
  dataset: string;
  columns: string[];
  source: string | null;
  prescription: Prescription;
}

/** Checks every requested column (400 on the first problem) and plans the new prescriptions. */
export async function planJoins(
  projectId: string,
  pkg: DataPackage,
  requests: JoinRequest[],
  deps: { datasets: Datasets; dbs: ProjectDatabases },
): Promise<PlannedJoin[]> {
  const byDataset = new Map<string, PlannedJoin>();
  for (const [i, r] of requests.entries()) {
    const field = `joinTo.${i}`;
    if (r.dataset === pkg.dataset) {
      throw invalid(`joinTo cannot name "${pkg.dataset}", the package's own dataset`, {
        field: `${field}.dataset`,
        value: r.dataset,
      });
    }
    let plan = byDataset.get(r.dataset);
    if (!plan) {
      const row = await deps.datasets.get(projectId, r.dataset);
      if (!row) {
        const known = (await deps.datasets.infos(projectId)).map((d) => d.name);
        throw invalid(
          `joinTo names dataset "${r.dataset}", which is not loaded; loaded datasets: ${known.join(', ') || 'none'}`,
          { field: `${field}.dataset`, value: r.dataset, known },
        );
      }
      plan = {
        dataset: r.dataset,
        columns: [],
        source: row.source,
        prescription: row.prescription as unknown as Prescription,
      };
      byDataset.set(r.dataset, plan);
    }
    await checkColumn(projectId, pkg, plan.prescription, r, field, deps.dbs);
    if (!plan.columns.includes(r.column)) plan.columns.push(r.column);
  }
  return [...byDataset.values()].map((plan) => ({
    ...plan,
    prescription: {
      ...plan.prescription,
      columns: plan.prescription.columns.map((c) =>
        plan.columns.includes(c.id) ? { ...c, reference: pkg.dataset } : c,
      ),
    },
  }));
}

async function checkColumn(
  projectId: string,
  pkg: DataPackage,
  p: Prescription,
  r: JoinRequest,
  field: string,
  dbs: ProjectDatabases,
): Promise<void> {
  const col = p.columns.find((c) => c.id === r.column);
  const at = { field: `${field}.column`, dataset: r.dataset, column: r.column };
  if (!col) {
    const known = p.columns.map((c) => c.id);
    throw invalid(
      `dataset "${r.dataset}" has no column "${r.column}"; its columns: ${known.join(', ')}`,
      { ...at, known },
    );
  }
  if (col.objectType !== 'A') {
    throw invalid(
      `column "${r.column}" of "${r.dataset}" is a ${col.objectType === 'F' ? 'fact' : 'label'}; only an attribute can reference the ${pkg.id} package`,
      { ...at, objectType: col.objectType },
    );
  }
  if (col.dataType !== pkg.joinable.dataType) {
    throw invalid(
      `column "${r.column}" of "${r.dataset}" has dataType "${col.dataType}"; to join the ${pkg.id} package it must be ${pkg.joinable.dataType} holding ${pkg.joinable.what}`,
      {
        ...at,
        dataType: col.dataType,
        required: pkg.joinable.dataType,
      },
    );
  }
  const bad = pkg.joinable.badValue;
  if (!bad) return;
  const c = ident(r.column);
  const sql = `SELECT ${c} AS v, count(*) OVER () AS n FROM ${datasetTable(r.dataset)} WHERE ${c} IS NOT NULL AND ${bad(c)} GROUP BY ${c} ORDER BY ${c} LIMIT 5`;
  const rows = await dbs.read(projectId, async (conn) =>
    (await conn.runAndReadAll(sql)).getRowObjectsJson(),
  );
  if (rows.length) {
    throw invalid(
      `column "${r.column}" of "${r.dataset}" holds values that are not ${pkg.joinable.what}: ${rows.map((x) => `"${String(x.v)}"`).join(', ')}`,
      {
        ...at,
        distinctBadValues: Number(rows[0]!.n),
        examples: rows.map((x) => x.v),
      },
    );
  }
}

/** Records the planned prescriptions and syncs the model (call inside a transaction). */
export async function applyJoins(
  projectId: string,
  user: string,
  plans: PlannedJoin[],
  deps: { datasets: Datasets; prescriptions: Prescriptions },
): Promise<void> {
  for (const plan of plans) {
    await deps.datasets.setPrescription(projectId, plan.dataset, plan.prescription);
    if (plan.source) await deps.prescriptions.remember(projectId, plan.source, plan.prescription);
  }
  await deps.datasets.syncModel(projectId, user);
}
