// The column kit (src/engine/db/schema/kit.ts): one declaration of a table, built into drizzle's
// SQLite and PostgreSQL tables. Each kind becomes the column type its table in kit.ts says on
// each database, with the same key, name, nullability, default and references; the built
// schemas export every declared table and nothing else; and (checked by the type checker) the
// row types the two builds infer are the same.
import { getTableColumns, is, SQL, StringChunk, type Column as DrizzleColumn } from 'drizzle-orm';
import * as pgCore from 'drizzle-orm/pg-core';
import * as sqliteCore from 'drizzle-orm/sqlite-core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as pgSchema from '../src/engine/db/schema-pg.js';
import * as sqliteSchema from '../src/engine/db/schema.js';
import { declarations } from '../src/engine/db/schema/index.js';
import {
  bigint,
  bool,
  foreignKey,
  index,
  int,
  json,
  primaryKey,
  rowId,
  table,
  text,
  time,
  uniqueIndex,
} from '../src/engine/db/schema/kit.js';
import { pgTables } from '../src/engine/db/schema/pg.js';
import { sqliteTables } from '../src/engine/db/schema/sqlite.js';

/** A fresh declaration of two tables using every kind (columns belong to one table each). */
function declare() {
  const parents = table('parents', {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['a', 'b'] }).notNull(),
  });
  const children = table(
    'children',
    {
      id: rowId('id'),
      parentId: text('parent_id')
        .notNull()
        .references(() => parents.id, { onDelete: 'cascade' }),
      kind: text('kind').notNull(),
      at: time('at').notNull(),
      count: int('count').notNull().default(0),
      bytes: bigint('bytes'),
      on: bool('on').notNull().default(true),
      doc: json('doc')
        .$type<{ q: string }[]>()
        .notNull()
        .default([{ q: "it's" }]),
      note: text('note').notNull().default(''),
    },
    (t) => [
      index('children_at').on(t.parentId, t.at),
      uniqueIndex('children_note').on(t.note),
      foreignKey({ columns: [t.parentId, t.kind], foreignColumns: [parents.id, parents.kind] }),
    ],
  );
  const pairs = table('pairs', { a: text('a').notNull(), b: text('b').notNull() }, (t) => [
    primaryKey({ columns: [t.a, t.b] }),
  ]);
  return { parents, children, pairs };
}

const sqlType = (c: DrizzleColumn) =>
  (c as unknown as { getSQLType(): string }).getSQLType().toLowerCase();

function sqlDefault(c: DrizzleColumn): unknown {
  const d: unknown = c.default;
  if (!is(d, SQL)) return d;
  return d.queryChunks.map((q) => (q as StringChunk).value.join('')).join('');
}

