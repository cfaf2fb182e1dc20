// Builds the SQLite drizzle tables from the declarations (./kit.ts says what each kind is).
import { sql, type BuildColumns } from 'drizzle-orm';
import {
  foreignKey,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
  type SQLiteColumn,
  type SQLiteTableWithColumns,
} from 'drizzle-orm/sqlite-core';
import { buildTables, type Dialect } from './build.js';
import type { AnyTable, ColumnMap, SqliteBuilders, Table } from './kit.js';

export type SqliteTableOf<T> =
  T extends Table<infer N, infer C extends ColumnMap>
    ? SQLiteTableWithColumns<{
        name: N;
        schema: undefined;
        columns: BuildColumns<N, SqliteBuilders<C>, 'sqlite'>;
        dialect: 'sqlite';
      }>
    : never;

export type SqliteTables<D extends Record<string, AnyTable>> = {
  [K in keyof D]: SqliteTableOf<D[K]>;
};

const sqlite: Dialect<SQLiteColumn> = {
  column(spec, resolve) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one builder for every kind
    let b: any;
    switch (spec.kind) {
      case 'text':
      case 'time':
        b = spec.enum ? text(spec.name, { enum: spec.enum }) : text(spec.name);
        break;
      case 'int':
      case 'bigint':
        b = integer(spec.name);
        break;
      case 'bool':
        b = integer(spec.name, { mode: 'boolean' });
        break;
      case 'json':
        b = text(spec.name, { mode: 'json' });
        break;
      case 'rowId':
        b = integer(spec.name).primaryKey({ autoIncrement: true });
        break;
    }
    if (spec.primaryKey && spec.kind !== 'rowId') b = b.primaryKey();
    if (spec.notNull) b = b.notNull();
    if (spec.default) {
      const v = spec.default.value;
      // A JSON default is the document's text, as an SQL literal.
      b = b.default(
        spec.kind === 'json' ? sql.raw(`'${JSON.stringify(v).replaceAll("'", "''")}'`) : v,
      );
    }
    const ref = spec.references;
    if (ref)
      b = b.references(() => resolve(ref.to()), { onDelete: ref.onDelete, onUpdate: ref.onUpdate });
    return b;
  },

  constraint(c, resolve) {
    const cols = (list: typeof c.columns) => list.map(resolve) as [SQLiteColumn, ...SQLiteColumn[]];
    switch (c.kind) {
      case 'primaryKey':
        return primaryKey({ columns: cols(c.columns) });
      case 'index':
        return (c.unique ? uniqueIndex(c.name) : index(c.name)).on(...cols(c.columns));
      case 'foreignKey': {
        let fk = foreignKey({ columns: cols(c.columns), foreignColumns: cols(c.foreignColumns) });
        if (c.onDeleteAction) fk = fk.onDelete(c.onDeleteAction);
        if (c.onUpdateAction) fk = fk.onUpdate(c.onUpdateAction);
        return fk;
      }
    }
  },

  table: (name, columns, extra) => sqliteTable(name, columns as never, extra as never),
};

/** Every declared table of `declarations`, built for SQLite under the same keys. */
export function sqliteTables<D extends Record<string, AnyTable>>(declarations: D): SqliteTables<D> {
  return buildTables(declarations, sqlite) as SqliteTables<D>;
}
