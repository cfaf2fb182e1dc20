// Triggers (type "trigger" model objects) start flow runs: on a cron schedule, after another
// flow, on a storage file change, on an SFTP file change. Filled in by the triggers work.
import type { Logger } from 'pino';
import type { ProjectActor } from '../../access/actor.js';
import type { ActivityLog } from '../../activity/activity.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import type { Job, JobRunner } from '../../jobs/jobs.js';
import type { ModelObjects } from '../../model/objects.js';
import type { ModelStore } from '../../model/store.js';
import type { Storage } from '../../storage/storage.js';
import type { Credentials } from '../connectors/types.js';

/** What triggers need from the rest of the engine. */
export interface TriggerDeps {
  db: Db;
  /** Raw model (all projects, no rights): the triggers to watch. */
  model: ModelStore;
  /** Model API with rights: toggling writes `def.enabled` as a new revision. */
  objects: ModelObjects;
  jobs: JobRunner;
  activity: ActivityLog;
  /** Storage change hook (WebDAV, REST uploads, flow outputs). */
  storage: Storage;
  flows: {
    /** Starts a run as `a`; throws the 403 "already running" EngineError, or 404. */
    start(a: ProjectActor, flow: string, origin: { trigger: string }): Promise<Job>;
    isRunning(projectId: string, flow: string): boolean;
  };
  /** The actor a trigger runs as (its last editor), or throws when they lost access. */
  actorOf(email: string, projectId: string): ProjectActor;
  /** A credentials object with its secret decrypted, or null. */
  credentials(projectId: string, ident: string): Credentials | null;
  config: Config['flows'];
  log: Logger;
}

export interface TriggerView {
  id: string;
  name: string;
  type: string;
  flow: string;
  enabled: boolean;
  lastRun: { time: string; job: string | null; status: string } | null;
  nextRun: string | null;
}

export class Triggers {
  constructor(private readonly deps: TriggerDeps) {}

  /** Starts the timers and watchers (once the server serves); catches up missed timer runs. */
  start(): void {}

  async stop(): Promise<void> {}

  list(_a: ProjectActor): { triggers: TriggerView[] } {
    return { triggers: [] };
  }

  toggle(_a: ProjectActor, _body: unknown): { triggers: TriggerView[] } {
    return { triggers: [] };
  }

  async run(_a: ProjectActor, _body: unknown): Promise<Job> {
    throw new Error('not yet');
  }
}
