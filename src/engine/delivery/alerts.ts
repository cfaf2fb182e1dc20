// Data alerts (docs/delivery.md): an `alert` object watches a metric or one AQL measure and
// tells members by e-mail — each evaluated as that member, with their row filter and object
// access, checked at every evaluation (a member who left gets nothing) — or a webhook,
// evaluated as the alert's creator. It tells once per firing: the state per recipient says
// whether it fired, and it fires again only after the condition cleared. Every evaluation is
// in the alert's history. An evaluation is a job (`delivery`), started now or by a schedule.
import { and, desc, eq } from 'drizzle-orm';
import type { ProjectActor } from '../access/actor.js';
import { resolveActor } from '../access/actor.js';
import type { Aql } from '../aql/service.js';
import { first, tablesOf, type Db } from '../db/index.js';
import { notFound } from '../errors.js';
import type { NetPolicy } from '../flows/connectors/types.js';
import { randomId } from '../ids.js';
import { JobFailure, type Job, type JobContext, type JobRunner } from '../jobs/jobs.js';
import type { Mailer } from '../mail/mailer.js';
import type { ModelObjects } from '../model/objects.js';
import type { ModelStore } from '../model/store.js';
import type { Logger } from 'pino';
import { AlertSchedule } from './schedule.js';
import type { AlertDef } from './types.js';

export type { AlertDef };
import { alertMail, alertWebhookBody, type AlertNotice } from './alert-message.js';
import { sendWebhook } from './webhook.js';

export interface DeliveryDeps {
  db: Db;
  model: ModelStore;
  log: Logger;
  tickMs: number;
  objects: ModelObjects;
  aql: Pick<Aql, 'query'>;
  jobs: JobRunner;
  mailer: Mailer;
  net: NetPolicy;
  siteUrl: () => string;
  projectLabel: (projectId: string) => Promise<string>;
}

export interface HistoryEntry {
  recipient: string;
  outcome: string;
  value: number | null;
  message: string | null;
  job: string | null;
  time: string;
}

/** The recipient under which a webhook's state and history are kept. */
const WEBHOOK = 'webhook';

const nowIso = () => new Date().toISOString();

export class Delivery {
  /** Schedules and evaluations after loads (started with the triggers). */
  readonly schedule: AlertSchedule;

  constructor(private readonly d: DeliveryDeps) {
    d.jobs.register('delivery', { run: (ctx) => this.evaluate(ctx) }, { concurrency: 2 });
    this.schedule = new AlertSchedule({
      db: d.db,
      model: d.model,
      jobs: d.jobs,
      log: d.log,
      tickMs: d.tickMs,
      submit: (a, ident) => d.jobs.submit(a, 'delivery', { id: ident }),
    });
  }

  /** Evaluates an alert now (any member who can read it): a job. */
  async run(a: ProjectActor, ident: string): Promise<Job> {
    await this.alertOf(a, ident);
    return this.d.jobs.submit(a, 'delivery', { id: ident });
  }

  /** An alert's evaluations, newest first. */
  async history(
    a: ProjectActor,
    ident: string,
    page: { limit: number; offset: number },
  ): Promise<HistoryEntry[]> {
    await this.alertOf(a, ident);
    const { deliveryHistory: h } = tablesOf(this.d.db);
    const rows = await this.d.db
      .select()
      .from(h)
      .where(and(eq(h.projectId, a.projectId), eq(h.object, ident)))
      .orderBy(desc(h.time), desc(h.id))
      .limit(page.limit)
      .offset(page.offset);
    return rows.map((r) => ({
      recipient: r.recipient,
      outcome: r.outcome,
      value: r.value ?? null,
      message: r.message,
      job: r.jobId,
      time: r.time,
    }));
  }

  private async alertOf(a: ProjectActor, ident: string): Promise<AlertDef> {
    const row = (await this.d.objects.scope(a)).get(ident);
    if (!row || row.type !== 'alert')
      throw notFound(`alert "${ident}" not found in project "${a.projectId}"`, { id: ident });
    return row.def as unknown as AlertDef;
  }

  private async evaluate(ctx: JobContext) {
    const { projectId, createdBy } = ctx.job;
    const ident = String(ctx.job.params.id);
    let creator: ProjectActor;
    try {
      creator = await resolveActor(this.d.db, { email: createdBy }, projectId, {
        ignoreMaintenance: true,
      });
    } catch (err) {
      throw new JobFailure(`the alert cannot act as ${createdBy}: ${(err as Error).message}`);
    }
    const def = await this.alertOf(creator, ident);
    const name = (await this.d.objects.scope(creator)).get(ident)?.name ?? ident;
    const measure = def.metric ? `SELECT [${def.metric}]` : def.aql!;
    const base = {
      projectId,
      projectLabel: await this.d.projectLabel(projectId),
      alert: ident,
      alertName: name,
      measure,
      condition: def.condition,
      link: `${this.d.siteUrl()}/app/p/${projectId}`,
    };
    const outcomes: Record<string, string> = {};
    for (const email of def.email ?? []) {
      ctx.signal.throwIfAborted();
      outcomes[email] = await this.forRecipient(ctx, def, base, email, async () =>
        // The member as they are now: removed or revoked, they get nothing.
        resolveActor(this.d.db, { email }, projectId, { ignoreMaintenance: true }),
      );
    }
    if (def.webhook)
      outcomes[WEBHOOK] = await this.forRecipient(ctx, def, base, WEBHOOK, async () => creator);
    return { alert: ident, outcomes };
  }

