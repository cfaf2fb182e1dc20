// Triggers (type "trigger" model objects) start flow runs: on a cron schedule, after another
// flow, on a storage file change, on an SFTP file change (FLOWS.md "Triggers").
//
// Every firing is first claimed in trigger_firings (project, trigger, slot) with INSERT OR
// IGNORE: only the claimant starts the run, so several server processes on one database fire
// each slot once. The run starts as the trigger's last editor (a manual run as its caller); the
// claim row then records the outcome (started, skipped because the flow is running, failed)
// and every firing is a `flow_trigger` activity event.
//
// Storage changes (flowWebdavFilechange) include the files flows write. A change that arrives
// while the trigger's flow is running (its own outputs, among others) does not start it again:
// it is recorded once per run as a skipped firing. So a flow whose output matches its own
// trigger's glob runs once per outside change, not forever. Every process records the changes
// it sees (an api process too, which starts no runs) in the trigger's burst in the database
// (file-watch.ts) and signals the processes that run triggers; whichever takes the burst once
// it is quiet fires it.
//
// Runs that start other runs (flowSequence, outputs firing file triggers) form chains; a cycle
// of flowSequence triggers is refused on save (sequence-cycles.ts), and a chain too deep or too
// fast pauses the trigger that would extend it (chains.ts) until trigger/toggle enables it.
import type { Logger } from 'pino';
import { z } from 'zod';
import { requireLevel, type ProjectActor } from '../../access/actor.js';
import type { ActivityLog } from '../../activity/activity.js';
import type { Config } from '../../config.js';
import { storeOf, tx, type Db } from '../../db/index.js';
import { EngineError, invalid, notFound } from '../../errors.js';
import { nowIso, uuid } from '../../ids.js';
import type { Job, JobRunner } from '../../jobs/jobs.js';
import type { ModelObjects } from '../../model/objects.js';
import type { ModelStore, ObjectRow } from '../../model/store.js';
import type { Storage, StorageChange } from '../../storage/storage.js';
import { parseInput } from '../../validate.js';
import { sftpList } from '../connectors/sftp.js';
import type { Credentials } from '../connectors/types.js';
import {
  chainAfter,
  depthOf,
  overLimit,
  pause,
  pauseOf,
  pausesOf,
  unpause,
  type Chain,
  type Pause,
} from './chains.js';
import { claim, jobStatuses, lastFirings, lockedBy, settle, type Outcome } from './claims.js';
import {
  burstSlot,
  isFileArrival,
  noteChange,
  pathMatches,
  takeBurst,
  waitingBursts,
  type BurstTiming,
} from './file-watch.js';
import { armedSince, nextRun, previousRun } from './schedule.js';
import { describeCycle, sequenceCycle } from './sequence-cycles.js';
import { SftpWatch, type SftpLister } from './sftp-watch.js';
import { WatchedTriggers } from './watched.js';

/** What triggers need from the rest of the engine. */
export interface TriggerDeps {
  db: Db;
  /** Raw model (all projects, no rights): the triggers to watch. */
  model: ModelStore;
  /** Model API with rights: toggling writes `def.enabled` as a new revision. */
  objects: ModelObjects;
  jobs: JobRunner;
  activity: ActivityLog;
  /** Storage change hook (WebDAV, REST uploads, flow outputs): recorded even when not started. */
  storage: Storage;
  flows: {
    /** Starts a run as `a`; throws the 403 "already running" EngineError, or 404. */
    start(a: ProjectActor, flow: string, origin: { trigger: string; chain?: Chain }): Promise<Job>;
    isRunning(projectId: string, flow: string): Promise<boolean>;
  };
  /** The actor a trigger runs as (its last editor), or throws when they lost access. */
  actorOf(email: string, projectId: string): Promise<ProjectActor>;
  /** A credentials object with its secret decrypted, or null. */
  credentials(projectId: string, ident: string): Promise<Credentials | null>;
  config: Config['flows'];
  log: Logger;
}

/** Test seams; the engine passes none. */
export interface TriggerOptions {
  /** The clock timers are evaluated on. */
  now?: () => Date;
  /** Quiet period that debounces storage changes into one run (ms, default 2000). */
  debounceMs?: number;
  /** Lists files on an SFTP server (default: the SFTP connector's sftpList). */
  sftpList?: SftpLister;
}

