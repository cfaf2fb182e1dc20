// Revoked access tokens. Our access tokens are JWTs checked by signature alone, so revoking one
// (by its `jti`) or a whole OAuth grant (every token carrying its `gid`) is recorded in the
// metadata database, which the verifier consults on every request: every server process
// refuses the token from the next request on.
import { lt, sql } from 'drizzle-orm';
import type { JWTPayload } from 'jose';
import { prepared, type Db, tablesOf, type Tables } from '../db/index.js';

/** The claim of our OAuth access tokens naming the grant they were issued under. */
export const GRANT_CLAIM = 'gid';

const SWEEP_EVERY_MS = 60_000;

// On every authenticated request: two primary-key probes in one statement that always returns
// one row. SQLite ran `(kind, id) IN (VALUES …)` through an ephemeral table (about 19 µs) and
// the equivalent OR as two merged index scans; EXISTS … OR EXISTS … is two seeks (about 2 µs).
const probe = (t: Tables['tokenRevocations'], kind: 'jti' | 'grant') =>
  sql`exists (select 1 from ${t} where ${t.kind} = ${sql.raw(`'${kind}'`)} and ${t.id} = ${sql.placeholder(kind === 'jti' ? 'jti' : 'gid')})`;
const lookup = prepared('revoked', (db) => {
  const { tokenRevocations: t } = tablesOf(db);
  return db
    .select({ hit: sql<boolean | number>`(${probe(t, 'jti')} or ${probe(t, 'grant')})` })
    .from(sql`(select 1) as one`);
});

export class Revocations {
  private lastSweep = 0;

  /** `grantTokenTtlSeconds`: the longest an access token of a grant lives. */
  constructor(
    private readonly db: Db,
    private readonly grantTokenTtlSeconds: number,
  ) {}

  /** One access token, until it would have expired anyway (`exp`, epoch seconds). */
  async revokeToken(jti: string, exp: number): Promise<void> {
    await this.record('jti', jti, new Date(exp * 1000));
  }

  /** Every access token issued under an OAuth grant (its refresh tokens die with the grant). */
  async revokeGrant(grantId: string): Promise<void> {
    // Kept a day past the longest token lifetime: a changed setting must not revive tokens.
    await this.record(
      'grant',
      grantId,
      new Date(Date.now() + (this.grantTokenTtlSeconds + 86_400) * 1000),
    );
  }

  /** True when the token itself or its grant was revoked. */
  async isRevoked(claims: JWTPayload): Promise<boolean> {
    const jti = typeof claims.jti === 'string' ? claims.jti : null;
    const gid = typeof claims[GRANT_CLAIM] === 'string' ? (claims[GRANT_CLAIM] as string) : null;
    if (!jti && !gid) return false;
    const [row] = await lookup(this.db, { jti: jti ?? '', gid: gid ?? '' });
    // PostgreSQL answers a boolean, SQLite 1 or 0.
    return Boolean(row?.hit);
  }

  private async record(kind: 'jti' | 'grant', id: string, expires: Date): Promise<void> {
    const { tokenRevocations } = tablesOf(this.db);
    const now = new Date();
    if (now.getTime() - this.lastSweep >= SWEEP_EVERY_MS) {
      this.lastSweep = now.getTime();
      await this.db
        .delete(tokenRevocations)
        .where(lt(tokenRevocations.expiresAt, now.toISOString()));
    }
    await this.db
      .insert(tokenRevocations)
      .values({ kind, id, revoked: now.toISOString(), expiresAt: expires.toISOString() })
      .onConflictDoNothing();
  }
}