  /** One recipient's evaluation: the value as they see it, the state, the notice. */
  private async forRecipient(
    ctx: JobContext,
    def: AlertDef,
    base: Omit<AlertNotice, 'value' | 'previous' | 'time'>,
    recipient: string,
    actorOf: () => Promise<ProjectActor>,
  ): Promise<string> {
    const record = (outcome: string, value: number | null, message: string | null) =>
      this.record(base.projectId, base.alert, recipient, outcome, value, message, ctx.job.id);
    let actor: ProjectActor;
    try {
      actor = await actorOf();
    } catch {
      await record('skipped', null, `${recipient} is not a member of the project`);
      return 'skipped';
    }
    let value: number | null;
    try {
      value = await this.valueAs(actor, base.measure, ctx.signal);
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      await record(
        'skipped',
        null,
        `cannot be evaluated as ${recipient}: ${(err as Error).message}`,
      );
      return 'skipped';
    }
    const state = await this.state(base.projectId, base.alert, recipient);
    const previous = state?.lastValue ?? null;
    const met = conditionMet(def.condition, value, previous);
    const wasFiring = state?.firing ?? false;
    if (!met) {
      await this.saveState(base.projectId, base.alert, recipient, false, value);
      const outcome = wasFiring ? 'cleared' : 'clear';
      await record(outcome, value, null);
      return outcome;
    }
    if (wasFiring) {
      await this.saveState(base.projectId, base.alert, recipient, true, value);
      await record('still', value, 'already told; told again once the condition clears');
      return 'still';
    }
    // Marked first: a process that dies after sending does not send it again.
    await this.saveState(base.projectId, base.alert, recipient, true, value);
    const notice: AlertNotice = { ...base, value, previous, time: nowIso() };
    try {
      if (recipient === WEBHOOK) await this.postWebhook(actor, def.webhook!, notice, ctx.signal);
      else await this.d.mailer.send({ to: recipient, ...alertMail(notice, recipient) });
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      // Not told: the next evaluation tries again.
      await this.saveState(base.projectId, base.alert, recipient, false, previous);
      await record('failed', value, (err as Error).message);
      return 'failed';
    }
    await record('fired', value, null);
    return 'fired';
  }

  private async valueAs(a: ProjectActor, measure: string, signal: AbortSignal) {
    const r = await this.d.aql.query(a, measure, signal);
    if (r.columns.length !== 1 || r.rows.length > 1)
      throw new Error(
        `the alert watches one number; ${measure} answers ${r.rows.length} rows of ${r.columns.length} columns`,
      );
    const cell = r.rows[0]?.[0];
    return cell === undefined || cell === '' ? null : Number(cell);
  }

  private async postWebhook(
    a: ProjectActor,
    hook: { url: string; secret: string },
    notice: AlertNotice,
    signal: AbortSignal,
  ) {
    const secret = await this.d.objects.secretOf(a, hook.secret);
    if (!secret) throw new Error(`the credentials "${hook.secret}" hold no secret`);
    const out = await sendWebhook({
      url: hook.url,
      secret,
      payload: alertWebhookBody(notice),
      net: this.d.net,
      signal,
    });
    if (!out.ok) throw new Error(`the webhook failed: ${out.error}`);
  }

  private async state(projectId: string, object: string, recipient: string) {
    const { deliveryState: s } = tablesOf(this.d.db);
    return this.d.db
      .select()
      .from(s)
      .where(and(eq(s.projectId, projectId), eq(s.object, object), eq(s.recipient, recipient)))
      .then(first);
  }

  private async saveState(
    projectId: string,
    object: string,
    recipient: string,
    firing: boolean,
    lastValue: number | null,
  ) {
    const { deliveryState: s } = tablesOf(this.d.db);
    const updated = nowIso();
    await this.d.db
      .insert(s)
      .values({ projectId, object, recipient, firing, lastValue, updated })
      .onConflictDoUpdate({
        target: [s.projectId, s.object, s.recipient],
        set: { firing, lastValue, updated },
      });
  }

  private async record(
    projectId: string,
    object: string,
    recipient: string,
    outcome: string,
    value: number | null,
    message: string | null,
    jobId: string,
  ) {
    const { deliveryHistory: h } = tablesOf(this.d.db);
    await this.d.db.insert(h).values({
      id: randomId(16),
      projectId,
      object,
      recipient,
      outcome,
      value,
      message: message?.slice(0, 2000) ?? null,
      jobId,
      time: nowIso(),
    });
  }
}

/** Whether an alert's condition holds for `value` (no data never fires). */
export function conditionMet(
  c: AlertDef['condition'],
  value: number | null,
  previous: number | null,
): boolean {
  if (value === null || !Number.isFinite(value)) return false;
  switch (c.op) {
    case '>':
      return value > c.value;
    case '>=':
      return value >= c.value;
    case '<':
      return value < c.value;
    case '<=':
      return value <= c.value;
    case 'change%':
      if (previous === null || previous === 0) return false;
      return (Math.abs(value - previous) / Math.abs(previous)) * 100 > c.value;
  }
}
