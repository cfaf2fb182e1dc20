// Model object storage: every change keeps a revision, and bumps the project's model version
// (so cached query results made under an older model are never served).
import { sameJson } from '../same-json.js';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { type Db, first, prepared, storeOf, tablesOf, type Tables } from '../db/index.js';
import { nowIso } from '../ids.js';

export type ObjectRow = Tables['objects']['$inferSelect'];

export interface ObjectInput {
  ident: string;
  type: string;
  name: string;
  description?: string;
  def: Record<string, unknown>;
  tags?: string[];
  /** Left out: the existing object's ACL stays (loads never touch access). */
  acl?: Array<{ userrole: string; acl: string }>;
}

export type RevisionRow = Tables['objectRevisions']['$inferSelect'];

// Read by every query (which compiled query and stored result are current): built once.
const readVersions = prepared('versions', (db) => {
  const { projects } = tablesOf(db);
  return db
    .select({ dataVersion: projects.dataVersion, modelVersion: projects.modelVersion })
    .from(projects)
    .where(eq(projects.id, sql.placeholder('projectId')))
    .limit(1);
});

export class ModelStore {
  constructor(private readonly db: Db) {}

  async get(projectId: string, ident: string): Promise<ObjectRow | undefined> {
    const { objects } = tablesOf(this.db);
    return this.db
      .select()
      .from(objects)
      .where(and(eq(objects.projectId, projectId), eq(objects.ident, ident)))
      .then(first);
  }

  /** Revisions of an object, newest first. */
  async revisions(projectId: string, ident: string): Promise<RevisionRow[]> {
    const { objectRevisions } = tablesOf(this.db);
    return this.db
      .select()
      .from(objectRevisions)
      .where(and(eq(objectRevisions.projectId, projectId), eq(objectRevisions.ident, ident)))
      .orderBy(desc(objectRevisions.revision));
  }

  async revisionAt(
    projectId: string,
    ident: string,
    revision: number,
  ): Promise<RevisionRow | undefined> {
    const { objectRevisions } = tablesOf(this.db);
    return this.db
      .select()
      .from(objectRevisions)
      .where(
        and(
          eq(objectRevisions.projectId, projectId),
          eq(objectRevisions.ident, ident),
          eq(objectRevisions.revision, revision),
        ),
      )
      .then(first);
  }

  /** The last revision of every object that no longer exists (what it was when deleted). */
  async goneObjects(
    projectId: string,
  ): Promise<Array<{ ident: string; snapshot: Record<string, unknown> }>> {
    const { objectRevisions } = tablesOf(this.db);
    const r = objectRevisions;
    return this.db
      .select({ ident: r.ident, snapshot: r.snapshot })
      .from(r)
      .where(
        and(
          eq(r.projectId, projectId),
          sql`${r.revision} = (select max(m.revision) from object_revisions m where m.project_id = ${r.projectId} and m.ident = ${r.ident})`,
          sql`not exists (select 1 from objects o where o.project_id = ${r.projectId} and o.ident = ${r.ident})`,
        ),
      );
  }

  /** Whether a metadata transaction is open (what is read now may still be rolled back). */
  inTransaction(): boolean {
    return storeOf(this.db).inTx();
  }

  async all(projectId: string): Promise<ObjectRow[]> {
    const { objects } = tablesOf(this.db);
    return this.db
      .select()
      .from(objects)
      .where(eq(objects.projectId, projectId))
      .orderBy(objects.ident);
  }

  async listByType(projectId: string, types: string[]): Promise<ObjectRow[]> {
    const { objects } = tablesOf(this.db);
    return this.db
      .select()
      .from(objects)
      .where(and(eq(objects.projectId, projectId), inArray(objects.type, types)))
      .orderBy(objects.ident);
  }

