// Dashboard subscriptions (docs/delivery.md): one firing (a `delivery` job) mails the dashboard
// to each recipient computed as that recipient — their row filter and object access, checked
// now: a member who left or lost the dashboard gets nothing. The firing's ledger is its
// history rows: every recipient is written `pending` before anything is sent, then `sending`
// just before the mail goes and `sent` (or `failed`, `skipped`) after. A process that dies
// mid-firing leaves that ledger: the rest is sent by a resumed firing (resume()), and a
// recipient left `sending` — the one mail that may or may not have left — is recorded
// `unknown` and not sent again: never twice, at the price of perhaps once missed, said so.
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { ProjectActor } from '../access/actor.js';
import { resolveActor } from '../access/actor.js';
import { tablesOf, type Db } from '../db/index.js';
import { EngineError } from '../errors.js';
import type { Exports } from '../export/exports.js';
import { resultSheet } from '../export/result-sheet.js';
import { randomId } from '../ids.js';
import type { JobContext } from '../jobs/jobs.js';
import type { MailAttachment, Mailer } from '../mail/mailer.js';
import type { DashboardRun, Reports } from '../reports/reports.js';
import { toDelimited } from '../../shared/delimited.js';
import { toXlsx } from '../../shared/xlsx.js';
import { deliveryMessageId } from './bounces.js';
import { attachmentName, subscriptionMail } from './subscription-message.js';
import type { DashboardPrinter, SubscriptionDef } from './types.js';

export interface SubscriptionDeps {
  db: Db;
  reports: Pick<Reports, 'dashboard'>;
  exports: Pick<Exports, 'pdfAndImage'>;
  mailer: Mailer;
  siteUrl: () => string;
  projectLabel: (projectId: string) => Promise<string>;
  /** The dashboard page as HTML (the door kit's, given by the composition root). */
  printer: () => DashboardPrinter | null;
  /** The recipient's signed unsubscribe link. */
  unsubscribeLink: (projectId: string, ident: string, email: string) => string;
  /** Waits between SMTP attempts (3 attempts: two waits). */
  retryDelaysMs: readonly number[];
  /** Recipients computed and sent at once in one firing. */
  concurrency: number;
  /** Throws the plan's 402 when `n` more e-mails would pass `emailsPerDay`. */
  mayMail: (projectId: string, n: number) => Promise<void>;
}

/** The width of the e-mail's image of the dashboard, and how tall it may grow. */
const IMAGE = { widthPx: 1000, maxHeightPx: 4000 };

export type SendOutcome = 'sent' | 'skipped' | 'failed' | 'unknown';

export class SubscriptionSender {
  constructor(private readonly d: SubscriptionDeps) {}