export interface TriggerView {
  id: string;
  name: string;
  type: string;
  flow: string;
  /** Whether it fires: enabled and not paused. */
  enabled: boolean;
  /** Paused by the chain limits (when, why) until trigger/toggle enables it, or null. */
  paused: Pause | null;
  /** The latest firing: the run's current status, or SKIPPED / FAILED / PAUSED (with why). */
  lastRun: { time: string; job: string | null; status: string; message?: string } | null;
  nextRun: string | null;
}

/** A trigger's def as stored (validated by defs.ts triggerDef when written). */
interface TriggerDef {
  type: 'flowTimer' | 'flowSequence' | 'flowSftpFilechange' | 'flowWebdavFilechange';
  flow: string;
  cron?: string;
  timezone?: string;
  after?: string;
  path?: string;
  credentials?: string;
  enabled: boolean;
}

const defOf = (row: ObjectRow): TriggerDef => row.def as unknown as TriggerDef;
const keyOf = (projectId: string, ident: string) => `${projectId}\u0000${ident}`;
/** "A file trigger's burst changed", payload the project id (NOTIFY payloads are short). */
const CH_FILE_BURST = 'ursa_file_burst';
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

const zIds = z
  .union([z.string().min(1).max(200), z.array(z.string().min(1).max(200)).max(1000)])
  .transform((v) => (Array.isArray(v) ? v : [v]));
const toggleBody = z
  .object({ enabled: zIds.optional(), disabled: zIds.optional() })
  .strict()
  .refine((b) => b.enabled !== undefined || b.disabled !== undefined, {
    error: 'list trigger ids in "enabled" and/or "disabled"',
  });
const runBody = z.object({ id: z.string().min(1).max(200) }).strict();

/** What a firing did; `error` is what starting the run threw. */
interface Fired {
  outcome: Outcome;
  job: Job | null;
  message: string | null;
  error?: unknown;
}

export class Triggers {
  private started = false;
  private listening = false;
  private tickTimer: NodeJS.Timeout | null = null;
  /** The last timer slot each trigger was checked for (saves a claim attempt per tick). */
  private timerSeen = new Map<string, string>();
  private readonly burstTiming: BurstTiming;
  /** Local timers for the bursts waiting in the database, by keyOf. */
  private burstTimers = new Map<string, NodeJS.Timeout>();
  private unlisten: (() => void) | null = null;
  private readonly sftp: SftpWatch;
  private readonly now: () => Date;
  private readonly watched: WatchedTriggers;
  /** Firings under way: stop() waits for them before the database closes. */
  private inflight = new Set<Promise<unknown>>();

  constructor(
    private readonly deps: TriggerDeps,
    opts: TriggerOptions = {},
  ) {
    this.now = opts.now ?? (() => new Date());
    this.watched = new WatchedTriggers(deps.db, deps.model);
    this.burstTiming = { quietMs: opts.debounceMs ?? 2000, maxWaitMs: 30_000 };
    // Every process records the changes it sees, started or not (an api process's uploads).
    deps.storage.onChange((change) => this.storageChanged(change));
    this.sftp = new SftpWatch(
      {
        db: deps.db,
        list: opts.sftpList ?? sftpList,
        credentials: (p, ident) => deps.credentials(p, ident),
        net: { allowHosts: deps.config.allowHosts },
        log: deps.log,
        now: this.now,
        fire: async (row, slot, changes) => {
          await this.fire(row, slot, {
            note: `${changes.length} changed file(s): ${changes
              .slice(0, 5)
              .map((c) => c.path)
              .join(', ')}`,
          });
        },
        failed: async (row, slot, message) => {
          await this.fire(row, slot, { failure: `SFTP poll failed: ${message}` });
        },
      },
      Math.max(1, Math.round(deps.config.sftpPollSeconds * 1000)),
    );
  }

