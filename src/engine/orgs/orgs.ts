// Organizations own projects and hold the plan; their administrators may create projects.
import { and, eq } from 'drizzle-orm';
import { type Db, first } from '../db/index.js';
import { organizations, orgAdmins, users } from '../db/tables.js';
import { conflict, invalid, notFound } from '../errors.js';
import { nowIso } from '../ids.js';
import type { Plans } from '../limits/plans.js';

export const ORG_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const EMAIL = /^[^\s@<>"]+@[^\s@<>"]+$/;

export function normalizeEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 254)
    throw invalid(`"${raw}" is not an e-mail address`, { value: raw });
  return email;
}

export class Orgs {
  constructor(
    private readonly db: Db,
    private readonly plans: Plans,
  ) {}

  create(id: string, name: string, plan: string): void {
    if (!ORG_ID.test(id))
      throw invalid(`organization id "${id}" must be lowercase letters, digits, "-" or "_"`);
    if (!this.plans[plan])
      throw invalid(`unknown plan "${plan}"`, { allowed: Object.keys(this.plans) });
    if (this.get(id)) throw conflict(`organization "${id}" already exists`);
    await this.db.insert(organizations).values({ id, name, plan, created: nowIso() });
  }

  get(id: string) {
    return await this.db.select().from(organizations).where(eq(organizations.id, id)).then(first);
  }

  list() {
    return await this.db.select().from(organizations);
  }

  addAdmin(orgId: string, rawEmail: string): void {
    const email = normalizeEmail(rawEmail);
    if (!this.get(orgId)) throw notFound(`organization "${orgId}" does not exist`);
    this.db.$client.transaction(() => {
      await this.db.insert(users).values({ email, created: nowIso() }).onConflictDoNothing();
      await this.db.insert(orgAdmins).values({ orgId, email }).onConflictDoNothing();
    })();
  }

  /** The organizations this user administers (may create projects in), by id. */
  administeredBy(email: string): string[] {
    return await this.db
      .select({ id: orgAdmins.orgId })
      .from(orgAdmins)
      .where(eq(orgAdmins.email, email))
      .orderBy(orgAdmins.orgId)
      .map((r) => r.id);
  }

  isAdmin(orgId: string, email: string): boolean {
    return Boolean(
      await this.db
        .select()
        .from(orgAdmins)
        .where(and(eq(orgAdmins.orgId, orgId), eq(orgAdmins.email, email)))
        .then(first),
    );
  }
}
