// What clients ask about the schema (pg_catalog, information_schema) is answered by an
// in-memory DuckDB holding PostgreSQL 15's catalog emulated over the member's view of the
// model (pg-catalog.ts): it describes exactly what the member may read, with descriptions as
// comments. One small database per distinct schema (a member's visibility of a project at a
// model version), kept while in use; never a data table — a catalog query reads no rows.
import { createHash } from 'node:crypto';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { parseSync } from 'libpg-query';
import { LRUCache } from 'lru-cache';
import { notSupported, SqlError } from './errors.js';
import type { Param } from './expr.js';
import type { LocalResult } from './local.js';
import { emulatedCatalog, emulatedNames, IS_SCHEMA, PG_SCHEMA } from './pg-catalog.js';
import type { SqlSchema } from './schema.js';

type Node = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CATALOG_SCHEMAS = new Set(['pg_catalog', 'information_schema']);

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

/**
 * PostgreSQL spellings DuckDB does not read, in the text clients send, and the catalog's
 * names pointed at the emulated tables and functions (others resolve by the search path).
 */
export function rewriteCatalogSql(text: string): string {
  const names = emulatedNames();
  return (
    text
      .replace(/OPERATOR\s*\(\s*pg_catalog\s*\.\s*([^)\s]+)\s*\)/gi, '$1')
      .replace(/\s+COLLATE\s+(?:pg_catalog\s*\.\s*)?(?:"default"|default|"C"|C)\b/gi, '')
      // A table's name as an object identifier: its OID in the emulated pg_class.
      .replace(
        /'(?:public\.)?((?:[^']|'')+)'\s*::\s*(?:pg_catalog\s*\.\s*)?regclass\b/gi,
        (_m, name: string) =>
          /^\d+$/.test(name)
            ? name
            : `(SELECT oid FROM ${PG_SCHEMA}.pg_class WHERE relname = '${name.replace(/^"(.*)"$/, '$1')}')`,
      )
      .replace(/'pg_catalog\.(\w+)'\s*::\s*(?:pg_catalog\s*\.\s*)?regproc\b/gi, "'$1'")
      // Object-identifier types are plain numbers here; name and "char" are text.
      .replace(/::\s*(?:pg_catalog\s*\.\s*)?(?:regtype|regclass|regproc|regnamespace)\b/gi, '')
      .replace(/::\s*(?:pg_catalog\s*\.\s*)?(?:name|"char")(?![\w"])/gi, '::VARCHAR')
      .replace(/::\s*pg_catalog\s*\.\s*/gi, '::')
      .replace(/\bpg_catalog\s*\.\s*"?(\w+)"?/gi, (_m, name: string) =>
        names.pg.has(name.toLowerCase()) ? `${PG_SCHEMA}.${name}` : name,
      )
      .replace(/\binformation_schema\s*\.\s*"?(\w+)"?/gi, (m, name: string) =>
        names.is.has(name.toLowerCase()) ? `${IS_SCHEMA}.${name}` : m,
      )
  );
}

/** int2, int4, int8, oid: bound as numbers (others as text, which DuckDB casts). */
const INTEGER_OIDS = new Set([20, 21, 23, 26]);

/**
 * What DuckDB reads differently, fixed where the parse tree shows it. PostgreSQL's `~` finds a
 * match anywhere; DuckDB's must match the whole text. A pattern
 * given as a literal is wrapped so the whole-text match means what PostgreSQL means, and the
 * case-insensitive forms (`~*`, `!~*`, which DuckDB lacks) carry the `(?i)` flag instead.
 */
export function pgTextFixes(text: string): string {
  let tree: Node;
  try {
    tree = parseSync(text) as unknown as Node;
  } catch {
    return text;
  }
  const edits: { at: number; len: number; with: string }[] = [];
  const bytes = Buffer.from(text);
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) return n.forEach(walk);
    if (!n || typeof n !== 'object') return;
    const e = (n as Node).A_Expr as Node | undefined;
    const op = e?.kind === 'AEXPR_OP' ? e.name?.at(-1)?.String?.sval : undefined;
    const lit = e?.rexpr?.A_Const;
    if (op && /^!?~\*?$/.test(op) && typeof lit?.sval?.sval === 'string') {
      const at = lit.location as number;
      const m = /^'(?:[^']|'')*'/.exec(bytes.subarray(at).toString());
      if (m) {
        const flags = op.endsWith('*') ? '(?is)' : '(?s)';
        const pattern = `${flags}.*(?:${lit.sval.sval as string}).*`;
        edits.push({ at, len: Buffer.byteLength(m[0]), with: `'${pattern.replace(/'/g, "''")}'` });
        if (op.endsWith('*')) {
          const opAt = e!.location as number;
          const o = /^(?:OPERATOR\s*\(\s*(?:pg_catalog\s*\.\s*)?!?~\*\s*\)|!?~\*)/i.exec(
            bytes.subarray(opAt).toString(),
          );
          if (o)
            edits.push({
              at: opAt,
              len: Buffer.byteLength(o[0]),
              with: op.startsWith('!') ? '!~' : '~',
            });
        }
      }
    }
    // `generate_series(…) s` names the column s too in PostgreSQL; DuckDB needs `s(s)`.
    const rf = (n as Node).RangeFunction as Node | undefined;
    const call = rf?.functions?.[0]?.List?.items?.[0]?.FuncCall as Node | undefined;
    if (rf?.alias?.aliasname && !rf.alias.colnames && call) {
      const end = closingParen(bytes, call.location as number);
      const m = end < 0 ? null : /^\s*(?:AS\s+)?(\w+)/i.exec(bytes.subarray(end + 1).toString());
      if (m && m[1] === rf.alias.aliasname)
        edits.push({ at: end + 1 + Buffer.byteLength(m[0]), len: 0, with: `(${m[1]})` });
    }
    // `conrelid::regclass` in a SELECT list shows the table's name in PostgreSQL.
    const cast = ((n as Node).ResTarget as Node | undefined)?.val?.TypeCast as Node | undefined;
    const ref = cast?.arg?.ColumnRef as Node | undefined;
    const type = cast?.typeName?.names?.at(-1)?.String?.sval;
    if (ref && type === 'regclass') {
      const from = ref.location as number;
      const to = cast!.typeName.location as number;
      const m = /^(?:pg_catalog\s*\.\s*)?regclass/i.exec(bytes.subarray(to).toString());
      const arg = /^[\w."]+/.exec(bytes.subarray(from).toString());
      if (m && arg)
        edits.push({
          at: from,
          len: to + m[0].length - from,
          with: `(SELECT max(relname) FROM ${PG_SCHEMA}.pg_class WHERE oid = ${arg[0]})`,
        });
    }
    for (const v of Object.values(n as Node)) walk(v);
  };
  walk(tree);
  if (!edits.length) return text;
  let out = bytes;
  for (const x of edits.sort((a, b) => b.at - a.at))
    out = Buffer.concat([out.subarray(0, x.at), Buffer.from(x.with), out.subarray(x.at + x.len)]);
  return out.toString();
}

