// WebDAV dead properties (set with PROPPATCH) in the dav_props table, keyed by storage path.
// They belong to their item: a storage change listener deletes and moves them with it,
// whichever door (REST or WebDAV) deleted or moved the item; ProjectFiles.copy copies them
// with the Depth of the copy. Front doors reach them only through ProjectFiles.
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { storeOf, tx, type Db, tablesOf, type Tables } from '../db/index.js';
import type { Storage } from './storage.js';

/** One dead property. `value` is the property element's own XML, self-contained (it
 * declares every namespace it uses and keeps xml:lang), so it can be echoed verbatim. */
export interface DeadProp {
  ns: string;
  name: string;
  value: string;
}

export type PropOp =
  | { op: 'set'; ns: string; name: string; value: string }
  | { op: 'remove'; ns: string; name: string };

/** Rows of `path` itself and everything below it. */
function tree(davProps: Tables['davProps'], path: string): SQL {
  if (path === '/') return sql`1 = 1`;
  // length() and substr() count characters in SQLite, not UTF-16 units: measure in SQL.
  const prefix = `${path}/`;
  return sql`(${davProps.path} = ${path} or substr(${davProps.path}, 1, length(${prefix})) = ${prefix})`;
}

export class DavProps {
  constructor(private readonly db: Db) {}

  async list(projectId: string, path: string): Promise<DeadProp[]> {
    const { davProps } = tablesOf(this.db);
    return this.db
      .select({ ns: davProps.ns, name: davProps.name, value: davProps.value })
      .from(davProps)
      .where(and(eq(davProps.projectId, projectId), eq(davProps.path, path)));
  }

  /** Applies the operations in document order, all or nothing. */
  async patch(projectId: string, path: string, ops: PropOp[]): Promise<void> {
    const { davProps } = tablesOf(this.db);
    await tx(this.db, async () => {
      for (const o of ops) {
        const key = and(
          eq(davProps.projectId, projectId),
          eq(davProps.path, path),
          eq(davProps.ns, o.ns),
          eq(davProps.name, o.name),
        );
        if (o.op === 'remove') {
          await this.db.delete(davProps).where(key);
        } else {
          await this.db
            .insert(davProps)
            .values({ projectId, path, ns: o.ns, name: o.name, value: o.value })
            .onConflictDoUpdate({
              target: [davProps.projectId, davProps.path, davProps.ns, davProps.name],
              set: { value: o.value },
            });
        }
      }
    });
  }

  async removeTree(projectId: string, path: string): Promise<void> {
    const { davProps } = tablesOf(this.db);
    await this.db
      .delete(davProps)
      .where(and(eq(davProps.projectId, projectId), tree(davProps, path)));
  }

  /** Moves the properties of `from` and below to `to`, replacing whatever `to` had. */
  async moveTree(projectId: string, from: string, to: string): Promise<void> {
    const { davProps } = tablesOf(this.db);
    await tx(this.db, async () => {
      await this.removeTree(projectId, to);
      await this.db
        .update(davProps)
        .set({
          path: sql`cast(${to} as text) || substr(${davProps.path}, ${[...from].length + 1})`,
        })
        .where(and(eq(davProps.projectId, projectId), tree(davProps, from)));
    });
  }

  /** Copies the properties of `from` (and, unless `shallow`, of everything below) to `to`. */
  async copyTree(
    projectId: string,
    from: string,
    to: string,
    opts: { shallow?: boolean } = {},
  ): Promise<void> {
    const { davProps } = tablesOf(this.db);
    await tx(this.db, async () => {
      await this.removeTree(projectId, to);
      const scope = opts.shallow ? eq(davProps.path, from) : tree(davProps, from);
      await storeOf(this.db).run(sql`insert into ${davProps} (project_id, path, ns, name, value)
        select project_id, cast(${to} as text) || substr(path, ${[...from].length + 1}), ns, name, value
        from ${davProps} where ${and(eq(davProps.projectId, projectId), scope)}`);
    });
  }

  /** The dead properties of a store's items, kept attached when it deletes or moves them. */
  static following(db: Db, storage: Storage): DavProps {
    const props = new DavProps(db);
    storage.onChange(async (c) => {
      if (c.kind === 'deleted') await props.removeTree(c.projectId, c.path);
      else if (c.kind === 'moved' && c.from) await props.moveTree(c.projectId, c.from, c.path);
    });
    return props;
  }
}
