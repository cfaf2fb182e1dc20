// What one reader may see of the activity log. Events about model objects (obj_action,
// obj_share, flows) are shown only when the reader may read the object (a deleted one by its
// last ACL); data loads only for datasets with a column they may read; member administration
// (user_action) only to Admins and User Admins, and to the member who acted or was acted on.
// A reader with a row-level filter gets no row counts: they were counted over every row.
import { and, eq, notInArray, or, sql, type SQL } from 'drizzle-orm';
import { hasLevel, type ProjectActor } from '../access/actor.js';
import { sqlOf, tablesOf, type Db } from '../db/index.js';
import { seesEverything } from '../model/acl.js';
import type { AclEntry } from '../model/defs.js';
import { ModelScope } from '../model/scope.js';
import type { ModelStore } from '../model/store.js';
import type { ActivityRecord } from '../../contract/activity.js';
import { withoutCounts, withoutRowTotal } from '../jobs/withheld-counts.js';

const RUN_COUNTS = new Set(['rows']);

/** Event types whose `object` is a model object's identifier. */
const OBJECT_EVENTS = ['obj_action', 'obj_share', 'flow_run', 'flow_trigger', 'delivery'];

export interface ReaderView {
  email: string;
  /** Readable object identifiers; null: every one (Admin, MD Admin). */
  objects: string[] | null;
  /** Datasets with a readable column; null: every one. */
  datasets: string[] | null;
  /** Sees every user_action event (Admin, User Admin). */
  members: boolean;
  /** Row counts are withheld (a row-level filter applies to the reader). */
  rowFiltered: boolean;
}

export async function readerView(a: ProjectActor, model: ModelStore): Promise<ReaderView> {
  const base = {
    email: a.email.toLowerCase(),
    members: hasLevel(a, 'useradmin'),
    rowFiltered: Boolean(a.filter),
  };
  if (seesEverything(a)) return { ...base, objects: null, datasets: null };
  const scope = new ModelScope(a, await model.all(a.projectId));
  const objects = scope.rows().map((r) => r.ident);
  for (const gone of await model.goneObjects(a.projectId)) {
    const acl = gone.snapshot.acl;
    if (scope.allowedGone(Array.isArray(acl) ? (acl as AclEntry[]) : [])) objects.push(gone.ident);
  }
  return { ...base, objects, datasets: [...scope.visibleDatasets()] };
}

/** The SQL condition keeping only the events this reader may see (in `db`'s dialect). */
export function visibleTo(db: Db, v: ReaderView): SQL | undefined {
  const { activity } = tablesOf(db);
  const { inList: inJson, jsonText } = sqlOf(db);
  const parts: SQL[] = [];
  if (v.objects)
    parts.push(or(notInArray(activity.type, OBJECT_EVENTS), inJson(activity.object, v.objects))!);
  if (v.datasets)
    parts.push(or(sql`${activity.type} <> 'data_load'`, inJson(activity.object, v.datasets))!);
  if (!v.members)
    parts.push(
      or(
        sql`${activity.type} <> 'user_action'`,
        eq(sql`lower(${activity.user})`, v.email),
        eq(sql`lower(${jsonText(activity.detail, 'target')})`, v.email),
      )!,
    );
  return parts.length ? and(...parts) : undefined;
}

/** The record as this reader may see it (row counts withheld under a row-level filter). */
export function redact(v: ReaderView, r: ActivityRecord): ActivityRecord {
  if (!v.rowFiltered) return r;
  const d = r.detail;
  // The end of a flow run: the rows it wrote, and a failure's total of the project's rows.
  if (r.type === 'flow_run' && d.phase === 'end') {
    const detail = withoutCounts(d, RUN_COUNTS) as ActivityRecord['detail'];
    if (typeof detail.message === 'string') detail.message = withoutRowTotal(detail.message);
    const message = r.message.replace(/^(flow \S+ ended \S+): \d+ rows written/, '$1');
    return { ...r, message: withoutRowTotal(message), detail };
  }
  if (r.type !== 'data_load') return r;
  return {
    ...r,
    message: `loaded dataset "${String(d.dataset ?? r.object ?? '')}"${d.mode ? ` (${String(d.mode)})` : ''}${d.source ? ` from ${String(d.source)}` : ''}`,
    detail: { ...d, rows: null, rowsLoaded: null },
  };
}
