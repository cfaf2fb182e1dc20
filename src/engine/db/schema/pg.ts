// Builds the PostgreSQL drizzle tables from the declarations (./kit.ts says what each kind is).
import type { BuildColumns } from 'drizzle-orm';
import {
  bigint,
  boolean,
  foreignKey,
  index,
  integer,
  json,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  type PgColumn,
  type PgTableWithColumns,
} from 'drizzle-orm/pg-core';
import { buildTables, type Dialect } from './build.js';
import type { AnyTable, ColumnMap, PgBuilders, Table } from './kit.js';

export type PgTableOf<T> =
  T extends Table<infer N, infer C extends ColumnMap>
    ? PgTableWithColumns<{
        name: N;
        schema: undefined;
        columns: BuildColumns<N, PgBuilders<C>, 'pg'>;
        dialect: 'pg';
      }>
    : never;

export type PgTables<D extends Record<string, AnyTable>> = { [K in keyof D]: PgTableOf<D[K]> };

const pg: Dialect<PgColumn> = {
  column(spec, resolve) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one builder for every kind
    let b: any;
    switch (spec.kind) {
      case 'text':
      case 'time':
        b = spec.enum ? text(spec.name, { enum: spec.enum }) : text(spec.name);
        break;
      case 'int':
        b = integer(spec.name);
        break;
      case 'bigint':
        b = bigint(spec.name, { mode: 'number' });
        break;
      case 'bool':
        b = boolean(spec.name);
        break;
      case 'json':
        b = json(spec.name);
        break;
      case 'rowId':
        b = bigint(spec.name, { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity();
        break;
    }
    if (spec.primaryKey && spec.kind !== 'rowId') b = b.primaryKey();
    if (spec.notNull) b = b.notNull();
    if (spec.default) b = b.default(spec.default.value);
    const ref = spec.references;
    if (ref)
      b = b.references(() => resolve(ref.to()), { onDelete: ref.onDelete, onUpdate: ref.onUpdate });
    return b;
  },

  constraint(c, resolve) {
    const cols = (list: typeof c.columns) => list.map(resolve) as [PgColumn, ...PgColumn[]];
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

  table: (name, columns, extra) => pgTable(name, columns as never, extra as never),
};

/** Every declared table of `declarations`, built for PostgreSQL under the same keys. */
export function pgTables<D extends Record<string, AnyTable>>(declarations: D): PgTables<D> {
  return buildTables(declarations, pg) as PgTables<D>;
}