  /**
   * One firing of `ident` (this job; `resume`: the recipients another firing, whose process
   * died, left pending): each recipient still pending, computed and mailed as them.
   */
  async send(
    ctx: JobContext,
    owner: ProjectActor,
    ident: string,
    def: SubscriptionDef,
    resume: string | null,
  ): Promise<Record<string, SendOutcome>> {
    const { projectId } = owner;
    const printer = this.d.printer();
    if (!printer)
      throw new Error('this process cannot draw dashboards (no page printer): a server runs it');
    const ledger = await this.plan(projectId, ident, def.recipients, ctx.job.id, resume);
    const outcomes: Record<string, SendOutcome> = {};
    for (const r of ledger) if (r.outcome !== 'pending') outcomes[r.recipient] = 'unknown';
    const pending = ledger.filter((r) => r.outcome === 'pending');
    const label = await this.d.projectLabel(projectId);
    let next = 0;
    const worker = async () => {
      while (next < pending.length) {
        const row = pending[next++]!;
        ctx.signal.throwIfAborted();
        outcomes[row.recipient] = await this.sendOne(ctx, owner, ident, def, row, printer, label);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, this.d.concurrency) }, worker));
    return outcomes;
  }

  /**
   * The firing's ledger: written once (every recipient pending), then read as it stands; a
   * resumed firing takes over the pending rows of the one it resumes.
   */
  private async plan(
    projectId: string,
    ident: string,
    recipients: string[],
    firing: string,
    resume: string | null,
  ) {
    const { deliveryHistory: h } = tablesOf(this.d.db);
    const mine = () =>
      this.d.db
        .select()
        .from(h)
        .where(and(eq(h.projectId, projectId), eq(h.object, ident), eq(h.jobId, firing)))
        .orderBy(asc(h.id));
    if (resume !== null) {
      await this.d.db
        .update(h)
        .set({ jobId: firing })
        .where(and(eq(h.projectId, projectId), eq(h.jobId, resume), eq(h.outcome, 'pending')));
      return mine();
    }
    const existing = await mine();
    if (existing.length) return existing;
    const time = new Date().toISOString();
    // Ids sort in the recipients' order: the ledger is read back in it.
    const stem = randomId(12);
    await this.d.db.transaction(async (tx) => {
      for (const [i, recipient] of recipients.entries())
        await tx.insert(h).values({
          id: `${stem}${String(i).padStart(4, '0')}`,
          projectId,
          object: ident,
          recipient,
          outcome: 'pending',
          value: null,
          message: null,
          jobId: firing,
          time,
        });
    });
    return mine();
  }

  private async sendOne(
    ctx: JobContext,
    owner: ProjectActor,
    ident: string,
    def: SubscriptionDef,
    row: { id: string; recipient: string },
    printer: DashboardPrinter,
    label: string,
  ): Promise<SendOutcome> {
    try {
      return await this.compose(ctx, owner, ident, def, row, printer, label);
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      // Rendering failed (Chromium busy or missing, a page too large): recorded, not sent.
      return this.settle(row.id, 'pending', 'failed', (err as Error).message);
    }
  }

  private async compose(
    ctx: JobContext,
    owner: ProjectActor,
    ident: string,
    def: SubscriptionDef,
    row: { id: string; recipient: string },
    printer: DashboardPrinter,
    label: string,
  ): Promise<SendOutcome> {
    const { projectId } = owner;
    const email = row.recipient;
    let member: ProjectActor;
    try {
      member = await resolveActor(this.d.db, { email }, projectId, { ignoreMaintenance: true });
    } catch {
      return this.settle(row.id, 'pending', 'skipped', `${email} is not a member of the project`);
    }
    let run: DashboardRun;
    try {
      run = await this.d.reports.dashboard(member, def.dashboard, def.filters ?? [], {
        signal: ctx.signal,
      });
    } catch (err) {
      if (ctx.signal.aborted || !(err instanceof EngineError)) throw err;
      // 404/403: they cannot open the dashboard (any more).
      return this.settle(row.id, 'pending', 'skipped', `not for ${email}: ${err.message}`);
    }
    const problems = run.items.filter((i) => i.error).map((i) => `${i.title}: ${i.error}`);
    const page = printer(run);
    const { pdf, png } = await this.d.exports.pdfAndImage(member, page, { title: run.name }, IMAGE);
    const files: MailAttachment[] =
      def.format === 'pdf'
        ? [
            {
              filename: attachmentName(run.name, 'pdf'),
              content: pdf,
              contentType: 'application/pdf',
            },
          ]
        : itemFiles(run, def);
    const base = this.d.siteUrl();
    const mail = subscriptionMail(
      {
        dashboardName: run.name,
        projectLabel: label,
        link: `${base}/app/p/${encodeURIComponent(projectId)}/dashboards/${encodeURIComponent(def.dashboard)}`,
        unsubscribe: this.d.unsubscribeLink(projectId, ident, email),
        filters: run.filters
          .filter((f) => f.values.length)
          .map((f) => `${f.title}: ${f.values.join(', ')}`),
        by: owner.email,
        image: png,
        files,
        problems,
        time: new Date(),
      },
      email,
    );
    // Over the plan's e-mails a day: recorded failed (the 402's message), not sent.
    await this.d.mayMail(projectId, 1);
    // The mark before the mail: a process that dies now leaves `sending`, never sent twice.
    if (!(await this.mark(row.id, 'pending', 'sending'))) return 'unknown';
    let error: Error | null = null;
    for (let attempt = 0; attempt <= this.d.retryDelaysMs.length; attempt++) {
      if (attempt > 0) await sleep(this.d.retryDelaysMs[attempt - 1]!, ctx.signal);
      try {
        // Its Message-ID names the ledger row, so a later bounce finds it.
        await this.d.mailer.send({
          to: email,
          ...mail,
          messageId: deliveryMessageId(row.id, base),
        });
        error = null;
        break;
      } catch (err) {
        error = err as Error;
        if (permanent(error)) break;
      }
    }
    if (error) return this.settle(row.id, 'sending', 'failed', error.message);
    return this.settle(row.id, 'sending', 'sent', problems.length ? problems.join('; ') : null);
  }

  /** `from` → `to` if the row is still `from` (another process may have taken it). */
  private async mark(id: string, from: string, to: string, message: string | null = null) {
    const { deliveryHistory: h } = tablesOf(this.d.db);
    const done = await this.d.db
      .update(h)
      .set({
        outcome: to,
        message: message?.slice(0, 2000) ?? null,
        time: new Date().toISOString(),
      })
      .where(and(eq(h.id, id), eq(h.outcome, from)))
      .returning({ id: h.id });
    return done.length > 0;
  }

  private async settle(id: string, from: string, to: SendOutcome, message: string | null) {
    return (await this.mark(id, from, to, message)) ? to : 'unknown';
  }

  /**
   * Firings that ended with recipients not yet settled: a `sending` row becomes `unknown`
   * (perhaps delivered: never sent again); pending rows of a firing whose process died or
   * stopped are returned, to be sent by a new firing (`resume`); of one that ended otherwise
   * (cancelled, failed) they become `skipped`.
   */
  async unsettled(
    endOf: (jobId: string) => Promise<'running' | 'interrupted' | string>,
  ): Promise<{ projectId: string; object: string; firing: string }[]> {
    const { deliveryHistory: h } = tablesOf(this.d.db);
    const rows = await this.d.db
      .select({
        projectId: h.projectId,
        object: h.object,
        jobId: h.jobId,
        id: h.id,
        outcome: h.outcome,
      })
      .from(h)
      .where(inArray(h.outcome, ['pending', 'sending']));
    const out = new Map<string, { projectId: string; object: string; firing: string }>();
    const ends = new Map<string, string>();
    for (const r of rows) {
      if (!r.jobId) continue;
      if (!ends.has(r.jobId)) ends.set(r.jobId, await endOf(r.jobId));
      const end = ends.get(r.jobId)!;
      if (end === 'running') continue;
      if (r.outcome === 'sending')
        await this.mark(
          r.id,
          'sending',
          'unknown',
          'the process sending it stopped mid-send: it may or may not have been delivered, and is not sent again',
        );
      else if (end === 'interrupted')
        out.set(r.jobId, { projectId: r.projectId, object: r.object, firing: r.jobId });
      else await this.mark(r.id, 'pending', 'skipped', `not sent: the firing ${end}`);
    }
    return [...out.values()];
  }
}

/** XLSX or CSV files of the chosen items (left out: every item with a result). */
function itemFiles(run: DashboardRun, def: SubscriptionDef): MailAttachment[] {
  const chosen = def.items ? run.items.filter((i) => def.items!.includes(i.id)) : run.items;
  const files: MailAttachment[] = [];
  for (const item of chosen) {
    const r = item.result;
    if (!r) continue;
    // As the item's download: a pivot as shown, a table's conditional colours kept.
    const t = resultSheet(r);
    const titles = t.columns;
    const name = attachmentName(`${run.name} - ${item.title}`, def.format);
    files.push(
      def.format === 'xlsx'
        ? {
            filename: name,
            content: toXlsx(titles, t.sheet, item.title, t.types, t.paint),
            contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
          }
        : {
            filename: name,
            content: Buffer.from(toDelimited(titles, t.rows, ','), 'utf8'),
            contentType: 'text/csv; charset=utf-8',
          },
    );
  }
  return files;
}

/** An SMTP answer that retrying will not change (5xx: the address or message is refused). */
function permanent(err: Error): boolean {
  const code = (err.cause as { responseCode?: number } | undefined)?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });
}
