// Names of the cluster-wide locks that transactions take (`tx(db, fn, { lock })`) where a
// check and the write it allows must not interleave with another process's. SQLite runs one
// transaction at a time, so there they cost nothing; on PostgreSQL (READ COMMITTED) a check
// inside a plain transaction does not stop two processes from both passing it.

/** The count of an organization's projects (plan limit "projects"). */
export const projectCountLock = (orgId: string) => `org-projects:${orgId}`;

/** A project's members: the "users" plan limit and "at least one Admin remains". */
export const membersLock = (projectId: string) => `members:${projectId}`;

/** A project's model: unique idents and titles, the "flows" plan limit. */
export const modelLock = (projectId: string) => `model:${projectId}`;

/** A project's chat questions: one at a time per conversation, "aiMessagesPerDay". */
export const aiAskLock = (projectId: string) => `ai-ask:${projectId}`;
