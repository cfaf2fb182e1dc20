// What clients ask about the schema (pg_catalog, information_schema) is answered by an
// in-memory DuckDB holding the member's model as empty tables: its own pg_catalog and
// information_schema views then describe exactly what the member may read, with comments as
// descriptions. One small database per distinct schema (a member's visibility of a project
// at a model version), kept while in use; never a data table — a catalog query reads no rows.
import { createHash } from 'node:crypto';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { LRUCache } from 'lru-cache';
import { notSupported, SqlError } from './errors.js';
import type { LocalResult } from './local.js';
import type { SqlSchema } from './schema.js';

type Node = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CATALOG_SCHEMAS = new Set(['pg_catalog', 'information_schema']);

const DUCK_TYPE: Record<string, string> = {
  string: 'VARCHAR',
  integer: 'BIGINT',
  number: 'DOUBLE',
  date: 'DATE',
  datetime: 'TIMESTAMP',
  boolean: 'BOOLEAN',
};

/** PostgreSQL's functions clients call that DuckDB lacks, as macros. */
const MACROS = [
  "CREATE MACRO pg_get_userbyid(id) AS 'ursa'",
  "CREATE MACRO pg_encoding_to_char(e) AS 'UTF8'",
  'CREATE MACRO has_table_privilege(a, b) AS true',
  'CREATE MACRO has_schema_privilege(a, b) AS true',
  'CREATE MACRO has_database_privilege(a, b) AS true',
];

const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** Whether a statement reads the catalog (only): pg_catalog's or information_schema's tables. */
export function catalogStatement(stmt: Node): boolean {
  const rels: { schema?: string; name: string }[] = [];
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) n.forEach(walk);
    else if (n && typeof n === 'object') {
      const o = n as Node;
      if (o.RangeVar) rels.push({ schema: o.RangeVar.schemaname, name: o.RangeVar.relname });
      for (const v of Object.values(o)) walk(v);
    }
  };
  walk(stmt);
  const isCatalog = (r: { schema?: string; name: string }) =>
    r.schema ? CATALOG_SCHEMAS.has(r.schema.toLowerCase()) : /^pg_/i.test(r.name);
  const catalog = rels.filter(isCatalog);
  if (!catalog.length) return false;
  if (catalog.length !== rels.length)
    throw notSupported(
      'a query over both the catalog and the model',
      'ask the catalog and the data in two queries',
    );
  return true;
}

/** PostgreSQL spellings DuckDB does not read, in the text clients send. */
export function rewriteCatalogSql(text: string): string {
  return (
    text
      .replace(/OPERATOR\s*\(\s*pg_catalog\s*\.\s*([^)\s]+)\s*\)/gi, '$1')
      .replace(/\s+COLLATE\s+(?:pg_catalog\s*\.\s*)?(?:"default"|default|"C"|C)\b/gi, '')
      .replace(
        /pg_catalog\s*\.\s*(pg_get_userbyid|pg_encoding_to_char|has_\w+_privilege)\s*\(/gi,
        '$1(',
      )
      // Object-identifier types are plain numbers here.
      .replace(/::\s*(?:pg_catalog\s*\.\s*)?(?:regtype|regclass|regproc|regnamespace)\b/gi, '')
      .replace(/::\s*pg_catalog\s*\.\s*/gi, '::')
  );
}

interface CatalogDatabase {
  instance: DuckDBInstance;
}

export class CatalogDb {
  private dbs = new LRUCache<string, Promise<CatalogDatabase>>({
    max: 32,
    dispose: (p) => {
      void p.then((d) => d.instance.closeSync()).catch(() => undefined);
    },
  });

  async query(projectId: string, schema: SqlSchema, text: string): Promise<LocalResult> {
    const db = await this.database(projectId, schema);
    let conn: DuckDBConnection | undefined;
    try {
      conn = await db.instance.connect();
      await conn.run("SET schema = 'public'");
      const reader = await conn.runAndReadAll(rewriteCatalogSql(text));
      const names = reader.columnNames();
      const types = reader.columnTypes().map((t) => dataTypeOf(String(t)));
      const rows = reader
        .getRowsJson()
        .map((r) =>
          r.map((v) =>
            v === null || v === undefined
              ? null
              : typeof v === 'object'
                ? JSON.stringify(v)
                : String(v),
          ),
        );
      return {
        command: `SELECT ${rows.length}`,
        columns: names.map((name, i) => ({ name, dataType: types[i]! })),
        rows,
      };
    } catch (err) {
      if (err instanceof SqlError) throw err;
      throw new SqlError(
        '0A000',
        `this catalog query is not supported: ${String((err as Error).message).split('\n')[0]}`,
        'the catalog answers pg_catalog and information_schema queries of psql, drivers and BI tools; tell us which client sent this',
      );
    } finally {
      conn?.closeSync();
    }
  }

  private database(projectId: string, schema: SqlSchema): Promise<CatalogDatabase> {
    const ddl = schemaDdl(schema);
    const key = createHash('sha256')
      .update(`${projectId}\n${ddl.join('\n')}`)
      .digest('hex');
    let db = this.dbs.get(key);
    if (!db) {
      db = (async () => {
        const instance = await DuckDBInstance.create(':memory:', {
          threads: '1',
          memory_limit: '64MB',
        });
        const c = await instance.connect();
        try {
          for (const s of [...MACROS, 'CREATE SCHEMA public', ...ddl]) await c.run(s);
        } finally {
          c.closeSync();
        }
        return { instance };
      })();
      db.catch(() => this.dbs.delete(key));
      this.dbs.set(key, db);
    }
    return db;
  }

  close(): void {
    this.dbs.clear();
  }
}

function schemaDdl(schema: SqlSchema): string[] {
  const out: string[] = [];
  for (const t of [...schema.tables.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    const name = `public.${q(t.name)}`;
    const cols = t.columns.map((c) => `${q(c.name)} ${DUCK_TYPE[c.dataType] ?? 'VARCHAR'}`);
    out.push(`CREATE TABLE ${name} (${cols.join(', ')})`);
    if (t.description) out.push(`COMMENT ON TABLE ${name} IS ${lit(t.description)}`);
    for (const c of t.columns)
      if (c.description)
        out.push(`COMMENT ON COLUMN ${name}.${q(c.name)} IS ${lit(c.description)}`);
  }
  return out;
}

function dataTypeOf(duck: string): string {
  if (/^(BIGINT|INTEGER|SMALLINT|TINYINT|UBIGINT|UINTEGER|USMALLINT|UTINYINT|HUGEINT)$/.test(duck))
    return 'integer';
  if (/^(DOUBLE|FLOAT|DECIMAL)/.test(duck)) return 'number';
  if (duck === 'BOOLEAN') return 'boolean';
  if (duck === 'DATE') return 'date';
  if (duck.startsWith('TIMESTAMP')) return 'datetime';
  return 'string';
}
