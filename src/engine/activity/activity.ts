// The project activity log: the engine records each event when the thing happens, and
// shows each reader only events about what they may read (reader-view.ts).
import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { ProjectActor } from '../access/actor.js';
import { type Db, first, tablesOf, sqlOf, type Tables } from '../db/index.js';
import { invalid } from '../errors.js';
import { nowIso } from '../ids.js';
import type { ModelStore } from '../model/store.js';
import { readerView, redact, visibleTo } from './reader-view.js';
import {
  ACTIVITY_TYPES,
  type ActivityRecord,
  type ActivityType,
  type LoadEvent,
} from '../../contract/activity.js';

export { ACTIVITY_TYPES, type ActivityRecord, type ActivityType };

export interface NewActivity {
  user: string | null;
  object?: string;
  message: string;
  detail?: Record<string, unknown>;
}

export function parseActivityTypes(raw: string | undefined): ActivityType[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const types = raw
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const unknown = types.filter((t) => !(ACTIVITY_TYPES as readonly string[]).includes(t));
  if (unknown.length) {
    throw invalid(`unknown activity type ${unknown.map((t) => `"${t}"`).join(', ')}`, {
      field: 'types',
      invalid: unknown,
      allowed: [...ACTIVITY_TYPES],
    });
  }
  return types as ActivityType[];
}

export class ActivityLog {
  constructor(
    private readonly db: Db,
    private readonly model: ModelStore,
  ) {}

  async record(projectId: string, type: ActivityType, e: NewActivity): Promise<void> {
    const { activity } = tablesOf(this.db);
    await this.db.insert(activity).values({
      projectId,
      type,
      time: nowIso(),
      user: e.user,
      object: e.object ?? null,
      message: e.message,
      detail: e.detail ?? {},
    });
  }

  /** The reader's events, newest first: only those about what they may read. */
  async list(
    a: ProjectActor,
    opts: { types?: ActivityType[]; limit: number; offset: number },
  ): Promise<{ items: ActivityRecord[]; total: number }> {
    const { activity } = tablesOf(this.db);
    const view = await readerView(a, this.model);
    const where = and(
      eq(activity.projectId, a.projectId),
      opts.types ? inArray(activity.type, opts.types) : undefined,
      visibleTo(this.db, view),
    );
    const rows = await this.db
      .select()
      .from(activity)
      .where(where)
      .orderBy(desc(activity.id))
      .limit(opts.limit)
      .offset(opts.offset);
    const total =
      (
        await this.db
          .select({ n: sql<number>`count(*)`.mapWith(Number) })
          .from(activity)
          .where(where)
          .then(first)
      )?.n ?? 0;
    return { items: rows.map((r) => redact(view, toRecord(r))), total };
  }

  /**
   * The reader's data_load events (at most 1000, newest first); `latest`: the latest of each
   * dataset (events carry `detail.dataset`).
   */
  async loads(a: ProjectActor, opts: { latest: boolean }): Promise<LoadEvent[]> {
    const { activity } = tablesOf(this.db);
    const { jsonText } = sqlOf(this.db);
    const view = await readerView(a, this.model);
    const latest: SQL | undefined = opts.latest
      ? sql`${activity.id} in (select max(id) from activity where project_id = ${a.projectId} and type = 'data_load' group by ${jsonText(activity.detail, 'dataset')})`
      : undefined;
    return (
      (
        await this.db
          .select()
          .from(activity)
          .where(
            and(
              eq(activity.projectId, a.projectId),
              eq(activity.type, 'data_load'),
              latest,
              visibleTo(this.db, view),
            ),
          )
          .orderBy(desc(activity.id))
          .limit(1000)
      )
        // Written by loads and mappings with a LoadDetail (data/loads.ts, warehouse/mapping.ts).
        .map((r) => redact(view, toRecord(r)) as LoadEvent)
    );
  }
}

function toRecord(r: Tables['activity']['$inferSelect']): ActivityRecord {
  return {
    id: r.id,
    type: r.type as ActivityType,
    time: r.time,
    user: r.user,
    ...(r.object ? { object: r.object } : {}),
    message: r.message,
    detail: r.detail,
  };
}
