// The project activity log: the engine records each event when the thing happens.
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { activity } from '../db/schema.js';
import { invalid } from '../errors.js';
import { nowIso } from '../ids.js';

export const ACTIVITY_TYPES = [
  'data_load',
  'flow_run',
  'flow_trigger',
  'obj_action',
  'obj_share',
  'project_action',
  'user_action',
] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

export interface ActivityRecord {
  id: number;
  type: ActivityType;
  time: string;
  user: string | null;
  object?: string;
  message: string;
  detail: Record<string, unknown>;
}

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
  constructor(private readonly db: Db) {}

  record(projectId: string, type: ActivityType, e: NewActivity): void {
    this.db
      .insert(activity)
      .values({
        projectId,
        type,
        time: nowIso(),
        user: e.user,
        object: e.object ?? null,
        message: e.message,
        detail: e.detail ?? {},
      })
      .run();
  }

  list(
    projectId: string,
    opts: { types?: ActivityType[]; limit: number; offset: number },
  ): { items: ActivityRecord[]; total: number } {
    const where = and(
      eq(activity.projectId, projectId),
      opts.types ? inArray(activity.type, opts.types) : undefined,
    );
    const rows = this.db
      .select()
      .from(activity)
      .where(where)
      .orderBy(desc(activity.id))
      .limit(opts.limit)
      .offset(opts.offset)
      .all();
    const total =
      this.db
        .select({ n: sql<number>`count(*)` })
        .from(activity)
        .where(where)
        .get()?.n ?? 0;
    return { items: rows.map(toRecord), total };
  }

  /** The latest data_load event of each dataset (events carry `detail.dataset`). */
  latestLoads(projectId: string): ActivityRecord[] {
    const rows = this.db
      .select()
      .from(activity)
      .where(
        and(
          eq(activity.projectId, projectId),
          eq(activity.type, 'data_load'),
          sql`${activity.id} in (select max(id) from activity where project_id = ${projectId} and type = 'data_load' group by json_extract(detail, '$.dataset'))`,
        ),
      )
      .orderBy(desc(activity.id))
      .all();
    return rows.map(toRecord);
  }
}

function toRecord(r: typeof activity.$inferSelect): ActivityRecord {
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