  /**
   * Creates or updates objects; unchanged ones are left alone (no new revision). Returns how
   * many changed. Call inside the caller's transaction.
   */
  async upsert(projectId: string, inputs: ObjectInput[], user: string): Promise<number> {
    const { objects, objectRevisions } = tablesOf(this.db);
    const now = nowIso();
    let changed = 0;
    for (const o of inputs) {
      const existing = await this.get(projectId, o.ident);
      const description = o.description ?? existing?.description ?? '';
      const tags = o.tags ?? existing?.tags ?? [];
      const acl = o.acl ?? existing?.acl ?? [];
      if (
        existing &&
        existing.type === o.type &&
        existing.name === o.name &&
        existing.description === description &&
        sameJson(existing.def, o.def) &&
        sameJson(existing.tags, tags) &&
        sameJson(existing.acl, acl)
      ) {
        continue;
      }
      // A removed object keeps its history; a re-created one continues its revision numbers.
      const revision =
        Math.max(existing?.revision ?? 0, await this.lastRevision(projectId, o.ident)) + 1;
      const row = {
        projectId,
        ident: o.ident,
        type: o.type,
        name: o.name,
        description,
        def: o.def,
        acl,
        tags,
        revision,
        createdBy: existing?.createdBy ?? user,
        created: existing?.created ?? now,
        updatedBy: user,
        updated: now,
      };
      await this.db
        .insert(objects)
        .values(row)
        .onConflictDoUpdate({ target: [objects.projectId, objects.ident], set: row });
      await this.db
        .insert(objectRevisions)
        .values({ projectId, ident: o.ident, revision, snapshot: snapshot(row), user, time: now });
      changed++;
    }
    if (changed) await this.bumpModelVersion(projectId);
    return changed;
  }

  private async lastRevision(projectId: string, ident: string): Promise<number> {
    const { objectRevisions } = tablesOf(this.db);
    return (
      (
        await this.db
          .select({ n: sql<number>`coalesce(max(${objectRevisions.revision}), 0)`.mapWith(Number) })
          .from(objectRevisions)
          .where(and(eq(objectRevisions.projectId, projectId), eq(objectRevisions.ident, ident)))
          .then(first)
      )?.n ?? 0
    );
  }

  /**
   * Replaces a def in place, without a revision or a new model version: only for rewrites
   * that keep its meaning (start-up migration of saved AQL, aql/saved-refs.ts).
   */
  async rewriteDef(projectId: string, ident: string, def: Record<string, unknown>): Promise<void> {
    const { objects } = tablesOf(this.db);
    await this.db
      .update(objects)
      .set({ def })
      .where(and(eq(objects.projectId, projectId), eq(objects.ident, ident)));
  }

  /** Every project's objects of these types (start-up migrations). */
  async allOfTypes(types: string[]): Promise<ObjectRow[]> {
    const { objects } = tablesOf(this.db);
    return this.db.select().from(objects).where(inArray(objects.type, types));
  }

  async remove(projectId: string, idents: string[]): Promise<number> {
    const { objects } = tablesOf(this.db);
    if (!idents.length) return 0;
    const r = await this.db
      .delete(objects)
      .where(and(eq(objects.projectId, projectId), inArray(objects.ident, idents)))
      .returning({ ident: objects.ident });
    if (r.length) await this.bumpModelVersion(projectId);
    return r.length;
  }

  async bumpModelVersion(projectId: string): Promise<void> {
    const { projects } = tablesOf(this.db);
    await this.db
      .update(projects)
      .set({ modelVersion: sql`${projects.modelVersion} + 1` })
      .where(eq(projects.id, projectId));
  }

  async bumpDataVersion(projectId: string): Promise<number> {
    const { projects } = tablesOf(this.db);
    await this.db
      .update(projects)
      .set({ dataVersion: sql`${projects.dataVersion} + 1` })
      .where(eq(projects.id, projectId));
    return (await this.versions(projectId)).dataVersion;
  }

  async versions(projectId: string): Promise<{ dataVersion: number; modelVersion: number }> {
    const [row] = await readVersions(this.db, { projectId });
    return row ?? { dataVersion: 0, modelVersion: 0 };
  }
}

function snapshot(row: ObjectRow): Record<string, unknown> {
  const { ident, type, name, description, def, acl, tags, revision, updated, updatedBy } = row;
  return { ident, type, name, description, def, acl, tags, revision, updated, updatedBy };
}
