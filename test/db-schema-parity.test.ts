// The two metadata schemas (SQLite: src/engine/db/schema.ts, PostgreSQL: schema-pg.ts), built
// by the column kit from one declaration (src/engine/db/schema/), describe the same database:
// the same tables under the same export names, the same columns with the same kind of value,
// nullability, default and generated ids, the same primary keys, unique constraints, indexes
// and foreign keys. Read through drizzle's getTableConfig, so what is compared is what
// drizzle-kit generates migrations from: a builder that stored a column differently on one
// database is caught here. The comparison itself is shown to catch each kind of difference on
// deliberately altered tables. (The migrations: db-migration-parity.test.ts.)
import { getTableName, is, SQL, StringChunk, type Column } from 'drizzle-orm';
import * as pgCore from 'drizzle-orm/pg-core';
import * as sqliteCore from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import * as pgSchema from '../src/engine/db/schema-pg.js';
import * as sqliteSchema from '../src/engine/db/schema.js';

interface ColumnShape {
  /** drizzle's kind of value: string, number, boolean, json… (not the SQL type name). */
  kind: string;
  notNull: boolean;
  default: unknown;
  /** A row id the database assigns (SQLite AUTOINCREMENT, PostgreSQL identity or serial). */
  generatedId: boolean;
  enumValues: string[] | null;
}

interface TableShape {
  name: string;
  columns: Record<string, ColumnShape>;
  primaryKey: string[];
  unique: string[][];
  indexes: Record<string, { unique: boolean; columns: string[]; where: boolean }>;
  foreignKeys: string[];
}

type AnyConfig =
  ReturnType<typeof sqliteCore.getTableConfig> | ReturnType<typeof pgCore.getTableConfig>;

const NO_DEFAULT = '(none)';

/** A column default as a value: `sql\`'[]'\`` and `[]` on a JSON column are the same default. */
function defaultOf(col: Column): unknown {
  const d: unknown = col.default;
  if (!col.hasDefault || d === undefined) return NO_DEFAULT;
  if (!is(d, SQL)) return d;
  const chunks = d.queryChunks;
  if (!chunks.every((c) => is(c, StringChunk)))
    return `sql with parameters: ${JSON.stringify(chunks)}`;
  const text = chunks
    .map((c) => (c as StringChunk).value.join(''))
    .join('')
    .trim()
    .replace(/::[a-z ]+$/i, '');
  const literal = /^'((?:[^']|'')*)'$/.exec(text);
  if (literal) {
    const s = (literal[1] as string).replaceAll("''", "'");
    return col.dataType === 'json' ? JSON.parse(s) : s;
  }
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (/^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
  return `sql ${text}`;
}

function columnNames(cols: readonly unknown[]): string[] {
  return cols.map((c) => (is(c, SQL) ? 'sql expression' : (c as { name: string }).name));
}

function shapeOf(cfg: AnyConfig): TableShape {
  const columns: Record<string, ColumnShape> = {};
  for (const col of cfg.columns as Column[]) {
    const c = col as Column & { autoIncrement?: boolean; generatedIdentity?: unknown };
    columns[col.name] = {
      kind: col.dataType,
      notNull: col.notNull,
      default: c.generatedIdentity || c.autoIncrement ? NO_DEFAULT : defaultOf(col),
      generatedId:
        c.autoIncrement === true ||
        c.generatedIdentity !== undefined ||
        /Serial$/.test(col.columnType),
      enumValues: col.enumValues?.length ? [...col.enumValues] : null,
    };
  }
  const composite = cfg.primaryKeys.map((pk) => pk.columns.map((c) => c.name));
  const single = (cfg.columns as Column[]).filter((c) => c.primary).map((c) => [c.name]);
  const primaryKeys = [...composite, ...single];
  if (primaryKeys.length > 1) throw new Error(`${cfg.name}: more than one primary key`);

  const unique = [
    ...cfg.uniqueConstraints.map((u) => columnNames(u.columns)),
    ...(cfg.columns as Column[]).filter((c) => c.isUnique).map((c) => [c.name]),
  ]
    .map((cols) => [...cols].sort())
    .sort((a, b) => a.join().localeCompare(b.join()));

  const indexes: TableShape['indexes'] = {};
  for (const ix of cfg.indexes) {
    indexes[ix.config.name as string] = {
      unique: ix.config.unique ?? false,
      columns: columnNames(ix.config.columns),
      where: ix.config.where !== undefined,
    };
  }

  const foreignKeys = cfg.foreignKeys
    .map((fk) => {
      const ref = fk.reference();
      const from = ref.columns.map((c) => c.name).join(', ');
      const to = ref.foreignColumns.map((c) => c.name).join(', ');
      const actions = `on delete ${fk.onDelete ?? 'no action'}, on update ${fk.onUpdate ?? 'no action'}`;
      return `(${from}) -> ${getTableName(ref.foreignTable)}(${to}) ${actions}`;
    })
    .sort();

  return {
    name: cfg.name,
    columns,
    primaryKey: primaryKeys[0] ?? [],
    unique,
    indexes,
    foreignKeys,
  };
}

