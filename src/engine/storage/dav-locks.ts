// The WebDAV lock records of every project, in the metadata: a lock taken through one process
// of a cluster holds on every other. The protocol's rules (which lock covers which path, what
// conflicts, which tokens a write needs) stay with the WebDAV door (src/webdav/locks.ts);
// this keeps the records, and takes a new lock only while its conflict check still holds.
import { and, eq, gt, lte } from 'drizzle-orm';
import { type Db, tx, tablesOf, type Tables } from '../db/index.js';

export interface DavLockRecord {
  token: string;
  root: string;
  href: string;
  depth: '0' | 'infinity';
  scope: 'exclusive' | 'shared';
  owner: string;
  principal: string;
  timeoutSeconds: number;
  expires: number;
}

type Row = Tables['davLocks']['$inferSelect'];
const toRecord = (r: Row): DavLockRecord => ({
  token: r.token,
  root: r.root,
  href: r.href,
  depth: r.depth as DavLockRecord['depth'],
  scope: r.scope as DavLockRecord['scope'],
  owner: r.owner,
  principal: r.principal,
  timeoutSeconds: r.timeoutSeconds,
  expires: r.expires,
});

export class DavLockStore {
  constructor(private readonly db: Db) {}

  /** The project's locks that have not expired (expired ones are deleted on the way). */
  async live(projectId: string): Promise<DavLockRecord[]> {
    const { davLocks } = tablesOf(this.db);
    const now = Date.now();
    const rows = await this.db
      .select()
      .from(davLocks)
      .where(and(eq(davLocks.projectId, projectId), gt(davLocks.expires, now)));
    return rows.map(toRecord);
  }

  /**
   * Records `lock` unless `check` (given the live locks, read under the project's lock) throws:
   * two processes taking conflicting locks at once cannot both succeed.
   */
  async create(
    projectId: string,
    lock: DavLockRecord,
    check: (live: DavLockRecord[]) => void,
  ): Promise<void> {
    const { davLocks } = tablesOf(this.db);
    await tx(
      this.db,
      async () => {
        await this.db
          .delete(davLocks)
          .where(and(eq(davLocks.projectId, projectId), lte(davLocks.expires, Date.now())));
        check(await this.live(projectId));
        await this.db.insert(davLocks).values({ ...lock, projectId });
      },
      { lock: [`dav:${projectId}`] },
    );
  }

  async refresh(token: string, timeoutSeconds: number, expires: number): Promise<void> {
    const { davLocks } = tablesOf(this.db);
    await this.db
      .update(davLocks)
      .set({ timeoutSeconds, expires })
      .where(eq(davLocks.token, token));
  }

  async remove(tokens: string[]): Promise<void> {
    const { davLocks } = tablesOf(this.db);
    for (const token of tokens) await this.db.delete(davLocks).where(eq(davLocks.token, token));
  }
}
