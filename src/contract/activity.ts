// The project activity log as the API answers it (GET /projects/{project}/activity).

export const ACTIVITY_TYPES = [
  'data_load',
  'delivery',
  'flow_run',
  'flow_trigger',
  'obj_action',
  'obj_share',
  'project_action',
  'user_action',
] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/** One event, as its reader may see it (row counts are withheld under a row-level filter). */
export interface ActivityRecord {
  id: number;
  type: ActivityType;
  time: string;
  user: string | null;
  object?: string;
  message: string;
  detail: Record<string, unknown>;
}

/**
 * A data_load event's detail: a load's, or a warehouse mapping's (mode "map", nothing loaded
 * or counted). Row counts are null for a reader with a row-level filter (they count every row).
 */
export type LoadDetail = { dataset: string; source: string; jobId: string; dataVersion: number } & (
  | { mode: 'full' | 'incremental'; rowsLoaded: number | null; rows: number | null }
  | { mode: 'map'; rowsLoaded?: null; rows?: null }
);

/** One event of GET /projects/{project}/activity/loads. */
export interface LoadEvent extends Omit<ActivityRecord, 'type' | 'detail'> {
  type: 'data_load';
  detail: LoadDetail;
}
