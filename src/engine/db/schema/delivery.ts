// Metadata tables, declared once with the column kit (./kit.ts).
// Delivery (docs/delivery.md): what each alert last told each recipient, and the history of
// evaluations and sends.
import { table, text, time, bool, json, primaryKey, index } from './kit.js';
import { projects } from './projects.js';

/**
 * An alert's state per recipient (a member's e-mail, or "webhook"): whether it is firing (told
 * once, not again until the condition clears) and the value it last saw (for `change%`).
 */
export const deliveryState = table(
  'delivery_state',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    object: text('object').notNull(),
    recipient: text('recipient').notNull(),
    firing: bool('firing').notNull().default(false),
    lastValue: json('last_value').$type<number | null>(),
    updated: time('updated').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.object, t.recipient] })],
);

/** Each evaluation of an alert for a recipient, with its outcome. */
export const deliveryHistory = table(
  'delivery_history',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    object: text('object').notNull(),
    recipient: text('recipient').notNull(),
    /**
     * An alert's 'fired' | 'still' | 'clear' | 'cleared' | 'skipped' | 'failed'; a
     * subscription's 'pending' | 'sending' | 'sent' | 'skipped' | 'failed' | 'unknown'.
     */
    outcome: text('outcome').notNull(),
    value: json('value').$type<number | null>(),
    message: text('message'),
    jobId: text('job_id'),
    time: time('time').notNull(),
  },
  (t) => [
    index('delivery_history_time').on(t.projectId, t.object, t.time),
    // A firing's ledger by job; rows left pending or sending by a stopped process (resumed at
    // start-up) are found without reading the whole history.
    index('delivery_history_job').on(t.jobId),
    index('delivery_history_outcome').on(t.outcome),
  ],
);
