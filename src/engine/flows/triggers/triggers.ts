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
//
// This file is the service: its lifecycle and the watching (timers, flowSequence, storage
// bursts, SFTP polls); firing.ts fires, list-toggle.ts answers trigger/list and trigger/toggle.
import { z } from 'zod';
import { requireLevel, type ProjectActor } from '../../access/actor.js';
import { storeOf } from '../../db/index.js';
import { invalid, notFound } from '../../errors.js';
import { uuid } from '../../ids.js';
import type { Job } from '../../jobs/jobs.js';
import type { ObjectRow } from '../../model/store.js';
import type { StorageChange } from '../../storage/storage.js';
import { parseInput } from '../../validate.js';
import { sftpList } from '../connectors/sftp.js';
import { chainAfter, depthOf, type Chain } from './chains.js';
import { defOf, type TriggerDef, type TriggerDeps } from './deps.js';
import {
  burstSlot,
  isFileArrival,
  noteChange,
  pathMatches,
  takeBurst,
  waitingBursts,
  type BurstTiming,
} from './file-watch.js';
import { fire, runningJob, type FireHow, type Fired } from './firing.js';
import { listTriggers, toggleTriggers, type TriggerView } from './list-toggle.js';
import { armedSince, previousRun } from './schedule.js';
import { SftpWatch, type SftpLister } from './sftp-watch.js';
import { WatchedTriggers } from './watched.js';

export type { TriggerDeps } from './deps.js';
export type { TriggerView } from './list-toggle.js';

/** Test seams; the engine passes none. */
export interface TriggerOptions {
  /** The clock timers are evaluated on. */
  now?: () => Date;
  /** Quiet period that debounces storage changes into one run (ms, default 2000). */
  debounceMs?: number;
  /** Lists files on an SFTP server (default: the SFTP connector's sftpList). */
  sftpList?: SftpLister;
}

const keyOf = (projectId: string, ident: string) => `${projectId}\u0000${ident}`;
/** "A file trigger's burst changed", payload the project id (NOTIFY payloads are short). */
const CH_FILE_BURST = 'ursa_file_burst';
const runBody = z.object({ id: z.string().min(1).max(200) }).strict();

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

  async list(a: ProjectActor): Promise<{ triggers: TriggerView[] }> {
    return listTriggers(this.deps, this.now, a);
  }

  /** Enables and disables triggers (MD Admin; list-toggle.ts). */
  async toggle(a: ProjectActor, body: unknown): Promise<{ triggers: TriggerView[] }> {
    return toggleTriggers(this.deps, this.now, a, body);
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
        const running = await runningJob(this.deps, row.projectId, def.flow);
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

  private track(p: Promise<unknown>): void {
    const q = p.catch((err: unknown) => this.deps.log.error({ err }, 'trigger firing failed'));
    this.inflight.add(q);
    void q.finally(() => this.inflight.delete(q));
  }

  /** See firing.ts; null when another call or process took the slot. */
  private fire(row: ObjectRow, slot: string, how: FireHow): Promise<Fired | null> {
    return fire(this.deps, this.now, row, slot, how);
  }
}
