// Data alerts (docs/delivery.md): an `alert` object watches a metric or one AQL measure and
// tells members by e-mail — each evaluated as that member, with their row filter and object
// access, checked at every evaluation (a member who left gets nothing) — or a webhook,
// evaluated as the alert's creator. It tells once per firing: the state per recipient says
// whether it fired, and it fires again only after the condition cleared. Every evaluation is
// in the alert's history. An evaluation is a job (`delivery`), started now or by a schedule.
import { and, desc, eq, gte, inArray, ne, sql } from 'drizzle-orm';
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
import { hasLevel } from '../access/actor.js';
import { forbidden } from '../errors.js';
import type { ActivityLog } from '../activity/activity.js';
import type { Exports } from '../export/exports.js';
import type { Reports } from '../reports/reports.js';
import type { SecretBox } from '../model/secrets.js';
import { claim } from '../flows/triggers/claims.js';
import { AlertSchedule } from './schedule.js';
import { DeliveryObjects } from './manage.js';
import { SubscriptionSender } from './subscriptions.js';
import type { AlertDef, DashboardPrinter, SubscriptionDef } from './types.js';
import { openUnsubscribeToken, unsubscribePath, unsubscribeToken } from './unsubscribe.js';

export type { AlertDef };
import { alertMail, alertWebhookBody, type AlertNotice } from './alert-message.js';
import { deliveryMessageId } from './bounces.js';
import { alertMeasure, periodMeasure } from '../model/alert-measure.js';
import { showDef } from '../model/saved-aql.js';
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
  reports: Pick<Reports, 'dashboard'>;
  activity: Pick<ActivityLog, 'record'>;
  exports: Pick<Exports, 'pdfAndImage'>;
  secrets: SecretBox;
  /** Waits between a subscription mail's SMTP attempts. */
  retryDelaysMs: readonly number[];
  /** Recipients of one subscription computed and sent at once. */
  sendConcurrency: number;
  /** Throws the plan's 402 when `n` more e-mails would pass `emailsPerDay`. */
  mayMail: (projectId: string, n: number) => Promise<void>;
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

type Watched = { type: 'alert'; def: AlertDef } | { type: 'subscription'; def: SubscriptionDef };

export class Delivery {
  /** Schedules and evaluations after loads (started with the triggers). */
  readonly schedule: AlertSchedule;
  private readonly subscriptions: SubscriptionSender;
  /** Creating (with a preview), listing and removing them: REST and MCP. */
  readonly manage: DeliveryObjects;
  private printer: DashboardPrinter | null = null;
  private unfinish: (() => void) | null = null;

  constructor(private readonly d: DeliveryDeps) {
    d.jobs.register('delivery', { run: (ctx) => this.evaluate(ctx) }, { concurrency: 2 });
    this.manage = new DeliveryObjects(d.objects);
    this.subscriptions = new SubscriptionSender({
      db: d.db,
      reports: d.reports,
      exports: d.exports,
      mailer: d.mailer,
      siteUrl: d.siteUrl,
      projectLabel: d.projectLabel,
      printer: () => this.printer,
      unsubscribeLink: (projectId, subscription, email) =>
        `${d.siteUrl()}${unsubscribePath(unsubscribeToken(d.secrets, { projectId, subscription, email }))}`,
      retryDelaysMs: d.retryDelaysMs,
      concurrency: d.sendConcurrency,
      mayMail: d.mayMail,
    });
    this.schedule = new AlertSchedule({
      db: d.db,
      model: d.model,
      jobs: d.jobs,
      log: d.log,
      tickMs: d.tickMs,
      submit: (a, ident) => d.jobs.submit(a, 'delivery', { id: ident }),
    });
  }

  /** How this process draws a dashboard page (the composition root has the door kit's). */
  setPrinter(printer: DashboardPrinter): void {
    this.printer = printer;
  }

  /**
   * Schedules, and firings a dead or stopped process left half-sent: resumed now and whenever
   * a delivery job ends interrupted (its lease ran out in another process).
   */
  async start(): Promise<void> {
    this.unfinish = this.d.jobs.onFinish((job) => {
      if (job.type === 'delivery' && job.status !== 'OK') void this.resumeHalfSent();
    });
    await this.resumeHalfSent();
    await this.schedule.start();
  }

  async stop(): Promise<void> {
    this.unfinish?.();
    this.unfinish = null;
    await this.schedule.stop();
  }

  /**
   * Evaluates an alert now (any member who can read it), or sends a subscription now (its
   * creator, or an MD Admin: it mails every recipient): a job.
   */
  async run(a: ProjectActor, ident: string): Promise<Job> {
    const o = await this.objectOf(a, ident);
    if (o.type === 'subscription') {
      this.mayManage(a, o.createdBy, 'send it now');
      await this.d.mayMail(a.projectId, o.def.recipients.length);
    }
    return this.d.jobs.submit(a, 'delivery', { id: ident });
  }

