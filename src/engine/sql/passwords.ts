// How a member connects over the SQL API, and their own SQL password: BI tools keep a
// connection's password for months, which an API token (short-lived) cannot be. An Admin allows
// SQL passwords per project; a member then creates one (shown once, stored hashed) and may
// replace or delete it. Turning the permission off deletes every member's password.
import crypto from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { ProjectActor } from '../access/actor.js';
import { first, tablesOf, tx, type Db } from '../db/index.js';
import { forbidden } from '../errors.js';
import { hashPassword, verifyPassword } from '../identity/passwords.js';
import { normalizeEmail } from '../orgs/orgs.js';

export interface SqlConnection {
  /** Whether this server listens for PostgreSQL clients (URSA_SQL_PORT). */
  enabled: boolean;
  host: string;
  port: number | null;
  database: string;
  user: string;
  tls: boolean;
  passwords: { allowed: boolean; set: boolean };
}

export interface SqlPasswordDeps {
  db: Db;
  siteUrl: () => string;
  /** The port clients reach (a balancer's, else the listener's), or null when off. */
  port: () => number | null;
  tls: boolean;
  activity: {
    record(
      projectId: string,
      type: 'user_action',
      e: { user: string; message: string; detail: Record<string, unknown> },
    ): Promise<void>;
  };
}

export class SqlPasswords {
  constructor(private readonly d: SqlPasswordDeps) {}

  /** What a member types into a client to connect to this project. */
  async connection(a: ProjectActor): Promise<SqlConnection> {
    const row = await this.row(a.projectId, a.email);
    const port = this.d.port();
    return {
      enabled: port !== null,
      host: new URL(this.d.siteUrl()).hostname,
      port,
      database: a.projectId,
      user: a.email,
      tls: this.d.tls,
      passwords: { allowed: row?.allowed ?? false, set: Boolean(row?.hash) },
    };
  }

  /** A new SQL password for the member (replacing theirs); returned once, stored hashed. */
  async create(a: ProjectActor): Promise<string> {
    const row = await this.row(a.projectId, a.email);
    if (!row?.allowed)
      throw forbidden(
        'SQL passwords are not allowed in this project: an Admin can allow them (PUT /projects/{project} { sqlPasswords: true }); meanwhile use an API token as the password',
      );
    const password = crypto.randomBytes(24).toString('base64url');
    const hash = await hashPassword(password);
    await this.save(a, hash, 'SQL password created');
    return password;
  }

  async remove(a: ProjectActor): Promise<void> {
    await this.save(a, null, 'SQL password deleted');
  }

  /** Whether `password` is the member's SQL password in the project (and still allowed). */
  async check(projectId: string, email: string, password: string): Promise<boolean> {
    const row = await this.row(projectId, normalizeEmail(email));
    return Boolean(row?.allowed && row.hash && (await verifyPassword(password, row.hash)));
  }

  private async save(a: ProjectActor, hash: string | null, message: string): Promise<void> {
    const { projectUsers } = tablesOf(this.d.db);
    await tx(this.d.db, async () => {
      await this.d.db
        .update(projectUsers)
        .set({ sqlPasswordHash: hash })
        .where(and(eq(projectUsers.projectId, a.projectId), eq(projectUsers.email, a.email)));
      await this.d.activity.record(a.projectId, 'user_action', {
        user: a.email,
        message,
        detail: { action: hash ? 'sql_password_create' : 'sql_password_delete' },
      });
    });
  }

  private async row(projectId: string, email: string) {
    const { projects, projectUsers } = tablesOf(this.d.db);
    return this.d.db
      .select({ allowed: projects.sqlPasswords, hash: projectUsers.sqlPasswordHash })
      .from(projectUsers)
      .innerJoin(projects, eq(projects.id, projectUsers.projectId))
      .where(and(eq(projectUsers.projectId, projectId), eq(projectUsers.email, email)))
      .then(first);
  }
}
