// `<dataDir>/server.json`: which process serves this data directory and at which address.
// It keeps a second server off the same directory (its job runner would end the first one's
// jobs as "interrupted"), and lets CLI commands sign tokens for the running server's issuer.
import fs from 'node:fs';
import path from 'node:path';

export interface ServerRecord {
  pid: number;
  siteUrl: string;
  issuer: string;
  audience: string;
  started: string;
}

const file = (dataDir: string) => path.join(dataDir, 'server.json');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readServerRecord(dataDir: string): ServerRecord | null {
  try {
    return JSON.parse(fs.readFileSync(file(dataDir), 'utf8')) as ServerRecord;
  } catch {
    return null;
  }
}

/** Claims the data directory for this process, or throws naming the live owner. */
export function claimDataDir(
  dataDir: string,
  rec: Omit<ServerRecord, 'pid' | 'started'>,
  /** The metadata is on PostgreSQL: processes of a cluster share the directory. */
  shared = false,
): ServerRecord {
  const existing = readServerRecord(dataDir);
  // The same process may restart its server (tests do); a dead owner left a stale record.
  if (existing && existing.pid !== process.pid && alive(existing.pid)) {
    if (shared) return existing;
    throw new Error(
      `another Ursa server (pid ${existing.pid}, ${existing.siteUrl}) is using data directory ${dataDir}`,
    );
  }
  const record: ServerRecord = { pid: process.pid, ...rec, started: new Date().toISOString() };
  fs.mkdirSync(dataDir, { recursive: true });
  const tmp = `${file(dataDir)}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(record, null, 2));
  fs.renameSync(tmp, file(dataDir));
  return record;
}

export function releaseDataDir(dataDir: string): void {
  if (readServerRecord(dataDir)?.pid === process.pid) fs.rmSync(file(dataDir), { force: true });
}