  /** Starts the timers and watchers (once the server serves); catches up missed timer runs. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (!this.listening) {
      // Listeners cannot be removed: they check `started` (a stopped service does nothing).
      this.listening = true;
      this.deps.jobs.onFinish((job) => this.jobFinished(job));
    }
    this.unlisten = await storeOf(this.deps.db).signals.listen(CH_FILE_BURST, (projectId) =>
      this.track(this.armBursts(projectId)),
    );
    this.sftp.start();
    // The first tick fires what was missed while the server was down.
    await this.tick();
    this.tickTimer = setInterval(() => this.tick(), this.deps.config.triggerTickMs);
    this.tickTimer.unref();
  }

  async stop(): Promise<void> {
    this.started = false;
    if (this.tickTimer) clearInterval(this.tickTimer);
    this.tickTimer = null;
    this.unlisten?.();
    this.unlisten = null;
    for (const t of this.burstTimers.values()) clearTimeout(t);
    this.burstTimers.clear();
    await this.sftp.stop();
    await Promise.allSettled([...this.inflight]);
  }

  // ---- API ----

  async list(a: ProjectActor): Promise<{ triggers: TriggerView[] }> {
    const rows = (await this.deps.objects.scope(a)).rows().filter((r) => r.type === 'trigger');
    const last = await lastFirings(this.deps.db, a.projectId);
    const created = new Map(rows.map((r) => [r.ident, r.created]));
    const paused = await pausesOf(this.deps.db, a.projectId, (id) => created.get(id));
    const statuses = await jobStatuses(
      this.deps.db,
      [...last.values()].map((f) => f.jobId).filter((j): j is string => !!j),
    );
    const now = this.now();
    return {
      triggers: rows.map((row) => {
        const def = defOf(row);
        const f = last.get(row.ident);
        let lastRun: TriggerView['lastRun'] = null;
        if (f) {
          const status = f.jobId
            ? (statuses.get(f.jobId) ?? 'UNKNOWN')
            : f.outcome === 'skipped'
              ? 'SKIPPED'
              : f.outcome === 'failed'
                ? 'FAILED'
                : f.outcome === 'paused'
                  ? 'PAUSED'
                  : 'PENDING';
          lastRun = {
            time: f.time,
            job: f.jobId,
            status,
            ...(f.message && !f.jobId ? { message: f.message } : {}),
          };
        }
        const pausedSince = paused.get(row.ident) ?? null;
        const enabled = def.enabled === true && !pausedSince;
        const next =
          def.type === 'flowTimer' && enabled && def.cron
            ? nextRun({ cron: def.cron, timezone: def.timezone }, now)
            : null;
        return {
          id: row.ident,
          name: row.name,
          type: def.type,
          flow: def.flow,
          enabled,
          paused: pausedSince,
          lastRun,
          nextRun: next ? next.toISOString() : null,
        };
      }),
    };
  }

  /**
   * Enables and disables triggers (MD Admin): each changed one gets a new revision with
   * `def.enabled`, written through the model API with the caller's rights, all or nothing.
   * Enabling a paused trigger lifts its pause; one that closes a flowSequence cycle → 400.
   */
  async toggle(a: ProjectActor, body: unknown): Promise<{ triggers: TriggerView[] }> {
    requireLevel(a, 'mdadmin');
    const b = parseInput(toggleBody, body ?? {}, 'trigger toggle');
    const enable = [...new Set(b.enabled ?? [])];
    const disable = [...new Set(b.disabled ?? [])];
    const both = enable.filter((id) => disable.includes(id));
    if (both.length)
      throw invalid(
        `trigger ${both.map((id) => `"${id}"`).join(', ')} is listed in both enabled and disabled`,
        { field: 'enabled', ids: both },
      );
    const scope = await this.deps.objects.scope(a);
    const wanted = [
      ...enable.map((id) => [id, true] as const),
      ...disable.map((id) => [id, false] as const),
    ];
    const unknown = wanted.map(([id]) => id).filter((id) => !scope.get(id));
    if (unknown.length)
      throw notFound(
        `no trigger ${unknown.map((id) => `"${id}"`).join(', ')} in project "${a.projectId}"`,
        { ids: unknown },
      );
    const wrong = wanted.map(([id]) => scope.get(id)!).filter((r) => r.type !== 'trigger');
    if (wrong.length)
      throw invalid(
        `not a trigger: ${wrong.map((r) => `"${r.ident}" is a ${r.type}`).join(', ')}`,
        { ids: wrong.map((r) => r.ident) },
      );
    for (const id of enable) {
      // A paused one may have been saved before cycles were refused: it stays off.
      const cycle = sequenceCycle(scope.index.rows, scope.get(id)!.def);
      if (cycle) {
        const shown = describeCycle(cycle, (f) => !!scope.get(f));
        throw invalid(`trigger "${id}": def.after: ${shown.message}`, {
          ident: id,
          field: 'def.after',
          cycle: shown.cycle,
        });
      }
    }
    await tx(this.deps.db, async () => {
      for (const id of enable) {
        const row = scope.get(id)!;
        const was = await pauseOf(this.deps.db, a.projectId, id, row.created);
        // (a pause left by a deleted trigger of the same identifier goes too, unannounced)
        if (!(await unpause(this.deps.db, a.projectId, id)) || !was) continue;
        const def = defOf(row);
        await this.deps.activity.record(a.projectId, 'flow_trigger', {
          user: a.email,
          object: id,
          message: `trigger "${row.name}" (${def.type}) enabled again after a pause: ${was.message}`,
          detail: {
            trigger: id,
            type: def.type,
            flow: def.flow,
            outcome: 'resumed',
            reason: was.message,
          },
        });
      }
      for (const [id, enabled] of wanted) {
        const row = scope.get(id)!;
        if (defOf(row).enabled === enabled) continue;
        await this.deps.objects.replace(a, id, {
          name: row.name,
          description: row.description,
          def: { ...row.def, enabled },
          tag: row.tags,
        });
      }
    });
    return this.list(a);
  }

