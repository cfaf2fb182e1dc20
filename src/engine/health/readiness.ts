// Is this process ready for traffic (GET /readyz)? The metadata database answers a query, it
// holds exactly the migrations this version ships, the data directory takes writes and has
// at least URSA_MIN_FREE_BYTES free. Cheap enough for a load balancer polling every second:
// two tiny queries, one small file and a statfs.
import fs from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { randomId } from '../ids.js';
import type { Store } from '../db/store.js';
import type { Logger } from '../logger.js';

export type CheckName = 'database' | 'migrations' | 'dataDir' | 'diskSpace';

/** One check's result: `error` is a short reason (an error code), never a path or a secret. */
export interface CheckResult {
  ok: boolean;
  error?: string;
}

export interface ReadinessReport {
  ready: boolean;
  /** Names the failing checks when not ready. */
  message: string;
  checks: Record<CheckName, CheckResult>;
}

export interface ReadinessOptions {
  /** The metadata store (SQLite or PostgreSQL). */
  store: Store;
  dataDir: string;
  /** Free bytes of the data directory's filesystem below which it is not ready (0: none). */
  minFreeBytes?: number;
  log: Logger;
  /** A data directory that has not answered by then counts as failing (a hung network mount). */
  timeoutMs?: number;
}

export class Readiness {
  /**
   * The file the data directory check writes and removes: one name per process, so processes
   * sharing the directory never remove each other's.
   */
  readonly probeFile: string;
  /** Hashes of the migrations this version ships, in order, read once at start. */
  private readonly shipped: string[];
  private readonly timeoutMs: number;
  /** The data directory probe still under way: a hung one is waited on, not repeated. */
  private probing?: Promise<void>;
  private statting?: Promise<import('node:fs').StatsFs>;
  /** Checks failing at the last poll, with their reason: logged when that changes only. */
  private readonly failing = new Map<CheckName, string>();

  constructor(private readonly opts: ReadinessOptions) {
    this.probeFile = path.join(opts.dataDir, `.readyz-probe-${randomId(12)}`);
    this.shipped = readMigrationFiles({ migrationsFolder: opts.store.migrations.folder }).map(
      (m) => m.hash,
    );
    this.timeoutMs = opts.timeoutMs ?? 2_000;
  }

  async check(): Promise<ReadinessReport> {
    const [database, migrations, dataDir, diskSpace] = await Promise.all([
      this.run('database', async () => {
        await this.opts.store.ping();
      }),
      this.run('migrations', async () => this.checkMigrations()),
      this.run('dataDir', () => this.probeDataDir()),
      this.run('diskSpace', () => this.checkFreeSpace()),
    ]);
    const checks = { database, migrations, dataDir, diskSpace };
    const failed = Object.entries(checks)
      .filter(([, r]) => !r.ok)
      .map(([name]) => name);
    return {
      ready: failed.length === 0,
      message: failed.length ? `not ready: ${failed.join(', ')} failed` : 'ready',
      checks,
    };
  }

  /** Applied migrations (drizzle records each one's hash) against those shipped. */
  private async checkMigrations(): Promise<void> {
    const table = sql.raw(this.opts.store.migrations.table);
    const applied = (
      await this.opts.store.rows<{ hash: string }>(
        sql`SELECT hash FROM ${table} ORDER BY created_at, id`,
      )
    ).map((r) => r.hash);
    const known = this.shipped;
    const differs = applied.findIndex((h, i) => i < known.length && h !== known[i]);
    if (differs >= 0)
      throw new Error(`migration ${differs + 1} applied differs from this version's`);
    if (applied.length < known.length)
      throw new Error(`${applied.length} of ${known.length} migrations applied`);
    if (applied.length > known.length)
      throw new Error(
        `${applied.length} migrations applied, this version knows ${known.length} (a newer version migrated the database)`,
      );
  }

  /** A full disk answers uploads 507: the balancer sends them elsewhere before it comes. */
  private async checkFreeSpace(): Promise<void> {
    const min = this.opts.minFreeBytes ?? 0;
    if (!min) return;
    // Bounded like the probe: statfs of a hung mount would otherwise hold every poll.
    this.statting ??= fs.statfs(this.opts.dataDir).finally(() => (this.statting = undefined));
    const st = await this.bounded(this.statting);
    // The reason stays the same while it fails: it is logged when it changes.
    if (st.bavail * st.bsize < min)
      throw new Error(`less free space than URSA_MIN_FREE_BYTES (${min} bytes)`);
  }

  private async probeDataDir(): Promise<void> {
    this.probing ??= (async () => {
      await fs.writeFile(this.probeFile, 'ready\n');
      // unlink, not rm: rm walks the path as for a tree (lstat first) at every poll.
      await fs.unlink(this.probeFile);
    })().finally(() => (this.probing = undefined));
    await this.bounded(this.probing);
  }

  /** `work`, or a failure once the data directory has not answered within the timeout. */
  private async bounded<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    try {
      return await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async run(name: CheckName, probe: () => Promise<void>): Promise<CheckResult> {
    try {
      await probe();
      if (this.failing.delete(name)) this.opts.log.info({ check: name }, 'readiness check passes');
      return { ok: true };
    } catch (err) {
      const error = reason(err);
      if (this.failing.get(name) !== error) {
        // The full error (paths included) goes to the operator's log, once per change.
        this.opts.log.warn({ check: name, err }, 'readiness check fails');
        this.failing.set(name, error);
      }
      return { ok: false, error };
    }
  }
}

/**
 * What an anonymous caller may learn: the error's code (EISDIR, SQLITE_IOERR…), else its
 * message unless it names a file (system messages quote absolute paths).
 */
function reason(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && code) return code;
  const message = err instanceof Error ? err.message : String(err);
  return /[/\\]/.test(message) ? 'failed (see the server log)' : message;
}
