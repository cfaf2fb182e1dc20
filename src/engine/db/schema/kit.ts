// The column kit: each metadata table is declared once, as data, and ./sqlite.ts and ./pg.ts
// build drizzle's SQLite and PostgreSQL tables from that one declaration (in the manner of
// n8n's `JsonColumn`/`DateTimeColumn`: a column says what it holds, each database's builder
// says how it stores it). A column carries, in its type only, the drizzle column builder each
// database's table is made of, so the built tables' types are drizzle's own.
import type { $Type, HasDefault, IsIdentity, IsPrimaryKey, NotNull } from 'drizzle-orm';
import type {
  PgBigInt53BuilderInitial,
  PgBooleanBuilderInitial,
  PgColumnBuilderBase,
  PgIntegerBuilderInitial,
  PgJsonBuilderInitial,
  PgTextBuilderInitial,
} from 'drizzle-orm/pg-core';
import type {
  SQLiteBooleanBuilderInitial,
  SQLiteColumnBuilderBase,
  SQLiteIntegerBuilderInitial,
  SQLiteTextBuilderInitial,
  SQLiteTextJsonBuilderInitial,
  UpdateDeleteAction,
} from 'drizzle-orm/sqlite-core';

/**
 * What a column holds; how each database stores it:
 *
 * | kind     | SQLite                       | PostgreSQL                               |
 * | -------- | ---------------------------- | ---------------------------------------- |
 * | `text`   | text                         | text                                     |
 * | `time`   | text (ISO-8601)              | text (ISO-8601: same order, same compare) |
 * | `int`    | integer                      | integer                                  |
 * | `bigint` | integer                      | bigint, read as a number                 |
 * | `bool`   | integer 0/1                  | boolean                                  |
 * | `json`   | text                         | json (not jsonb: key order is kept)      |
 * | `rowId`  | integer primary key autoinc. | bigint primary key, identity by default  |
 */
export type ColumnKind = 'text' | 'time' | 'int' | 'bigint' | 'bool' | 'json' | 'rowId';

export interface ReferenceSpec {
  to: () => AnyColumn;
  onDelete?: UpdateDeleteAction;
  onUpdate?: UpdateDeleteAction;
}

/** A column as data: what the builders read. */
export interface ColumnSpec {
  kind: ColumnKind;
  name: string;
  enum?: [string, ...string[]];
  notNull: boolean;
  primaryKey: boolean;
  /** The default as a value (a JSON column's is the document). */
  default?: { value: unknown };
  references?: ReferenceSpec;
}

type DataOf<S extends SQLiteColumnBuilderBase> = S['_'] extends { $type: infer U }
  ? U
  : S['_']['data'];

/**
 * One column of a declared table. `S` and `P` are the drizzle builders the SQLite and the
 * PostgreSQL table get for it: type-only, the value holds only `spec`. The modifiers are
 * drizzle's and change the same types drizzle's would.
 */
export class Column<S extends SQLiteColumnBuilderBase, P extends PgColumnBuilderBase> {
  declare readonly _sqlite: S;
  declare readonly _pg: P;
  readonly spec: ColumnSpec;
  /** The table and key it was declared under (set by `table`). */
  owner?: { table: AnyTable; key: string };

  constructor(kind: ColumnKind, name: string, enumValues?: [string, ...string[]]) {
    this.spec = { kind, name, notNull: false, primaryKey: false };
    if (enumValues) this.spec.enum = enumValues;
  }

  notNull(): Column<NotNull<S>, NotNull<P>> {
    this.spec.notNull = true;
    return this as never;
  }

  default(value: DataOf<S>): Column<HasDefault<S>, HasDefault<P>> {
    this.spec.default = { value };
    return this as never;
  }

  primaryKey(): Column<IsPrimaryKey<NotNull<S>>, IsPrimaryKey<NotNull<P>>> {
    if (this.spec.kind === 'int' || this.spec.kind === 'bigint' || this.spec.kind === 'rowId')
      // SQLite makes an integer primary key the rowid (a generated id): say so with rowId().
      throw new Error(`${this.spec.name}: an integer primary key is a rowId()`);
    this.spec.primaryKey = true;
    this.spec.notNull = true;
    return this as never;
  }

  $type<T>(): Column<$Type<S, T>, $Type<P, T>> {
    return this as never;
  }

