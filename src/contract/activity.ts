// The project activity log as the API answers it (GET /projects/{project}/activity).

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