/** Every difference between two shapes, as `path: sqlite … / pg …` lines. */
function diff(a: unknown, b: unknown, at: string, out: string[]): void {
  const isObj = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObj(a) && isObj(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!(k in b)) out.push(`${at}.${k}: only in sqlite`);
      else if (!(k in a)) out.push(`${at}.${k}: only in pg`);
      else diff(a[k], b[k], `${at}.${k}`, out);
    }
  } else if (JSON.stringify(a) !== JSON.stringify(b)) {
    out.push(`${at}: sqlite ${JSON.stringify(a)} / pg ${JSON.stringify(b)}`);
  }
}

/** Exported tables by export name, as shapes; `exports` is a schema module. */
function shapesOf(exports: Record<string, unknown>): Record<string, TableShape> {
  const shapes: Record<string, TableShape> = {};
  for (const [key, v] of Object.entries(exports)) {
    if (is(v, sqliteCore.SQLiteTable)) shapes[key] = shapeOf(sqliteCore.getTableConfig(v));
    else if (is(v, pgCore.PgTable)) shapes[key] = shapeOf(pgCore.getTableConfig(v));
  }
  return shapes;
}

function schemaDifferences(sqlite: Record<string, unknown>, pg: Record<string, unknown>): string[] {
  const out: string[] = [];
  diff(shapesOf(sqlite), shapesOf(pg), 'schema', out);
  return out;
}