  /** Pauses (or resumes) an alert's or subscription's schedule and after-load checks. */
  async pause(a: ProjectActor, ident: string, paused: boolean): Promise<{ paused: boolean }> {
    const o = await this.objectOf(a, ident);
    this.mayManage(a, o.createdBy, paused ? 'pause it' : 'resume it');
    await this.d.objects.editOnBehalf(
      a.projectId,
      ident,
      o.type,
      (def) => {
        if (Boolean(def.paused) === paused) return null;
        const { paused: _was, ...rest } = def;
        return paused ? { ...rest, paused: true } : rest;
      },
      a.email,
    );
    return { paused };
  }

  /**
   * Takes the link's address off the link's subscription (signed out: the link is the
   * proof). Answers what was done; an address no longer on it is not an error.
   */
  async unsubscribe(
    token: string,
    confirm: boolean,
  ): Promise<{ email: string; subscription: string; name: string; removed: boolean }> {
    const t = openUnsubscribeToken(this.d.secrets, token);
    const row = await this.d.model.get(t.projectId, t.subscription);
    const name = row?.type === 'subscription' ? row.name : t.subscription;
    if (!confirm) return { email: t.email, subscription: t.subscription, name, removed: false };
    const removed = await this.d.objects.editOnBehalf(
      t.projectId,
      t.subscription,
      'subscription',
      (def) => {
        const recipients = (def.recipients as string[] | undefined) ?? [];
        if (!recipients.includes(t.email)) return null;
        return { ...def, recipients: recipients.filter((r) => r !== t.email) };
      },
      t.email,
    );
    return { email: t.email, subscription: t.subscription, name, removed };
  }

  private mayManage(a: ProjectActor, creator: string, what: string) {
    if (a.email !== creator && !hasLevel(a, 'mdadmin'))
      throw forbidden(`only its creator (${creator}) or an MD Admin may ${what}`, {
        required: 'mdadmin',
      });
  }

  /** Half-sent firings: the rest sent by a new job (once across a cluster: claimed). */
  async resumeHalfSent(): Promise<void> {
    try {
      const left = await this.subscriptions.unsettled(async (jobId) => {
        const job = await this.d.jobs.peek(jobId);
        if (!job) return 'ended';
        if (!['OK', 'ERROR', 'CANCELLED'].includes(job.status)) return 'running';
        const stopped =
          (job.status === 'ERROR' && /interrupted/.test(job.message ?? '')) ||
          (job.status === 'CANCELLED' && /server stopping/.test(job.message ?? ''));
        return stopped ? 'interrupted' : `ended ${job.status}: ${job.message ?? ''}`;
      });
      for (const f of left) {
        const time = new Date().toISOString();
        if (!(await claim(this.d.db, f.projectId, f.object, `resume:${f.firing}`, time))) continue;
        const old = await this.d.jobs.peek(f.firing);
        const a = await resolveActor(this.d.db, { email: old!.createdBy }, f.projectId, {
          ignoreMaintenance: true,
        });
        await this.d.jobs.submit(a, 'delivery', { id: f.object, resume: f.firing });
        this.d.log.warn(
          { firing: f.firing, subscription: f.object },
          'half-sent subscription resumed',
        );
      }
    } catch (err) {
      this.d.log.error({ err }, 'resuming half-sent subscriptions failed');
    }
  }

  /** E-mails sent (or going out) for a project's subscriptions and alerts within `ms`. */
  async mailsSince(projectId: string, ms: number): Promise<number> {
    const { deliveryHistory: h } = tablesOf(this.d.db);
    const since = new Date(Date.now() - ms).toISOString();
    const [row] = await this.d.db
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(h)
      .where(
        and(
          eq(h.projectId, projectId),
          inArray(h.outcome, ['sent', 'sending', 'fired']),
          ne(h.recipient, WEBHOOK),
          gte(h.time, since),
        ),
      );
    return row?.n ?? 0;
  }