  /**
   * Fires a trigger once now (MD Admin), enabled or not, as the caller: the started run, or the
   * error starting it threw (403 when the flow is running). Recorded like every firing.
   */
  async run(a: ProjectActor, body: unknown): Promise<Job> {
    requireLevel(a, 'mdadmin');
    const { id } = parseInput(runBody, body ?? {}, 'trigger run');
    const row = (await this.deps.objects.scope(a)).get(id);
    if (!row) throw notFound(`no trigger "${id}" in project "${a.projectId}"`, { id });
    if (row.type !== 'trigger')
      throw invalid(`"${id}" is a ${row.type}, not a trigger`, { id, type: row.type });
    const fired = await this.fire(row, `manual:${uuid()}`, { actor: a });
    if (fired?.job) return fired.job;
    throw fired?.error ?? new Error(fired?.message ?? 'the trigger did not start its flow');
  }

  // ---- watching ----

  /** One pass over every project's timers (due slots fire) and SFTP triggers (polling set). */
  async tick(): Promise<void> {
    if (!this.started) return;
    try {
      const now = this.now();
      const seen = new Set<string>();
      const sftp: ObjectRow[] = [];
      for (const row of await this.watched.all()) {
        const def = defOf(row);
        if (def.enabled !== true) continue;
        if (def.type === 'flowTimer') {
          seen.add(keyOf(row.projectId, row.ident));
          await this.checkTimer(row, def, now);
        } else if (def.type === 'flowSftpFilechange') sftp.push(row);
      }
      for (const k of this.timerSeen.keys()) if (!seen.has(k)) this.timerSeen.delete(k);
      this.sftp.sync(sftp);
      // Bursts whose signal was lost, or recorded while no process ran triggers.
      await this.armBursts();
    } catch (err) {
      this.deps.log.error({ err }, 'trigger tick failed');
    }
  }

  /** A timer's latest scheduled time fires once, if it came after the timer was armed. */
  private async checkTimer(row: ObjectRow, def: TriggerDef, now: Date): Promise<void> {
    if (!def.cron) return;
    const prev = previousRun({ cron: def.cron, timezone: def.timezone }, now);
    if (!prev) return;
    const slot = prev.toISOString();
    const key = keyOf(row.projectId, row.ident);
    if (this.timerSeen.get(key) === slot) return;
    this.timerSeen.set(key, slot);
    // Unchanged since before the slot: owed. Otherwise, since when has it been scheduled so?
    if (prev.getTime() <= Date.parse(row.updated)) {
      const revisions = (await this.deps.model.revisions(row.projectId, row.ident)).map((r) => ({
        time: r.time,
        def: (r.snapshot as { def?: Record<string, unknown> }).def,
      }));
      if (prev.getTime() <= armedSince(row.def, row.created, row.updated, revisions)) return;
    }
    this.track(this.fire(row, slot, {}));
  }

  private async jobFinished(job: Job): Promise<void> {
    if (!this.started || job.type !== 'flow' || job.status !== 'OK') return;
    const flow = job.params.id;
    if (typeof flow !== 'string') return;
    try {
      for (const row of await this.deps.model.listByType(job.projectId, ['trigger'])) {
        const def = defOf(row);
        if (def.enabled === true && def.type === 'flowSequence' && def.after === flow)
          this.track(
            this.fire(row, `after:${job.id}`, {
              note: `after flow "${flow}" ended OK`,
              chain: { depth: depthOf(job.params) + 1, cause: job.id },
            }),
          );
      }
    } catch (err) {
      this.deps.log.error({ err, jobId: job.id }, 'flowSequence triggers failed');
    }
  }

