// What the trigger service needs from the rest of the engine, and a trigger's def as stored:
// shared by the facade (triggers.ts), firing (firing.ts) and the admin calls (list-toggle.ts).
import type { Logger } from 'pino';
import type { ProjectActor } from '../../access/actor.js';
import type { ActivityLog } from '../../activity/activity.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import type { Job, JobRunner } from '../../jobs/jobs.js';
import type { ModelObjects } from '../../model/objects.js';
import type { ModelStore, ObjectRow } from '../../model/store.js';
import type { Storage } from '../../storage/storage.js';
import type { Credentials } from '../connectors/types.js';
import type { Chain } from './chains.js';

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

/** A trigger's def as stored (validated by defs.ts triggerDef when written). */
export interface TriggerDef {
  type: 'flowTimer' | 'flowSequence' | 'flowSftpFilechange' | 'flowWebdavFilechange';
  flow: string;
  cron?: string;
  timezone?: string;
  after?: string;
  path?: string;
  credentials?: string;
  enabled: boolean;
}

export const defOf = (row: ObjectRow): TriggerDef => row.def as unknown as TriggerDef;