  /** An alert's evaluations, newest first. */
  async history(
    a: ProjectActor,
    ident: string,
    page: { limit: number; offset: number },
  ): Promise<HistoryEntry[]> {
    await this.objectOf(a, ident);
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

  private async objectOf(
    a: ProjectActor,
    ident: string,
  ): Promise<Watched & { name: string; createdBy: string; watched: string }> {
    const s = await this.d.objects.scope(a);
    const row = s.get(ident);
    if (!row || (row.type !== 'alert' && row.type !== 'subscription'))
      throw notFound(`no alert or subscription "${ident}" in project "${a.projectId}"`, {
        id: ident,
      });
    // What the alert watches in words for its notices: titles, as the API shows its def.
    const shown = showDef(row.type, row.def, s.index.names) as { aql?: string; metric?: string };
    const metric = shown.metric && s.get(shown.metric);
    return {
      type: row.type,
      def: row.def,
      name: row.name,
      createdBy: row.createdBy,
      watched: metric ? `SELECT [${metric.name}]` : (shown.aql ?? ''),
    } as unknown as Watched & {
      name: string;
      createdBy: string;
      watched: string;
    };
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
    const o = await this.objectOf(creator, ident);
    if (o.type === 'subscription') {
      const resume = typeof ctx.job.params.resume === 'string' ? ctx.job.params.resume : null;
      const owner = await resolveActor(this.d.db, { email: o.createdBy }, projectId, {
        ignoreMaintenance: true,
      }).catch(() => creator);
      const sent = await this.subscriptions.send(ctx, owner, ident, o.def, resume);
      await this.recordActivity(ctx, ident, `Subscription "${o.name}" sent`, sent);
      return { subscription: ident, outcomes: sent };
    }
    const def = o.def;
    const name = o.name;
    const base = {
      projectId,
      projectLabel: await this.d.projectLabel(projectId),
      alert: ident,
      alertName: name,
      measure: o.watched,
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
    await this.recordActivity(ctx, ident, `Alert "${name}" evaluated`, outcomes);
    return { alert: ident, outcomes };
  }

  /** One activity event a firing: how many recipients had each outcome. */
  private async recordActivity(
    ctx: JobContext,
    ident: string,
    what: string,
    outcomes: Record<string, string>,
  ) {
    const counts: Record<string, number> = {};
    for (const o of Object.values(outcomes)) counts[o] = (counts[o] ?? 0) + 1;
    const text = Object.entries(counts)
      .map(([o, n]) => `${n} ${o}`)
      .join(', ');
    await this.d.activity.record(ctx.job.projectId, 'delivery', {
      user: ctx.job.createdBy,
      object: ident,
      message: `${what}: ${text || 'nobody'}`,
      detail: { job: ctx.job.id, outcomes: counts },
    });
  }

  /** One recipient's evaluation: the value as they see it, the state, the notice. */
  private async forRecipient(
    ctx: JobContext,
    def: AlertDef,
    base: Omit<AlertNotice, 'value' | 'previous' | 'time'>,
    recipient: string,
    actorOf: () => Promise<ProjectActor>,
  ): Promise<string> {
    const record = (
      outcome: string,
      value: number | null,
      message: string | null,
      id = randomId(16),
    ) =>
      this.record(base.projectId, base.alert, recipient, outcome, value, message, ctx.job.id, id);
    // The id of the history row a notice sent now is recorded in (its mail's Message-ID).
    const told = randomId(16);
    let actor: ProjectActor;
    try {
      actor = await actorOf();
    } catch {
      await record('skipped', null, `${recipient} is not a member of the project`);
      return 'skipped';
    }
    let value: number | null;
    // Against a period: the previous period's value, computed now; else the last evaluation's.
    let before: number | null | undefined;
    try {
      const period = def.condition.period;
      value = await this.valueAs(
        actor,
        period ? periodMeasure(def, period, 0) : alertMeasure(def),
        ctx.signal,
      );
      if (period) before = await this.valueAs(actor, periodMeasure(def, period, 1), ctx.signal);
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
    const previous = before !== undefined ? before : (state?.lastValue ?? null);
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
      if (recipient !== WEBHOOK) await this.d.mayMail(base.projectId, 1);
      if (recipient === WEBHOOK) await this.postWebhook(actor, def.webhook!, notice, ctx.signal);
      else
        await this.d.mailer.send({
          to: recipient,
          ...alertMail(notice, recipient),
          // The history row it is recorded in, so a later bounce finds it.
          messageId: deliveryMessageId(told, this.d.siteUrl()),
        });
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      // Not told: the next evaluation tries again.
      await this.saveState(base.projectId, base.alert, recipient, false, previous);
      await record('failed', value, (err as Error).message);
      return 'failed';
    }
    await record('fired', value, null, told);
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
    id: string,
  ) {
    const { deliveryHistory: h } = tablesOf(this.d.db);
    await this.d.db.insert(h).values({
      id,
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

/** Whether an alert's condition holds for `value` (no data fires only `nodata`). */
export function conditionMet(
  c: AlertDef['condition'],
  value: number | null,
  previous: number | null,
): boolean {
  if (c.op === 'nodata') return value === null || !Number.isFinite(value);
  if (value === null || !Number.isFinite(value)) return false;
  const v = c.value ?? 0;
  switch (c.op) {
    case '>':
      return value > v;
    case '>=':
      return value >= v;
    case '<':
      return value < v;
    case '<=':
      return value <= v;
    case 'change%':
      if (previous === null || previous === 0) return false;
      return (Math.abs(value - previous) / Math.abs(previous)) * 100 > v;
  }
}