  references(
    to: () => AnyColumn,
    actions?: { onDelete?: UpdateDeleteAction; onUpdate?: UpdateDeleteAction },
  ): this {
    this.spec.references = { to, ...actions };
    return this;
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyColumn = Column<any, any>;
export type ColumnMap = Record<string, AnyColumn>;

type AnyEnum = [string, ...string[]];

/** Text. `enum` narrows the value's type (and is kept in the drizzle column, not the SQL). */
export function text<N extends string>(
  name: N,
): Column<
  SQLiteTextBuilderInitial<N, AnyEnum, number | undefined>,
  PgTextBuilderInitial<N, AnyEnum>
>;
export function text<N extends string, const E extends AnyEnum>(
  name: N,
  config: { enum: E },
): Column<SQLiteTextBuilderInitial<N, E, number | undefined>, PgTextBuilderInitial<N, E>>;
export function text(name: string, config?: { enum: AnyEnum }): AnyColumn {
  return new Column('text', name, config?.enum);
}

/** An ISO-8601 time, as text on both databases so comparing and ordering them agree. */
export function time<N extends string>(
  name: N,
): Column<
  SQLiteTextBuilderInitial<N, AnyEnum, number | undefined>,
  PgTextBuilderInitial<N, AnyEnum>
> {
  return new Column('time', name);
}

/** A 32-bit integer: versions, revisions, counts that stay small. */
export function int<N extends string>(
  name: N,
): Column<SQLiteIntegerBuilderInitial<N>, PgIntegerBuilderInitial<N>> {
  return new Column('int', name);
}

/** An integer that grows without bound (bytes, rows, epoch ms): bigint on PostgreSQL. */
export function bigint<N extends string>(
  name: N,
): Column<SQLiteIntegerBuilderInitial<N>, PgBigInt53BuilderInitial<N>> {
  return new Column('bigint', name);
}

export function bool<N extends string>(
  name: N,
): Column<SQLiteBooleanBuilderInitial<N>, PgBooleanBuilderInitial<N>> {
  return new Column('bool', name);
}

/** A JSON document (give its type with `.$type<T>()`), read back exactly as written. */
export function json<N extends string>(
  name: N,
): Column<SQLiteTextJsonBuilderInitial<N>, PgJsonBuilderInitial<N>> {
  return new Column('json', name);
}

/** A row id the database assigns, the table's primary key. */
export function rowId<N extends string>(
  name: N,
): Column<
  IsPrimaryKey<HasDefault<NotNull<SQLiteIntegerBuilderInitial<N>>>>,
  IsIdentity<IsPrimaryKey<NotNull<PgBigInt53BuilderInitial<N>>>, 'byDefault'>
> {
  const c = new Column('rowId', name);
  c.spec.primaryKey = true;
  c.spec.notNull = true;
  return c as never;
}

// ---- Table-level constraints ----

export type Constraint =
  | { kind: 'primaryKey'; columns: AnyColumn[] }
  | { kind: 'index'; name: string; unique: boolean; columns: AnyColumn[] }
  | ForeignKey;

export class ForeignKey {
  readonly kind = 'foreignKey';
  onDeleteAction?: UpdateDeleteAction;
  onUpdateAction?: UpdateDeleteAction;
  constructor(
    readonly columns: AnyColumn[],
    readonly foreignColumns: AnyColumn[],
  ) {}
  onDelete(action: UpdateDeleteAction): this {
    this.onDeleteAction = action;
    return this;
  }
  onUpdate(action: UpdateDeleteAction): this {
    this.onUpdateAction = action;
    return this;
  }
}

export function primaryKey(config: { columns: AnyColumn[] }): Constraint {
  return { kind: 'primaryKey', columns: config.columns };
}

export function index(name: string) {
  return {
    on: (...columns: AnyColumn[]): Constraint => ({ kind: 'index', name, unique: false, columns }),
  };
}

export function uniqueIndex(name: string) {
  return {
    on: (...columns: AnyColumn[]): Constraint => ({ kind: 'index', name, unique: true, columns }),
  };
}

export function foreignKey(config: {
  columns: AnyColumn[];
  foreignColumns: AnyColumn[];
}): ForeignKey {
  return new ForeignKey(config.columns, config.foreignColumns);
}

// ---- Tables ----

export const TABLE: unique symbol = Symbol('ursa.table');

export interface TableSpec<N extends string = string, C extends ColumnMap = ColumnMap> {
  name: N;
  columns: C;
  /** A method, so a table of any columns is a `TableSpec` (parameters are bivariant). */
  constraints?(columns: C): Constraint[];
}

/** A declared table: its columns by key (for references and constraints) and its spec. */
export type Table<N extends string, C extends ColumnMap> = C & {
  readonly [TABLE]: TableSpec<N, C>;
};
export type AnyTable = Table<string, ColumnMap>;

/** Declares a table once; `constraints` gets its columns, as drizzle's extra config does. */
export function table<N extends string, C extends ColumnMap>(
  name: N,
  columns: C,
  constraints?: (columns: C) => Constraint[],
): Table<N, C> {
  const t = { ...columns, [TABLE]: { name, columns, constraints } } as Table<N, C>;
  for (const [key, col] of Object.entries(columns)) {
    if (col.owner)
      throw new Error(`${name}.${key}: the column is already ${col.owner.key} of another table`);
    col.owner = { table: t, key };
  }
  return t;
}

/** The table and key a column was declared under. */
export function ownerOf(col: AnyColumn): { table: AnyTable; key: string } {
  if (!col.owner) throw new Error(`column ${col.spec.name} belongs to no declared table`);
  return col.owner;
}

/** The SQLite and PostgreSQL drizzle builders of each column of `C`. */
export type SqliteBuilders<C extends ColumnMap> = { [K in keyof C]: C[K]['_sqlite'] };
export type PgBuilders<C extends ColumnMap> = { [K in keyof C]: C[K]['_pg'] };