  /**
   * A file arrived (through this process): skipped while the flow runs, else one more change in
   * each matching trigger's burst. Done whether or not this process runs triggers.
   */
  private async storageChanged(change: StorageChange): Promise<void> {
    if (!isFileArrival(change)) return;
    try {
      let chain: Chain | null | undefined;
      let noted = false;
      for (const row of await this.deps.model.listByType(change.projectId, ['trigger'])) {
        const def = defOf(row);
        if (def.enabled !== true || def.type !== 'flowWebdavFilechange' || !def.path) continue;
        if (!pathMatches(def.path, change.path)) continue;
        const running = await this.runningJob(row.projectId, def.flow);
        if (running !== null) {
          // Its own outputs among them: recorded once per run, never a run after this one.
          this.track(
            this.fire(row, `file:during:${running || this.now().toISOString()}`, {
              skip: `flow "${def.flow}" was running when "${change.path}" changed`,
            }),
          );
          continue;
        }
        // Written by a run: the run it fires is chained to that one (its depth is in its job).
        if (chain === undefined)
          chain = change.job ? await chainAfter(this.deps.db, change.job) : null;
        // The real clock: bursts are compared across processes.
        await noteChange(this.deps.db, row.projectId, row.ident, Date.now(), chain);
        noted = true;
      }
      if (noted) await storeOf(this.deps.db).signals.notify(CH_FILE_BURST, change.projectId);
    } catch (err) {
      this.deps.log.error({ err, project: change.projectId }, 'storage trigger check failed');
    }
  }

  /** Sets a local timer for each burst waiting (of one project, or all) not timed yet. */
  private async armBursts(projectId?: string): Promise<void> {
    if (!this.started) return;
    for (const b of await waitingBursts(this.deps.db, this.burstTiming, projectId)) {
      const key = keyOf(b.projectId, b.trigger);
      // A signal may announce a later quiet end than the timer set: set it again.
      if (projectId === undefined && this.burstTimers.has(key)) continue;
      this.armBurst(b.projectId, b.trigger, b.due);
    }
  }

  private armBurst(projectId: string, trigger: string, due: number): void {
    const key = keyOf(projectId, trigger);
    clearTimeout(this.burstTimers.get(key));
    // Bounded: another process's clock may be ahead; the burst is checked again when it rings.
    const wait = Math.min(Math.max(0, due - Date.now()), this.burstTiming.maxWaitMs);
    const timer = setTimeout(() => {
      if (this.burstTimers.get(key) === timer) this.burstTimers.delete(key);
      this.track(this.burstQuiet(projectId, trigger));
    }, wait);
    timer.unref();
    this.burstTimers.set(key, timer);
  }

  /** A storage trigger's burst may be quiet: whichever process takes it fires one run. */
  private async burstQuiet(projectId: string, trigger: string): Promise<void> {
    if (!this.started) return;
    const took = await takeBurst(this.deps.db, projectId, trigger, Date.now(), this.burstTiming);
    if (!took) return;
    if ('due' in took) return this.armBurst(projectId, trigger, took.due);
    const { burst } = took;
    const row = await this.deps.model.get(projectId, trigger);
    if (row?.type !== 'trigger' || defOf(row).type !== 'flowWebdavFilechange') return;
    await this.fire(row, burstSlot(burst), {
      note: `${burst.changes} file change(s) matching "${defOf(row).path}"`,
      ...(burst.chain ? { chain: burst.chain } : {}),
    });
  }

  /** The running job of a flow ('' when only this process knows it runs), or null. */
  private async runningJob(projectId: string, flow: string): Promise<string | null> {
    const locked = await lockedBy(this.deps.db, projectId, flow);
    if (locked) return locked;
    return (await this.deps.flows.isRunning(projectId, flow)) ? '' : null;
  }

  private track(p: Promise<unknown>): void {
    const q = p.catch((err: unknown) => this.deps.log.error({ err }, 'trigger firing failed'));
    this.inflight.add(q);
    void q.finally(() => this.inflight.delete(q));
  }

  // ---- firing ----

