// Warehouse projects (SCALE.md "Data where it already lives"): a project bound to a schema of
// a PostgreSQL database through a credentials object of kind postgres. The binding is checked
// when saved; its tables and views are mapped as datasets (model objects only, nothing is
// copied); AQL compiles for PostgreSQL (aql/dialect) and runs there on read-only connections.
import { eq } from 'drizzle-orm';
import { requireLevel, type ProjectActor } from '../access/actor.js';
import { POSTGRES } from '../aql/dialect/postgres.js';
import type { Relations, SqlTarget } from '../aql/dialect/dialect.js';
import { formatCell } from '../aql/format.js';
import { type Db, first, tablesOf } from '../db/index.js';
import { type WarehouseBinding } from '../db/tables.js';
import { EngineError, forbidden, invalid, notFound } from '../errors.js';
import type { Credentials } from '../flows/connectors/types.js';
import type { ModelScope } from '../model/scope.js';
import {
  guessTable,
  listTables,
  relationSql,
  quoteIdent,
  type TableGuess,
  type WarehouseTable,
} from './catalog.js';
import {
  credentialsKey,
  ServerSet,
  WarehouseError,
  type ConnectionSettings,
} from './connection.js';
import { countRows, EXACT_UP_TO } from './row-counts.js';

export type { WarehouseBinding };

/** A dataset mapped from a warehouse table records this source: `table:<schema>.<table>`. */
export const TABLE_SOURCE = 'table:';
/**
 * A dataset loaded into the warehouse (a file, a flow output) records `loaded:<schema>.<table>`:
 * a table Ursa created, whose columns are named by the prescription's column ids.
 */
export const LOADED_SOURCE = 'loaded:';

export const tableSource = (schema: string, table: string) => `${TABLE_SOURCE}${schema}.${table}`;
export const loadedSource = (schema: string, table: string) => `${LOADED_SOURCE}${schema}.${table}`;

/** `schema.table` of a mapped or loaded dataset's source, split at the first dot. */
export function sourceTable(
  source: string | null,
): { schema: string; table: string; loaded: boolean } | null {
  const prefix = [TABLE_SOURCE, LOADED_SOURCE].find((x) => source?.startsWith(x));
  if (!source || !prefix) return null;
  const rest = source.slice(prefix.length);
  const dot = rest.indexOf('.');
  return dot < 0
    ? null
    : {
        schema: rest.slice(0, dot),
        table: rest.slice(dot + 1),
        loaded: prefix === LOADED_SOURCE,
      };
}

export interface WarehouseDeps {
  db: Db;
  /** The caller's view of the model (the credentials object must be readable to them). */
  scope: (a: ProjectActor) => Promise<ModelScope>;
  /** A credentials object with its secret, read with the rights of who last wrote it. */
  credentials: (projectId: string, ident: string) => Promise<Credentials | null>;
  /** The model changed meaning (a binding): compiled queries and cached results are stale. */
  bumpModelVersion: (projectId: string) => Promise<void>;
  /** Each dataset's source (`table:…` when mapped from the warehouse). */
  datasetSources: (projectId: string) => Promise<{ name: string; source: string | null }[]>;
  settings: ConnectionSettings;
  /** How long a cached result of a warehouse project is served (URSA_WAREHOUSE_CACHE_SECONDS). */
  cacheMs: number;
}

/** A warehouse error while reading the catalog: a 400 with PostgreSQL's reason, never a 500. */
const catalogError =
  (what: string) =>
  (err: unknown): never => {
    if (err instanceof WarehouseError)
      throw invalid(`the warehouse (PostgreSQL) could not answer ${what}: ${err.message}`);
    throw err;
  };

/**
 * The 403 for a caller with a row-level filter who would read a warehouse table raw: a
 * structure guess (its sample rows) or a mapping (a new dataset over the table, which their
 * filter would not reach). Their filter is an AQL condition on the model, often restricting
 * a dataset only through another one it references; it cannot be applied to a table's raw
 * rows, and a table or view of the schema may hold the same rows as one the filter restricts
 * (mapping `shop.orders` again as a second dataset would show every order). So they are
 * refused, as every read shows only the rows the filter selects; a member without a row
 * filter maps and guesses.
 */
