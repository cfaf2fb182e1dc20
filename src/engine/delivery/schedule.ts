// When alerts are evaluated without being asked: on their schedule (five-field cron in a time
// zone, as triggers) and after a load or flow run of their project (`afterLoads`). Each firing
// is claimed in trigger_firings (project, alert, slot) as a trigger's is, so processes sharing
// the database evaluate it once; the evaluation runs as the alert's last editor.
import type { Logger } from 'pino';
import { resolveActor, type ProjectActor } from '../access/actor.js';
import type { Db } from '../db/index.js';
import { claim, settle } from '../flows/triggers/claims.js';
import { armedSince, previousRun } from '../flows/triggers/schedule.js';
import { WatchedTriggers } from '../flows/triggers/watched.js';
import type { Job, JobRunner } from '../jobs/jobs.js';
import type { ModelStore, ObjectRow } from '../model/store.js';
import type { AlertDef } from './types.js';

export interface AlertScheduleDeps {
  db: Db;
  model: ModelStore;
  jobs: JobRunner;
  log: Logger;
  tickMs: number;
  submit: (a: ProjectActor, ident: string) => Promise<Job>;
}

interface Scheduled extends AlertDef {
  schedule?: { cron: string; timezone?: string };
  afterLoads?: boolean;
}

export class AlertSchedule {
  private timer: NodeJS.Timeout | null = null;
  private unfinish: (() => void) | null = null;
  private readonly watched: WatchedTriggers;
  /** The last slot each alert was checked for (saves a claim attempt per tick). */
  private seen = new Map<string, string>();
  private pending = new Set<Promise<unknown>>();

  constructor(private readonly d: AlertScheduleDeps) {
    this.watched = new WatchedTriggers(d.db, d.model, ['alert', 'subscription']);
  }

  async start(): Promise<void> {
    // Not awaited: a job's finish listeners run before its slot is free.
    this.unfinish = this.d.jobs.onFinish((job) => {
      if (job.status === 'OK' && (job.type === 'transform' || job.type === 'flow'))
        this.track(this.loadFinished(job));
    });
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.d.tickMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unfinish?.();
    this.unfinish = null;
    await Promise.allSettled([...this.pending]);
  }

  /** Due schedules fire once (the latest slot after the alert was armed). `now` for tests. */
  async tick(now = new Date()): Promise<void> {
    try {
      for (const row of await this.watched.all()) {
        const def = row.def as unknown as Scheduled;
        if (def.paused || !def.schedule) continue;
        const prev = previousRun(def.schedule, now);
        if (!prev) continue;
        const slot = prev.toISOString();
        const key = `${row.projectId}\u0000${row.ident}`;
        if (this.seen.get(key) === slot) continue;
        this.seen.set(key, slot);
        if (prev.getTime() <= Date.parse(row.updated)) {
          const revisions = (await this.d.model.revisions(row.projectId, row.ident)).map((r) => ({
            time: r.time,
            def: (r.snapshot as { def?: Record<string, unknown> }).def,
          }));
          // armedSince compares a trigger's cron fields; an alert's schedule is nested.
          const flat = (d: Record<string, unknown> | undefined) =>
            d && { ...(d.schedule as object), type: 'alert', enabled: d.paused !== true };
          const since = armedSince(
            flat(row.def)!,
            row.created,
            row.updated,
            revisions.map((r) => ({ time: r.time, def: flat(r.def) })),
          );
          if (prev.getTime() <= since) continue;
        }
        this.track(this.fire(row, slot));
      }
    } catch (err) {
      this.d.log.error({ err }, 'alert tick failed');
    }
  }

  /** A load or flow run that ended OK: the project's `afterLoads` alerts are evaluated. */
  private async loadFinished(job: Job): Promise<void> {
    if (job.status !== 'OK' || (job.type !== 'transform' && job.type !== 'flow')) return;
    try {
      for (const row of await this.d.model.listByType(job.projectId, ['alert'])) {
        const def = row.def as unknown as Scheduled;
        if (def.afterLoads && !def.paused) this.track(this.fire(row, `after:${job.id}`));
      }
    } catch (err) {
      this.d.log.error({ err, jobId: job.id }, 'alerts after a load failed');
    }
  }

  private async fire(row: ObjectRow, slot: string): Promise<void> {
    const { db } = this.d;
    if (!(await claim(db, row.projectId, row.ident, slot, new Date().toISOString()))) return;
    // A subscription is its creator's (recipients leaving by their link edit it too).
    const who = row.type === 'subscription' ? row.createdBy : row.updatedBy;
    try {
      const a = await resolveActor(db, { email: who }, row.projectId, {
        ignoreMaintenance: true,
      });
      const job = await this.d.submit(a, row.ident);
      await settle(db, row.projectId, row.ident, slot, 'started', job.id, null);
    } catch (err) {
      const message = `the ${row.type} runs as ${who}, who cannot: ${(err as Error).message}`;
      await settle(db, row.projectId, row.ident, slot, 'failed', null, message).catch(
        () => undefined,
      );
      this.d.log.warn({ err, object: row.ident }, `${row.type} not run`);
    }
  }

  private track(p: Promise<unknown>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  /** Waits for the evaluations started so far to be submitted (tests). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }
}
