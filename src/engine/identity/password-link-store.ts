// One-time password links: a random token mailed to the user, stored only as its hash. A link
// works once, until it expires, and only while it is the newest one of its account.
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, isNull, lt } from 'drizzle-orm';
import { type Db, first, tx, tablesOf } from '../db/index.js';

export type LinkPurpose = 'invite' | 'reset';
export type LinkEnd = 'used' | 'replaced' | 'password_set';

export type LinkState =
  | { ok: true; email: string; purpose: LinkPurpose; expires: string }
  | { ok: false; reason: 'unknown' | 'expired' | LinkEnd };

/** Ended or expired links are kept this long (to explain a late click), then deleted. */
const KEEP_MS = 30 * 86_400_000;

const hash = (token: string) => createHash('sha256').update(token).digest('base64url');

/** A new link for `email`; every link still open for it ends as 'replaced'. */
export async function createLink(
  db: Db,
  email: string,
  purpose: LinkPurpose,
  ttlMs: number,
): Promise<{ token: string; expires: Date }> {
  const { passwordLinks } = tablesOf(db);
  const token = randomBytes(32).toString('base64url');
  const now = new Date();
  const expires = new Date(now.getTime() + ttlMs);
  await tx(db, async () => {
    await db
      .delete(passwordLinks)
      .where(lt(passwordLinks.expires, new Date(now.getTime() - KEEP_MS).toISOString()));
    await endLinks(db, email, 'replaced');
    await db.insert(passwordLinks).values({
      idHash: hash(token),
      email,
      purpose,
      created: now.toISOString(),
      expires: expires.toISOString(),
    });
  });
  return { token, expires };
}

export async function readLink(db: Db, token: string): Promise<LinkState> {
  const { passwordLinks } = tablesOf(db);
  const row = await db
    .select()
    .from(passwordLinks)
    .where(eq(passwordLinks.idHash, hash(token)))
    .then(first);
  if (!row) return { ok: false, reason: 'unknown' };
  if (row.ended) return { ok: false, reason: row.ended as LinkEnd };
  if (row.expires <= new Date().toISOString()) return { ok: false, reason: 'expired' };
  return { ok: true, email: row.email, purpose: row.purpose as LinkPurpose, expires: row.expires };
}

/** Marks the link used when it is still good; call inside the transaction that acts on it. */
export async function useLink(db: Db, token: string): Promise<LinkState> {
  const { passwordLinks } = tablesOf(db);
  const state = await readLink(db, token);
  if (!state.ok) return state;
  // Only an open link is used: of two uses at once (on PostgreSQL, perhaps through two
  // processes) the second waits for the first's row and then finds it ended.
  const used = await db
    .update(passwordLinks)
    .set({ ended: 'used', endedAt: new Date().toISOString() })
    .where(and(eq(passwordLinks.idHash, hash(token)), isNull(passwordLinks.ended)))
    .returning({ idHash: passwordLinks.idHash });
  return used.length ? state : readLink(db, token);
}

/** Ends every open link of `email` (a newer link was sent, or the password was set). */
export async function endLinks(db: Db, email: string, reason: LinkEnd): Promise<void> {
  const { passwordLinks } = tablesOf(db);
  await db
    .update(passwordLinks)
    .set({ ended: reason, endedAt: new Date().toISOString() })
    .where(and(eq(passwordLinks.email, email), isNull(passwordLinks.ended)));
}