export const rowFilterRefusal = (a: ProjectActor, ident: string, what: 'guess' | 'map') =>
  forbidden(
    what === 'guess'
      ? `${ident}: a structure guess shows the table's rows as they are in PostgreSQL, where your row-level filter (a condition on the model) cannot be applied; a member without a row-level filter may read it`
      : `${ident}: mapping the table would make a dataset of its rows as they are in PostgreSQL, which your row-level filter (a condition on the model) would not reach; a member without a row-level filter must map it`,
    { project: a.projectId, table: ident, field: 'filter' },
  );

export class Warehouse {
  /** Open servers per credentials key (a changed secret or host opens new ones). */
  private sets = new Map<string, ServerSet>();

  constructor(private readonly deps: WarehouseDeps) {}

  get cacheMs(): number {
    return this.deps.cacheMs;
  }

  async binding(projectId: string): Promise<WarehouseBinding | null> {
    const { projects } = tablesOf(this.deps.db);
    const row = await this.deps.db
      .select({ warehouse: projects.warehouse })
      .from(projects)
      .where(eq(projects.id, projectId))
      .then(first);
    return row?.warehouse ?? null;
  }

  /**
   * Checks a binding before it is saved, as `a` (an Admin): the credentials object exists,
   * they can read it, it is of kind postgres; the server answers the login; the schema
   * exists and the role may use it and read its tables. Each failure is a 400 saying which.
   */
  async check(a: ProjectActor, b: WarehouseBinding | null): Promise<void> {
    const field = (f: string) => ({ field: `warehouse.${f}` });
    // Datasets loaded into the embedded engine cannot be read from a warehouse, nor mapped
    // tables without one.
    const sources = await this.deps.datasetSources(a.projectId);
    const wrong = sources.filter((d) => (sourceTable(d.source) === null) === (b !== null));
    if (wrong.length)
      throw invalid(
        b
          ? `the project holds loaded datasets (${wrong.map((d) => d.name).join(', ')}); bind a new project to the warehouse`
          : `the project's datasets are mapped warehouse tables (${wrong.map((d) => d.name).join(', ')}); it stays bound to a warehouse`,
        field(b ? 'credentials' : ''),
      );
    if (!b) return;
    const row = (await this.deps.scope(a)).get(b.credentials);
    if (!row || row.type !== 'credentials')
      throw invalid(
        `credentials "${b.credentials}" do not exist or are not readable by ${a.email}`,
        field('credentials'),
      );
    if ((row.def as { kind?: string }).kind !== 'postgres')
      throw invalid(
        `credentials "${b.credentials}" are of kind "${String((row.def as { kind?: string }).kind)}"; a warehouse needs kind "postgres"`,
        field('credentials'),
      );
    const cred = await this.deps.credentials(a.projectId, b.credentials);
    if (!cred) throw invalid(`credentials "${b.credentials}" cannot be read`, field('credentials'));
    const set = new ServerSet(cred, this.deps.settings);
    try {
      const fail = (why: string, f = 'schema') =>
        invalid(`the warehouse binding was not saved: ${why}`, field(f));
      let r;
      try {
        r = await set.primary.query(
          `SELECT n.nspname IS NOT NULL, coalesce(has_schema_privilege(n.oid, 'USAGE'), false),
                  (SELECT count(*) FROM pg_class c WHERE c.relnamespace = n.oid
                      AND c.relkind IN ('r', 'p', 'v', 'm', 'f')),
                  (SELECT count(*) FROM pg_class c WHERE c.relnamespace = n.oid
                      AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
                      AND has_table_privilege(c.oid, 'SELECT')),
                  current_user
             FROM (SELECT 1) one LEFT JOIN pg_namespace n ON n.nspname = $1::text`,
          [b.schema],
        );
      } catch (err) {
        if (err instanceof WarehouseError)
          throw fail(`could not connect to ${set.primary.where}: ${err.message}`, 'credentials');
        throw err;
      }
      const [exists, usage, tables, readable, user] = r.rows[0]!;
      if (!exists) throw fail(`schema "${b.schema}" does not exist on ${set.primary.where}`);
      if (!usage) throw fail(`role "${String(user)}" may not use schema "${b.schema}"`);
      if (Number(tables) > 0 && Number(readable) === 0)
        throw fail(`role "${String(user)}" may not read any table of schema "${b.schema}"`);
      // A replica may be down now (reads then go to the primary), but one the network rules
      // refuse would never be read: refused now, as the primary is.
      for (const [i, replica] of set.replicas.entries()) {
        try {
          await replica.allowed();
        } catch (err) {
          if (err instanceof WarehouseError)
            throw fail(`a replica is refused: ${err.message}`, `replicas.${i}`);
          throw err;
        }
      }
    } finally {
      await set.close();
    }
  }

