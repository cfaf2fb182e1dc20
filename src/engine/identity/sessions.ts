// Browser sessions: a random cookie value, stored only as its hash, with an expiry.
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, lt } from 'drizzle-orm';
import { first, type Db, tablesOf, sqlOf } from '../db/index.js';

const hash = (id: string) => createHash('sha256').update(id).digest('base64url');

export async function createSession(
  db: Db,
  email: string,
  ttlSeconds: number,
): Promise<{ id: string; expires: Date }> {
  const { sessions } = tablesOf(db);
  const id = randomBytes(32).toString('base64url');
  const now = new Date();
  const expires = new Date(now.getTime() + ttlSeconds * 1000);
  await db.delete(sessions).where(lt(sessions.expires, now.toISOString()));
  await db.insert(sessions).values({
    idHash: hash(id),
    email,
    created: now.toISOString(),
    expires: expires.toISOString(),
  });
  return { id, expires };
}

export async function sessionEmail(db: Db, id: string): Promise<string | null> {
  const { sessions } = tablesOf(db);
  const row = await db
    .select({ email: sessions.email })
    .from(sessions)
    .where(and(eq(sessions.idHash, hash(id)), gt(sessions.expires, new Date().toISOString())))
    .limit(1)
    .then(first);
  return row?.email ?? null;
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  const { sessions } = tablesOf(db);
  await db.delete(sessions).where(eq(sessions.idHash, hash(id)));
}

/**
 * Ends every sign-in of `email`: browser sessions and the OAuth server's sign-in sessions
 * (rows of kind `Session` whose payload names the account). Used when the password changes.
 */
export async function endSessionsOf(db: Db, email: string): Promise<void> {
  const { sessions, oidcModels } = tablesOf(db);
  const { jsonText } = sqlOf(db);
  await db.delete(sessions).where(eq(sessions.email, email));
  await db
    .delete(oidcModels)
    .where(
      and(eq(oidcModels.kind, 'Session'), eq(jsonText(oidcModels.payload, 'accountId'), email)),
    );
}