/** The byte offset of the parenthesis closing the first one at or after `from` (-1: none). */
function closingParen(bytes: Buffer, from: number): number {
  let depth = 0;
  let quoted = false;
  for (let i = from; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === 0x27) quoted = !quoted;
    else if (quoted) continue;
    else if (c === 0x28) depth++;
    else if (c === 0x29 && --depth === 0) return i;
  }
  return -1;
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

  async query(
    projectId: string,
    schema: SqlSchema,
    text: string,
    params: Param[] = [],
  ): Promise<LocalResult> {
    const db = await this.database(projectId, schema);
    let conn: DuckDBConnection | undefined;
    try {
      conn = await db.instance.connect();
      await conn.run(`SET search_path = '${PG_SCHEMA}'`);
      const sql = rewriteCatalogSql(pgTextFixes(text));
      const reader = params.length
        ? await (async () => {
            const p = await conn.prepare(sql);
            params.forEach((x, i) => {
              if (x.value === null) p.bindNull(i + 1);
              else if (INTEGER_OIDS.has(x.type) && /^-?\d+$/.test(x.value))
                p.bindBigInt(i + 1, BigInt(x.value));
              else p.bindVarchar(i + 1, x.value);
            });
            return p.runAndReadAll();
          })()
        : await conn.runAndReadAll(sql);
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
        // PostgreSQL names an unnamed call's column by the function (DuckDB: by its text).
        columns: names.map((name, i) => ({
          name: name.replace(/^(?:[\w"]+\.)*"?(\w+)"?\(.*\)$/s, '$1'),
          dataType: types[i]!,
        })),
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
    const ddl = emulatedCatalog(schema, projectId);
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
          for (const s of ddl) await c.run(s);
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

function dataTypeOf(duck: string): string {
  if (/^(BIGINT|INTEGER|SMALLINT|TINYINT|UBIGINT|UINTEGER|USMALLINT|UTINYINT|HUGEINT)$/.test(duck))
    return 'integer';
  if (/^(DOUBLE|FLOAT|DECIMAL)/.test(duck)) return 'number';
  if (duck === 'BOOLEAN') return 'boolean';
  if (duck === 'DATE') return 'date';
  if (duck.startsWith('TIMESTAMP')) return 'datetime';
  return 'string';
}