  /**
   * What kodiak/dataload says of a warehouse project: its data is read in place, so cached
   * answers expire after `resultsExpireSeconds`; null for an embedded project.
   */
  async status(projectId: string): Promise<{
    schema: string;
    resultsExpireSeconds: number;
    rowsExactUpTo: number;
    note: string;
  } | null> {
    const b = await this.binding(projectId);
    if (!b) return null;
    const expire = Math.round(this.cacheMs / 1000);
    return {
      schema: b.schema,
      resultsExpireSeconds: expire,
      rowsExactUpTo: EXACT_UP_TO,
      note: `the data is read in place from PostgreSQL schema "${b.schema}" and changes outside Ursa: a cached answer is served for at most ${expire} s; rows are counted when a table holds up to ${EXACT_UP_TO} rows, else they are PostgreSQL's estimate (rowsEstimated: true)`,
    };
  }

  /** After a binding changed: connections are reopened, compiled queries recompiled. */
  async changed(projectId: string): Promise<void> {
    await this.deps.bumpModelVersion(projectId);
  }

  /** The bound project's servers; 400 when it is not a warehouse project. */
  async servers(projectId: string): Promise<{ b: WarehouseBinding; set: ServerSet }> {
    const b = await this.binding(projectId);
    if (!b)
      throw invalid(
        `project "${projectId}" is not a warehouse project; bind it with PUT /projects/${projectId} { "warehouse": { "credentials", "schema" } }`,
      );
    const cred = await this.deps.credentials(projectId, b.credentials);
    if (!cred)
      throw invalid(
        `the warehouse credentials "${b.credentials}" are gone or their author lost MD Admin rights; bind the project again`,
        { field: 'warehouse.credentials' },
      );
    const key = credentialsKey(cred);
    let set = this.sets.get(key);
    if (!set) {
      set = new ServerSet(cred, this.deps.settings);
      this.sets.set(key, set);
    }
    return { b, set };
  }

  /** What AQL of a warehouse project compiles for: PostgreSQL, the mapped tables' names. */
  target(datasets: { name: string; source: string | null; prescription: unknown }[]): SqlTarget {
    const tables = new Map<string, string>();
    const columns = new Map<string, Map<string, string>>();
    for (const d of datasets) {
      const t = sourceTable(d.source);
      if (t) tables.set(d.name, relationSql(t.schema, t.table));
      const cols = (d.prescription as { columns?: { id: string; originalheader: string }[] })
        .columns;
      // A mapped table's column is named as in the table; a loaded one's by its id.
      const name = (c: { id: string; originalheader: string }) =>
        t?.loaded ? c.id : c.originalheader || c.id;
      columns.set(d.name, new Map((cols ?? []).map((c) => [c.id, name(c)])));
    }
    const relations: Relations = {
      table: (dataset) => tables.get(dataset) ?? quoteIdent(dataset),
      column: (dataset, column) => quoteIdent(columns.get(dataset)?.get(column) ?? column),
    };
    return { dialect: POSTGRES, relations };
  }

  /** Runs a compiled query on a replica (or the primary): its columns, cells as result text. */
  async answer(
    projectId: string,
    sql: string,
    params: unknown[],
    signal?: AbortSignal,
  ): Promise<{ columns: string[]; rows: string[][] }> {
    const { set } = await this.servers(projectId);
    const r = await set.read(sql, params, signal);
    return { columns: r.fields.map((f) => f.name), rows: r.rows.map((row) => row.map(formatCell)) };
  }

  /** The cells of answer(). */
  async read(
    projectId: string,
    sql: string,
    params: unknown[],
    signal?: AbortSignal,
  ): Promise<string[][]> {
    return (await this.answer(projectId, sql, params, signal)).rows;
  }

