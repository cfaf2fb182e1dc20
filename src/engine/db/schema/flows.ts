// Metadata tables, declared once with the column kit (./kit.ts).
// Flow runs and triggers: the one-run-per-flow lock, firings, watched state and pauses.
import { table, text, time, json, primaryKey, index } from './kit.js';
import { projects } from './projects.js';

/**
 * One running flow per flow: the row is the lock, taken in the same statement that checks it,
 * so two processes cannot both start a run. Deleted when the run ends; a restart removes the
 * locks of jobs it ends as interrupted.
 */
export const flowLocks = table(
  'flow_locks',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    flow: text('flow').notNull(),
    jobId: text('job_id').notNull(),
    since: time('since').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.flow] })],
);

/**
 * Trigger firings, claimed by (trigger, slot): a timer's slot is its scheduled minute, a file
 * trigger's the change it saw. INSERT OR IGNORE claims it, so a firing happens once per
 * deployment however many processes watch the same trigger.
 */
export const triggerFirings = table(
  'trigger_firings',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    trigger: text('trigger').notNull(),
    slot: text('slot').notNull(),
    time: time('time').notNull(),
    /** The run it started; null when skipped or failed to start. */
    jobId: text('job_id'),
    /** 'started' | 'skipped' | 'failed' */
    outcome: text('outcome').notNull(),
    message: text('message'),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.trigger, t.slot] }),
    index('trigger_firings_time').on(t.projectId, t.trigger, t.time),
  ],
);

/** What a trigger watches between checks (an SFTP listing), kept for every process. */
export const triggerState = table(
  'trigger_state',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    trigger: text('trigger').notNull(),
    state: json('state').$type<Record<string, unknown>>().notNull(),
    updated: time('updated').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.trigger] })],
);

/**
 * Triggers paused by the chain limits (flows/triggers/chains.ts): runs caused by other runs
 * went too deep or too fast. A paused trigger does not fire until enabled again by
 * trigger/toggle, which deletes the row; a row older than the trigger is left from one of the
 * same identifier that was deleted, and does not count.
 */
export const triggerPauses = table(
  'trigger_pauses',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    trigger: text('trigger').notNull(),
    time: time('time').notNull(),
    message: text('message').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.trigger] })],
);
