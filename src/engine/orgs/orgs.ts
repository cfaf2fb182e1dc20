// Organizations own projects and hold the plan; their administrators may create projects.
import { and, eq } from 'drizzle-orm';
import { type Db, first, tx, tablesOf } from '../db/index.js';
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

  async create(id: string, name: string, plan: string): Promise<void> {
    const { organizations } = tablesOf(this.db);
    if (!ORG_ID.test(id))
      throw invalid(`organization id "${id}" must be lowercase letters, digits, "-" or "_"`);
    if (!this.plans[plan])
      throw invalid(`unknown plan "${plan}"`, { allowed: Object.keys(this.plans) });
    if (await this.get(id)) throw conflict(`organization "${id}" already exists`);
    await this.db.insert(organizations).values({ id, name, plan, created: nowIso() });
  }

  async get(id: string) {
    const { organizations } = tablesOf(this.db);
    return this.db.select().from(organizations).where(eq(organizations.id, id)).then(first);
  }

  async list() {
    const { organizations } = tablesOf(this.db);
    return this.db.select().from(organizations);
  }

  async addAdmin(orgId: string, rawEmail: string): Promise<void> {
    const { users, orgAdmins } = tablesOf(this.db);
    const email = normalizeEmail(rawEmail);
    if (!(await this.get(orgId))) throw notFound(`organization "${orgId}" does not exist`);
    await tx(this.db, async () => {
      await this.db.insert(users).values({ email, created: nowIso() }).onConflictDoNothing();
      await this.db.insert(orgAdmins).values({ orgId, email }).onConflictDoNothing();
    });
  }

  /** The organizations this user administers (may create projects in), by id. */
  async administeredBy(email: string): Promise<string[]> {
    const { orgAdmins } = tablesOf(this.db);
    return (
      await this.db
        .select({ id: orgAdmins.orgId })
        .from(orgAdmins)
        .where(eq(orgAdmins.email, email))
        .orderBy(orgAdmins.orgId)
    ).map((r) => r.id);
  }

  async isAdmin(orgId: string, email: string): Promise<boolean> {
    const { orgAdmins } = tablesOf(this.db);
    return Boolean(
      await this.db
        .select()
        .from(orgAdmins)
        .where(and(eq(orgAdmins.orgId, orgId), eq(orgAdmins.email, email)))
        .then(first),
    );
  }
}