  /**
   * The tables and views of the bound schema (MD Admin: the catalog is what mapping reads),
   * each with the dataset it is mapped as, or null.
   */
  async tables(a: ProjectActor): Promise<(WarehouseTable & { mapped: string | null })[]> {
    requireLevel(a, 'mdadmin');
    const { b, set } = await this.servers(a.projectId);
    const mapped = new Map<string, string>();
    for (const d of await this.deps.datasetSources(a.projectId)) {
      const t = sourceTable(d.source);
      if (t) mapped.set(`${t.schema}.${t.table}`, d.name);
    }
    const tables = await listTables(set.primary, b.schema).catch(
      catalogError(`listing schema "${b.schema}"`),
    );
    return tables.map((t) => ({
      ...t,
      mapped: mapped.get(t.ident) ?? null,
    }));
  }

  /** `schema.table` of a table named with or without its schema (the bound one). */
  async qualify(projectId: string, ident: string): Promise<string> {
    if (ident.includes('.')) return ident;
    const b = await this.binding(projectId);
    return b ? `${b.schema}.${ident}` : ident;
  }

  /**
   * The structure guess of `schema.table` (the bound schema only); 404 when there is none.
   * With `sample` (data/guesstable) it holds the table's first rows, which a caller with a
   * row-level filter may not see (rowFilterRefusal); mapping reads the catalog only (and
   * refuses such a caller itself).
   */
  async guess(
    a: ProjectActor,
    ident: string,
    mapped: ReadonlyMap<string, string> = new Map(),
    { sample = true }: { sample?: boolean } = {},
  ): Promise<TableGuess> {
    requireLevel(a, 'mdadmin');
    if (sample && a.filter) throw rowFilterRefusal(a, ident, 'guess');
    const { b, set } = await this.servers(a.projectId);
    const dot = ident.indexOf('.');
    const [schema, table] =
      dot < 0 ? [b.schema, ident] : [ident.slice(0, dot), ident.slice(dot + 1)];
    if (schema !== b.schema)
      throw invalid(
        `"${ident}" is not in schema "${b.schema}", the schema this project is bound to`,
        { field: 'table', value: ident },
      );
    const g = await guessTable(set.primary, schema, table, mapped, sample).catch(
      catalogError(`reading ${schema}.${table}`),
    );
    if (!g) throw notFound(`no table or view "${table}" in schema "${schema}"`, { id: ident });
    return g;
  }

  /** A table's rows: counted when small, else PostgreSQL's estimate (row-counts.ts). */
  async estimatedRows(projectId: string, schema: string, table: string): Promise<number> {
    const { set } = await this.servers(projectId);
    return (await countRows(set.primary, schema, table)).rows;
  }

  /**
   * kodiak/dataload of a warehouse project: each mapped dataset's rows as PostgreSQL has them
   * now, with `rowsEstimated` (the data changes outside Ursa, so the count at mapping time
   * would go stale). Hidden rows (null, under a row filter) stay hidden; a warehouse that
   * cannot answer leaves the rows last recorded, marked estimated. Embedded: unchanged.
   */
  async withLiveRows<D extends { name: string; source: string | null; rows: number | null }>(
    projectId: string,
    datasets: D[],
  ): Promise<(D & { rowsEstimated?: boolean })[]> {
    if (!(await this.binding(projectId))) return datasets;
    const out: (D & { rowsEstimated?: boolean })[] = [];
    // Once the server cannot be reached, the other tables are not tried (each would wait).
    let unreachable = false;
    for (const d of datasets) {
      const t = sourceTable(d.source);
      if (!t || d.rows === null) {
        out.push(d);
        continue;
      }
      try {
        if (unreachable) throw new WarehouseError('unreachable', 'connect');
        const { set } = await this.servers(projectId);
        const c = await countRows(set.primary, t.schema, t.table);
        out.push({ ...d, rows: c.rows, rowsEstimated: c.estimated });
      } catch (err) {
        if (!(err instanceof WarehouseError) && !(err instanceof EngineError)) throw err;
        unreachable ||= err instanceof EngineError || err.phase === 'connect';
        out.push({ ...d, rowsEstimated: true });
      }
    }
    return out;
  }

  async closeAll(): Promise<void> {
    const sets = [...this.sets.values()];
    this.sets.clear();
    await Promise.all(sets.map((s) => s.close()));
  }
}

export { WarehouseError };
