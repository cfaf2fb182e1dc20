// flowSftpFilechange: each enabled trigger's files on its SFTP server are listed every
// URSA_SFTP_POLL_SECONDS. The listing is kept in trigger_state, so every process and a restart
// compare with the same one. The first listing (and the first after the trigger is edited or
// re-enabled) is the baseline; later, a new file or a changed size or modification time fires
// once per distinct set of changes (the slot is their hash, so two processes seeing the same
// change claim one firing). A failing poll is logged and recorded as a failed firing once per
// distinct error, until a poll succeeds again.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Db } from '../../db/index.js';
import type { ObjectRow } from '../../model/store.js';
import type { Credentials, NetPolicy, ReadContext } from '../connectors/types.js';
import { readState, writeState } from './claims.js';

export interface RemoteFile {
  path: string;
  size: number;
  mtime: number;
}

export type SftpLister = (
  cred: Credentials,
  pattern: string,
  ctx: ReadContext,
) => Promise<RemoteFile[]>;

/** A listing as stored: path → [size, mtime]. */
export type Listing = Record<string, [number, number]>;

export interface SftpState extends Record<string, unknown> {
  /** What the listing was taken for (credentials, path, trigger revision); '' before a baseline. */
  key: string;
  files: Listing;
  /** The last poll's error, recorded once; cleared by a successful poll. */
  error?: string;
  okAt?: string;
}

export interface FileChange {
  path: string;
  size: number;
  mtime: number;
  was: [number, number] | null;
}

export function toListing(files: RemoteFile[]): Listing {
  const out: Listing = {};
  for (const f of files) out[f.path] = [f.size, f.mtime];
  return out;
}

/** Files that are new or whose size or modification time changed (deletions do not count). */
export function diffListing(before: Listing, after: Listing): FileChange[] {
  const out: FileChange[] = [];
  for (const [path, [size, mtime]] of Object.entries(after)) {
    const was = before[path] ?? null;
    if (!was || was[0] !== size || was[1] !== mtime) out.push({ path, size, mtime, was });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 32);

/** The firing slot of a set of changes: the same changes seen twice are one firing. */
export function changeSlot(changes: FileChange[]): string {
  return `sftp:${sha(JSON.stringify(changes.map((c) => [c.path, c.was, c.size, c.mtime])))}`;
}

export interface SftpDef {
  flow: string;
  path: string;
  credentials: string;
}

export interface SftpPollDeps {
  db: Db;
  list: SftpLister;
  credentials(projectId: string, ident: string): Promise<Credentials | null>;
  net: NetPolicy;
  log: Logger;
  now(): Date;
  /** A change to fire for (claims the slot, starts the run). */
  fire(row: ObjectRow, slot: string, changes: FileChange[]): Promise<void>;
  /** A failed poll to record (claims the slot, records a failed firing). */
  failed(row: ObjectRow, slot: string, message: string): Promise<void>;
}

const POLL_TIMEOUT_MS = 120_000;

/** One poll of one trigger. */
export async function pollOnce(
  d: SftpPollDeps,
  row: ObjectRow,
  signal: AbortSignal,
): Promise<void> {
  const def = row.def as unknown as SftpDef;
  const key = `${def.credentials}\n${def.path}\n${row.revision}`;
  const state = await readState<SftpState>(d.db, row.projectId, row.ident);
  const now = d.now().toISOString();
  let listing: Listing;
  try {
    const cred = await d.credentials(row.projectId, def.credentials);
    if (!cred || cred.kind !== 'sftp')
      throw new Error(`credentials "${def.credentials}" not found or not of kind sftp`);
    const files = await d.list(cred, def.path, {
      box: `trigger ${row.ident}`,
      signal: AbortSignal.any([signal, AbortSignal.timeout(POLL_TIMEOUT_MS)]),
      net: d.net,
    });
    listing = toListing(files);
  } catch (err) {
    if (signal.aborted) return;
    const message = err instanceof Error ? err.message : String(err);
    if (state?.error === message) return;
    d.log.warn(
      { project: row.projectId, trigger: row.ident, err: message },
      'SFTP trigger poll failed',
    );
    await writeState(
      d.db,
      row.projectId,
      row.ident,
      { key: state?.key ?? '', files: state?.files ?? {}, okAt: state?.okAt, error: message },
      now,
    );
    await d.failed(row, `error:${sha(`${message}\n${state?.okAt ?? ''}`)}`, message);
    return;
  }
  if (signal.aborted) return;
  await writeState(d.db, row.projectId, row.ident, { key, files: listing, okAt: now }, now);
  // First listing, or the trigger changed since: this is the baseline.
  if (!state || state.key !== key) return;
  const changes = diffListing(state.files, listing);
  if (changes.length) await d.fire(row, changeSlot(changes), changes);
}

interface Poller {
  row: ObjectRow;
  timer: NodeJS.Timeout | null;
  running: Promise<void> | null;
}

/** Polls every enabled SFTP trigger on its own unref'd timer. */
export class SftpWatch {
  private pollers = new Map<string, Poller>();
  private ctrl = new AbortController();
  private stopped = true;

  constructor(
    private readonly d: SftpPollDeps,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.ctrl = new AbortController();
  }

  /** The triggers to watch now: new ones start polling, gone or disabled ones stop. */
  sync(rows: ObjectRow[]): void {
    if (this.stopped) return;
    const keep = new Set<string>();
    for (const row of rows) {
      const k = `${row.projectId}\u0000${row.ident}`;
      keep.add(k);
      const p = this.pollers.get(k);
      if (p) p.row = row;
      else {
        const np: Poller = { row, timer: null, running: null };
        this.pollers.set(k, np);
        this.schedule(k, np, 0);
      }
    }
    for (const [k, p] of this.pollers) {
      if (keep.has(k)) continue;
      if (p.timer) clearTimeout(p.timer);
      this.pollers.delete(k);
    }
  }

  private schedule(k: string, p: Poller, delay: number): void {
    p.timer = setTimeout(() => {
      p.timer = null;
      if (this.stopped || this.pollers.get(k) !== p) return;
      p.running = pollOnce(this.d, p.row, this.ctrl.signal)
        .catch((err: unknown) =>
          this.d.log.error({ err, trigger: p.row.ident }, 'SFTP trigger poll failed'),
        )
        .finally(() => {
          p.running = null;
          if (!this.stopped && this.pollers.get(k) === p) this.schedule(k, p, this.intervalMs);
        });
    }, delay);
    p.timer.unref();
  }

  /** Stops polling and waits for the polls under way (they are aborted). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.ctrl.abort(new Error('server stopping'));
    const running: Promise<void>[] = [];
    for (const p of this.pollers.values()) {
      if (p.timer) clearTimeout(p.timer);
      if (p.running) running.push(p.running);
    }
    this.pollers.clear();
    await Promise.allSettled(running);
  }
}
