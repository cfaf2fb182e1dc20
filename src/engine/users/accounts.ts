// User accounts (identities known to this server, keyed by e-mail) and their passwords.
import { eq } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { users } from '../db/schema.js';
import { invalid, notFound } from '../errors.js';
import { nowIso } from '../ids.js';
import { hashPassword, verifyPassword } from '../identity/passwords.js';
import { normalizeEmail } from '../orgs/orgs.js';

export const MIN_PASSWORD_LENGTH = 8;

export class Accounts {
  constructor(private readonly db: Db) {}

  ensure(rawEmail: string): string {
    const email = normalizeEmail(rawEmail);
    this.db.insert(users).values({ email, created: nowIso() }).onConflictDoNothing().run();
    return email;
  }

  exists(email: string): boolean {
    return Boolean(
      this.db.select({ e: users.email }).from(users).where(eq(users.email, email)).get(),
    );
  }

  async setPassword(rawEmail: string, password: string): Promise<void> {
    const email = normalizeEmail(rawEmail);
    if (password.length < MIN_PASSWORD_LENGTH) {
      throw invalid(`a password needs at least ${MIN_PASSWORD_LENGTH} characters`);
    }
    if (!this.exists(email))
      throw notFound(
        `no user "${email}"; invite them to a project or make them an organization admin first`,
      );
    const hash = await hashPassword(password);
    this.db.update(users).set({ passwordHash: hash }).where(eq(users.email, email)).run();
  }

  /** The e-mail when the password matches, otherwise null (same timing either way). */
  async checkPassword(rawEmail: string, password: string): Promise<string | null> {
    let email: string;
    try {
      email = normalizeEmail(rawEmail);
    } catch {
      await verifyPassword(password, null);
      return null;
    }
    const row = this.db
      .select({ hash: users.passwordHash })
      .from(users)
      .where(eq(users.email, email))
      .get();
    return (await verifyPassword(password, row?.hash ?? null)) ? email : null;
  }
}
