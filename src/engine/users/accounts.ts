// User accounts (identities known to this server, keyed by e-mail) and their passwords.
import { eq } from 'drizzle-orm';
import { tx, type Db, first, tablesOf } from '../db/index.js';
import { invalid, notFound } from '../errors.js';
import { nowIso } from '../ids.js';
import { endLinks } from '../identity/password-link-store.js';
import { hashPassword, verifyPassword } from '../identity/passwords.js';
import { endSessionsOf } from '../identity/sessions.js';
import { normalizeEmail } from '../orgs/orgs.js';

export const MIN_PASSWORD_LENGTH = 8;
/** Longer would only make hashing slow; sign-in accepts no more either. */
export const MAX_PASSWORD_LENGTH = 1000;

/** The password policy, the same for every way a password is set (CLI, link, bootstrap). */
export function checkPasswordPolicy(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw invalid(`a password needs at least ${MIN_PASSWORD_LENGTH} characters`, {
      minLength: MIN_PASSWORD_LENGTH,
    });
  if (password.length > MAX_PASSWORD_LENGTH)
    throw invalid(`a password has at most ${MAX_PASSWORD_LENGTH} characters`, {
      maxLength: MAX_PASSWORD_LENGTH,
    });
}

export class Accounts {
  constructor(private readonly db: Db) {}

  async ensure(rawEmail: string): Promise<string> {
    const { users } = tablesOf(this.db);
    const email = normalizeEmail(rawEmail);
    await this.db.insert(users).values({ email, created: nowIso() }).onConflictDoNothing();
    return email;
  }

  async exists(email: string): Promise<boolean> {
    const { users } = tablesOf(this.db);
    return Boolean(
      await this.db
        .select({ e: users.email })
        .from(users)
        .where(eq(users.email, email))
        .then(first),
    );
  }

  async setPassword(rawEmail: string, password: string): Promise<void> {
    const email = normalizeEmail(rawEmail);
    checkPasswordPolicy(password);
    if (!(await this.exists(email)))
      throw notFound(
        `no user "${email}"; invite them to a project or make them an organization admin first`,
      );
    const hash = await hashPassword(password);
    await tx(this.db, async () => this.storeHash(email, hash));
  }

  async hasPassword(email: string): Promise<boolean> {
    const { users } = tablesOf(this.db);
    const row = await this.db
      .select({ hash: users.passwordHash })
      .from(users)
      .where(eq(users.email, email))
      .then(first);
    return Boolean(row?.hash);
  }

  /**
   * Stores a new password hash and closes every way in the old password opened: the
   * account's sessions and its outstanding password links. Call inside a transaction.
   */
  async storeHash(email: string, hash: string): Promise<void> {
    const { users } = tablesOf(this.db);
    await this.db.update(users).set({ passwordHash: hash }).where(eq(users.email, email));
    await endSessionsOf(this.db, email);
    await endLinks(this.db, email, 'password_set');
  }

  /** The e-mail when the password matches, otherwise null (same timing either way). */
  async checkPassword(rawEmail: string, password: string): Promise<string | null> {
    const { users } = tablesOf(this.db);
    let email: string;
    try {
      email = normalizeEmail(rawEmail);
    } catch {
      await verifyPassword(password, null);
      return null;
    }
    const row = await this.db
      .select({ hash: users.passwordHash })
      .from(users)
      .where(eq(users.email, email))
      .then(first);
    return (await verifyPassword(password, row?.hash ?? null)) ? email : null;
  }
}