  /**
   * Claims the slot and, if this call got it, starts the run: as `how.actor` (a manual run,
   * enabled or not), else as the trigger's last editor while it is still enabled and not
   * paused. `skip` and `failure` record the firing without starting anything. A firing caused
   * by another run (`chain`) beyond the chain limits pauses the trigger instead. Null when the
   * slot was taken.
   */
  private async fire(
    row: ObjectRow,
    slot: string,
    how: { actor?: ProjectActor; note?: string; skip?: string; failure?: string; chain?: Chain },
  ): Promise<Fired | null> {
    const manual = how.actor !== undefined;
    const { db } = this.deps;
    if (!manual) {
      // Read again: it may have been disabled, paused, changed or deleted since it was seen.
      const current = await this.deps.model.get(row.projectId, row.ident);
      if (!current || current.type !== 'trigger' || defOf(current).enabled !== true) return null;
      if (await pauseOf(db, current.projectId, current.ident, current.created)) return null;
      row = current;
    }
    const def = defOf(row);
    const { projectId, ident } = row;
    const chain = manual ? undefined : how.chain;
    if (!(await claim(db, projectId, ident, slot, this.now().toISOString()))) return null;
    let user = how.actor?.email ?? row.updatedBy;
    let fired: Fired;
    if (how.skip) fired = { outcome: 'skipped', job: null, message: how.skip };
    else if (how.failure) fired = { outcome: 'failed', job: null, message: how.failure };
    else if (chain) {
      // Counting the last minute's chained runs and starting this one are one step for the
      // whole cluster: firings of other triggers of the same flow wait, then count this run.
      const current = row;
      fired = await storeOf(db).exclusive(`ursa:chain:${projectId}:${def.flow}`, async (held) => {
        const limit = await overLimit(db, projectId, def.flow, chain, this.deps.config, new Date());
        // The count is only good while the lock is held (lost: the database ended it).
        held.throwIfAborted();
        if (!limit) return this.startRun(current, def, how.actor, chain);
        await pause(db, projectId, ident, nowIso(), limit);
        return { outcome: 'paused', job: null, message: limit };
      });
    } else fired = await this.startRun(row, def, how.actor, chain);
    await settle(
      this.deps.db,
      projectId,
      ident,
      slot,
      fired.outcome,
      fired.job?.id ?? null,
      fired.message,
    );
    if (fired.job) user = fired.job.createdBy;
    const what = `trigger "${row.name}" (${def.type}${manual ? ', run now' : ''})`;
    const message =
      fired.outcome === 'started'
        ? `${what} started flow "${def.flow}" (job ${fired.job!.id})`
        : fired.outcome === 'skipped'
          ? `${what} skipped: ${fired.message}`
          : fired.outcome === 'paused'
            ? `${what} paused, flow "${def.flow}" not started: ${fired.message}`
            : `${what} could not start flow "${def.flow}": ${fired.message}`;
    await this.deps.activity.record(projectId, 'flow_trigger', {
      user,
      object: ident,
      message,
      detail: {
        trigger: ident,
        type: def.type,
        flow: def.flow,
        outcome: fired.outcome,
        ...(fired.job ? { jobId: fired.job.id } : {}),
        slot,
        ...(manual ? { manual: true } : {}),
        ...(chain ? { depth: chain.depth, cause: chain.cause } : {}),
        ...(fired.message && fired.outcome !== 'started' ? { reason: fired.message } : {}),
        ...(how.note ? { note: how.note } : {}),
      },
    });
    if (fired.outcome === 'paused')
      this.deps.log.warn({ project: projectId, trigger: ident, slot, ...fired }, message);
    else if (fired.outcome !== 'started')
      this.deps.log.info({ project: projectId, trigger: ident, slot, ...fired }, message);
    return fired;
  }

  private async startRun(
    row: ObjectRow,
    def: TriggerDef,
    actor?: ProjectActor,
    chain?: Chain,
  ): Promise<Fired> {
    const { projectId, ident } = row;
    let a: ProjectActor;
    try {
      a = actor ?? (await this.deps.actorOf(row.updatedBy, projectId));
    } catch (err) {
      return {
        outcome: 'failed',
        job: null,
        message: `the trigger runs as its last editor ${row.updatedBy}, who cannot: ${messageOf(err)}`,
        error: err,
      };
    }
    if (!actor && (await this.runningJob(projectId, def.flow)) !== null)
      return { outcome: 'skipped', job: null, message: `flow "${def.flow}" is already running` };
    try {
      const job = await this.deps.flows.start(a, def.flow, {
        trigger: ident,
        ...(chain ? { chain } : {}),
      });
      return { outcome: 'started', job, message: null };
    } catch (err) {
      // One run per flow: the 403 of a start while it runs is a skip, not a failure.
      const busy =
        err instanceof EngineError &&
        err.kind === 'forbidden' &&
        (/already running/i.test(err.message) ||
          (await this.runningJob(projectId, def.flow)) !== null);
      return {
        outcome: busy ? 'skipped' : 'failed',
        job: null,
        message: busy ? `flow "${def.flow}" is already running` : messageOf(err),
        error: err,
      };
    }
  }
}