describe('the column kit', () => {
  it('builds each kind into its SQLite and its PostgreSQL column', () => {
    const s = sqliteTables(declare()).children;
    const p = pgTables(declare()).children;
    const types = Object.fromEntries(
      Object.entries(getTableColumns(s)).map(([k, c]) => [
        k,
        `${sqlType(c)} / ${sqlType(getTableColumns(p)[k as keyof typeof p.$inferSelect])}`,
      ]),
    );
    expect(types).toEqual({
      id: 'integer / bigint',
      parentId: 'text / text',
      kind: 'text / text',
      at: 'text / text',
      count: 'integer / integer',
      bytes: 'integer / bigint',
      on: 'integer / boolean',
      doc: 'text / json',
      note: 'text / text',
    });
    expect(getTableColumns(s).on.dataType).toBe('boolean');
    expect(getTableColumns(s).doc.dataType).toBe('json');
    expect(getTableColumns(p).bytes.dataType).toBe('number');
  });

  it('keeps names, nullability, defaults and generated ids on both', () => {
    const s = getTableColumns(sqliteTables(declare()).children);
    const p = getTableColumns(pgTables(declare()).children);
    expect(s.parentId.name).toBe('parent_id');
    expect(p.parentId.name).toBe('parent_id');
    expect([s.bytes.notNull, p.bytes.notNull, s.count.notNull, p.count.notNull]).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect([s.count.default, p.count.default, s.on.default, p.on.default]).toEqual([
      0,
      0,
      true,
      true,
    ]);
    // A JSON default: an SQL literal of the document's text on SQLite, the value on PostgreSQL.
    expect(sqlDefault(s.doc)).toBe(`'[{"q":"it''s"}]'`);
    expect(p.doc.default).toEqual([{ q: "it's" }]);
    expect((s.id as unknown as { autoIncrement: boolean }).autoIncrement).toBe(true);
    expect(s.id.primary).toBe(true);
    expect(p.id.primary).toBe(true);
    expect(
      (p.id as unknown as { generatedIdentity?: { type: string } }).generatedIdentity?.type,
    ).toBe('byDefault');
    expect(getTableColumns(sqliteTables(declare()).parents).kind.enumValues).toEqual(['a', 'b']);
  });

  it('resolves references and constraints to the tables built beside them', () => {
    for (const [built, cfg] of [
      [sqliteTables(declare()), sqliteCore.getTableConfig],
      [pgTables(declare()), pgCore.getTableConfig],
    ] as const) {
      const c = (cfg as (t: unknown) => ReturnType<typeof sqliteCore.getTableConfig>)(
        built.children,
      );
      const fks = c.foreignKeys.map((fk) => {
        const r = fk.reference();
        expect(r.foreignTable).toBe(built.parents);
        return `${r.columns.map((x) => x.name).join()} -> ${r.foreignColumns.map((x) => x.name).join()} ${fk.onDelete ?? 'no action'}`;
      });
      expect(fks.sort()).toEqual([
        'parent_id -> id cascade',
        'parent_id,kind -> id,kind no action',
      ]);
      expect(c.indexes.map((i) => [i.config.name, i.config.unique ?? false])).toEqual([
        ['children_at', false],
        ['children_note', true],
      ]);
      const pairs = (cfg as (t: unknown) => ReturnType<typeof sqliteCore.getTableConfig>)(
        built.pairs,
      );
      expect(pairs.primaryKeys.map((pk) => pk.columns.map((x) => x.name))).toEqual([['a', 'b']]);
    }
  });

  it('refuses a column declared in two tables, and an integer primary key (use rowId)', () => {
    const shared = text('x');
    table('one', { x: shared });
    expect(() => table('two', { x: shared })).toThrow(/already x of another table/);
    expect(() => int('n').primaryKey()).toThrow(/rowId/);
    // A reference to a table outside the declarations built: an error when drizzle reads it.
    const { parents } = declare();
    const orphan = sqliteTables({ c: table('c', { p: text('p').references(() => parents.id) }) }).c;
    const fk = sqliteCore.getTableConfig(orphan).foreignKeys[0];
    expect(() => fk?.reference()).toThrow(/parents is not among the tables built/);
  });

  it('schema.ts and schema-pg.ts export every declared table, under its declared name', () => {
    const tablesOf = (m: Record<string, unknown>) =>
      Object.entries(m)
        .filter(([, v]) => is(v, sqliteCore.SQLiteTable) || is(v, pgCore.PgTable))
        .map(([k]) => k)
        .sort();
    const declared = Object.keys(declarations).sort();
    expect(declared.length).toBeGreaterThan(20);
    expect(tablesOf(sqliteSchema)).toEqual(declared);
    expect(tablesOf(pgSchema)).toEqual(declared);
  });

  it('the two builds infer the same row types (a type check: `npm run typecheck`)', () => {
    type Rows<M, W extends '$inferSelect' | '$inferInsert'> = {
      [K in keyof typeof declarations]: K extends keyof M
        ? M[K] extends Record<W, infer R>
          ? R
          : never
        : never;
    };
    expectTypeOf<Rows<typeof sqliteSchema, '$inferSelect'>>().toEqualTypeOf<
      Rows<typeof pgSchema, '$inferSelect'>
    >();
    expectTypeOf<Rows<typeof sqliteSchema, '$inferInsert'>>().toEqualTypeOf<
      Rows<typeof pgSchema, '$inferInsert'>
    >();
    expectTypeOf<typeof sqliteSchema.shares.$inferSelect.users>().toEqualTypeOf<string[]>();
    expectTypeOf<typeof pgSchema.jobs.$inferSelect.leaseUntil>().toEqualTypeOf<number | null>();
  });
});