describe('metadata schema parity (SQLite / PostgreSQL)', () => {
  it('schema.ts and schema-pg.ts describe the same tables, columns, keys and indexes', () => {
    const tables = Object.keys(shapesOf(sqliteSchema));
    expect(tables.length).toBeGreaterThan(20);
    expect(schemaDifferences(sqliteSchema, pgSchema)).toEqual([]);
  });

  it('the shapes compared hold what matters (a spot check of one table each side)', () => {
    const s = shapesOf(sqliteSchema).shares as TableShape;
    expect(s.primaryKey).toEqual(['project_id', 'dashboard']);
    expect(s.indexes.shares_token).toEqual({ unique: true, columns: ['token'], where: false });
    expect(s.columns.users).toMatchObject({ kind: 'json', notNull: true, default: [] });
    expect(s.columns.email_notif).toMatchObject({ kind: 'boolean', default: false });
    expect(s.foreignKeys).toContain(
      '(project_id, dashboard) -> objects(project_id, ident) on delete cascade, on update no action',
    );
    const a = shapesOf(pgSchema).activity as TableShape;
    expect(a.columns.id).toMatchObject({ kind: 'number', generatedId: true, notNull: true });
    expect(a.primaryKey).toEqual(['id']);
  });

  describe('catches every kind of difference', () => {
    const { pgTable, text, integer, boolean, jsonb, primaryKey, index, uniqueIndex, foreignKey } =
      pgCore;
    const objects = pgSchema.objects;
    /** schema-pg with `shares` replaced by `table`. */
    const withShares = (table: unknown) => ({ ...pgSchema, shares: table });
    /** A pg `shares` as in schema-pg, with the changes `alter` asks for. */
    function shares(alter: {
      tokenNotNull?: boolean;
      usersDefault?: unknown;
      emailNotifInt?: boolean;
      dropColumn?: boolean;
      pk?: 'dashboard-first';
      tokenIndex?: 'plain' | 'none' | 'other-column';
      onDelete?: 'no action';
      extraUnique?: boolean;
      typeEnum?: boolean;
    }) {
      return pgTable(
        'shares',
        {
          projectId: text('project_id')
            .notNull()
            .references(() => pgSchema.projects.id, { onDelete: 'cascade' }),
          dashboard: text('dashboard').notNull(),
          type: alter.typeEnum
            ? text('type', { enum: ['private', 'public'] }).notNull()
            : text('type').notNull(),
          users: jsonb('users')
            .$type<string[]>()
            .notNull()
            .default((alter.usersDefault ?? []) as string[]),
          emailNotif: alter.emailNotifInt
            ? integer('email_notif').notNull().default(0)
            : boolean('email_notif').notNull().default(false),
          token: alter.tokenNotNull ? text('token').notNull() : text('token'),
          pinned: jsonb('pinned'),
          createdBy: text('created_by').notNull(),
          created: text('created').notNull(),
          updatedBy: text('updated_by').notNull(),
          ...(alter.dropColumn ? {} : { updated: text('updated').notNull() }),
          ...(alter.extraUnique ? { extra: text('extra').unique() } : {}),
        },
        (t) => [
          alter.pk === 'dashboard-first'
            ? primaryKey({ columns: [t.dashboard, t.projectId] })
            : primaryKey({ columns: [t.projectId, t.dashboard] }),
          ...(alter.tokenIndex === 'none'
            ? []
            : alter.tokenIndex === 'plain'
              ? [index('shares_token').on(t.token)]
              : alter.tokenIndex === 'other-column'
                ? [uniqueIndex('shares_token').on(t.createdBy)]
                : [uniqueIndex('shares_token').on(t.token)]),
          foreignKey({
            columns: [t.projectId, t.dashboard],
            foreignColumns: [objects.projectId, objects.ident],
          }).onDelete(alter.onDelete ?? 'cascade'),
        ],
      );
    }

    it('an unaltered copy has no differences (the copy below is faithful)', () => {
      expect(schemaDifferences(sqliteSchema, withShares(shares({})))).toEqual([]);
    });

    it.each([
      [{ tokenNotNull: true }, 'schema.shares.columns.token.notNull: sqlite false / pg true'],
      [{ usersDefault: ['x'] }, 'schema.shares.columns.users.default: sqlite [] / pg ["x"]'],
      [
        { emailNotifInt: true },
        'schema.shares.columns.email_notif.kind: sqlite "boolean" / pg "number"',
      ],
      [{ dropColumn: true }, 'schema.shares.columns.updated: only in sqlite'],
      [{ extraUnique: true }, 'schema.shares.columns.extra: only in pg'],
      [{ extraUnique: true }, 'schema.shares.unique: sqlite [] / pg [["extra"]]'],
      [
        { pk: 'dashboard-first' },
        'schema.shares.primaryKey: sqlite ["project_id","dashboard"] / pg ["dashboard","project_id"]',
      ],
      [
        { tokenIndex: 'plain' },
        'schema.shares.indexes.shares_token.unique: sqlite true / pg false',
      ],
      [{ tokenIndex: 'none' }, 'schema.shares.indexes.shares_token: only in sqlite'],
      [
        { tokenIndex: 'other-column' },
        'schema.shares.indexes.shares_token.columns: sqlite ["token"] / pg ["created_by"]',
      ],
      [{ onDelete: 'no action' }, 'on delete no action'],
      [
        { typeEnum: true },
        'schema.shares.columns.type.enumValues: sqlite null / pg ["private","public"]',
      ],
    ] as const)('%j is reported', (alter, expected) => {
      const found = schemaDifferences(sqliteSchema, withShares(shares(alter)));
      expect(found.length).toBeGreaterThan(0);
      expect(
        found.some((d) => d.includes(expected)),
        found.join('\n'),
      ).toBe(true);
    });

    it('a table missing on one side, or under another export name, is reported', () => {
      const { activity, ...withoutActivity } = pgSchema;
      expect(schemaDifferences(sqliteSchema, withoutActivity)).toEqual([
        'schema.activity: only in sqlite',
      ]);
      expect(schemaDifferences(sqliteSchema, { ...withoutActivity, activities: activity })).toEqual(
        ['schema.activity: only in sqlite', 'schema.activities: only in pg'],
      );
    });

    it('a generated id that is not generated, and a renamed table, are reported', () => {
      const plain = pgTable(
        'activity',
        {
          id: integer('id').primaryKey(),
          projectId: text('project_id')
            .notNull()
            .references(() => pgSchema.projects.id, { onDelete: 'cascade' }),
          type: text('type').notNull(),
          time: text('time').notNull(),
          user: text('user'),
          object: text('object'),
          message: text('message').notNull(),
          detail: pgCore.json('detail').notNull(),
        },
        (t) => [index('activity_project_type').on(t.projectId, t.type, t.id)],
      );
      expect(schemaDifferences(sqliteSchema, { ...pgSchema, activity: plain })).toEqual([
        'schema.activity.columns.id.generatedId: sqlite true / pg false',
      ]);
      const renamed = pgTable('activities', {
        id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
      });
      const found = schemaDifferences(sqliteSchema, { ...pgSchema, activity: renamed });
      expect(found).toContain('schema.activity.name: sqlite "activity" / pg "activities"');
    });
  });
});
