// This process, as it is named in rows other processes read (job claims, write locks): host,
// pid and a random part, so a restarted process with the same pid is another name.
import os from 'node:os';
import { randomId } from './ids.js';

export const PROCESS_ID = `${os.hostname()}:${process.pid}:${randomId(6)}`;

/** The process part of an owner name (`host:pid:random`, perhaps followed by more parts). */
export const processOf = (owner: string): string => owner.split(':').slice(0, 3).join(':');

/**
 * Whether the process named `owner` is gone for sure: it ran on this host and its pid is dead,
 * or it is an earlier incarnation inside this very process (a restart in place).
 */
export function deadOnThisHost(owner: string): boolean {
  const [host, pid] = owner.split(':');
  if (host !== os.hostname()) return false;
  // The caller's own runner is not asked about; any other runner of this pid has stopped.
  if (Number(pid) === process.pid) return true;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'EPERM';
  }
}
