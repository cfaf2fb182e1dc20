// Temporary files of writes in progress (a project's tmp/ folder, chunks being received),
// named for the process writing them, so any process on the data directory can tell a live
// write from a leftover of a killed one (kill -9 runs no cleanup):
//
//   <host>+<pid>+<process random>+<random>.<kind>
//
// A leftover is one whose writer is known dead: this process, but no write of it holds the
// file any more; another process of this host whose pid is gone (as start-up recovery judges
// jobs: host names tell machines apart); or, for any writer (another host's, a name without
// a writer), a lease that ran out:
// this process touches the files it writes every minute, so a file untouched for LEASE_MS has
// no live writer. Leftovers are never counted toward storageBytes and the periodic sweep
// removes them (server.ts).
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomId } from '../ids.js';
import { deadOnThisHost, PROCESS_ID } from '../process-id.js';

/** A temporary file untouched this long has no live writer (several missed touches). */
export const LEASE_MS = 5 * 60_000;
const TOUCH_MS = 60_000;

const [HOST, PID, RUN] = PROCESS_ID.split(':') as [string, string, string];
/** The writer part of this process's file names: the host encoded so it holds no '+' or '.'. */
const TAG = `${encodeURIComponent(HOST).replace(/\./g, '%2E')}+${PID}+${RUN}`;

/** Files this process is writing now: whichever engine of the process asks, they are live. */
const live = new Set<string>();
let toucher: NodeJS.Timeout | undefined;

/**
 * A new temporary file name in `dir` (`<prefix><writer>+<random>.<kind>`), held as live
 * until `release`: register before creating it, release after renaming or removing it.
 */
export function holdTemp(
  dir: string,
  kind: string,
  prefix = '',
): { file: string; release: () => void } {
  const file = path.join(dir, `${prefix}${TAG}+${randomId(12)}.${kind}`);
  live.add(file);
  toucher ??= startToucher();
  return {
    file,
    release: () => {
      live.delete(file);
      if (!live.size && toucher) {
        clearInterval(toucher);
        toucher = undefined;
      }
    },
  };
}

/** Renews the lease of every file this process writes (a stalled upload included). */
function startToucher(): NodeJS.Timeout {
  const t = setInterval(() => {
    const now = new Date();
    for (const file of live) void fs.utimes(file, now, now).catch(() => undefined);
  }, TOUCH_MS);
  t.unref();
  return t;
}

/**
 * Whether the temporary entry `file` (named by holdTemp, or an older name without a writer)
 * is a leftover: no live process writes it.
 */
export function abandoned(file: string, mtimeMs: number, now = Date.now()): boolean {
  const writer = writerOf(path.basename(file));
  if (writer === PROCESS_ID) return !live.has(file);
  // Another pid of this host that is gone. Our own pid under another name (a process before
  // a reboot, or a container given the same host name) goes by the lease, to be safe.
  if (writer && writer.split(':')[1] !== String(process.pid) && deadOnThisHost(writer)) return true;
  return mtimeMs < now - LEASE_MS;
}

/** `host:pid:random` of the process that named the file, or null for a name without one. */
function writerOf(name: string): string | null {
  const m = /(?:^|\.)([^.+]+)\+(\d+)\+([^.+]+)\+[^.+]+\.[a-z]+$/.exec(name);
  if (!m) return null;
  let host: string;
  try {
    host = decodeURIComponent(m[1]!);
  } catch {
    return null;
  }
  return `${host}:${m[2]}:${m[3]}`;
}
