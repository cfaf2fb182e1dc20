// PostgreSQL 15's catalog, emulated over the member's view of the model: the tables psql's
// `\d`, PgJDBC's DatabaseMetaData, psqlODBC and BI tools read, with PostgreSQL's column names
// and the type OIDs drivers know (DuckDB's own pg_catalog has other OIDs and lacks columns
// such as relforcerowsecurity). Built as tables in schemas `ursa_pg` and `ursa_is` of the
// small in-memory catalog database; queries are pointed at them (see catalog-db.ts).
import { initialSettings } from './local.js';
import { PG_BUILTIN_TYPES, pgTypeOf } from './pg-types.js';
import type { SqlSchema, SqlTable } from './schema.js';

export const PG_SCHEMA = 'ursa_pg';
export const IS_SCHEMA = 'ursa_is';

const NS_CATALOG = 11;
const NS_PUBLIC = 2200;
const NS_INFORMATION = 13_000;
const OWNER = 10;
const PG_CLASS_OID = 1259;
/** User tables start here, as in PostgreSQL (FirstNormalObjectId). */
const FIRST_OID = 16_384;

type Cell = string | number | boolean | null | Cell[];
interface Table {
  name: string;
  /** "name TYPE" pairs, PostgreSQL's columns in its order. */
  columns: string;
  rows?: Cell[][];
}

const lit = (v: Cell): string => {
  if (v === null) return 'NULL';
  if (Array.isArray(v)) return `[${v.map(lit).join(', ')}]`;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return `'${v.replace(/'/g, "''")}'`;
};

/** Catalog tables (and their well-known OIDs) clients read; most are empty here. */
const CATALOG_OIDS: Record<string, number> = {
  pg_type: 1247,
  pg_attribute: 1249,
  pg_proc: 1255,
  pg_class: PG_CLASS_OID,
  pg_database: 1262,
  pg_am: 2601,
  pg_attrdef: 2604,
  pg_constraint: 2606,
  pg_description: 2609,
  pg_index: 2610,
  pg_inherits: 2611,
  pg_namespace: 2615,
  pg_trigger: 2620,
};

const CLASS_COLUMNS =
  'oid BIGINT, relname VARCHAR, relnamespace BIGINT, reltype BIGINT, reloftype BIGINT, relowner BIGINT, relam BIGINT, relfilenode BIGINT, reltablespace BIGINT, relpages INTEGER, reltuples FLOAT, relallvisible INTEGER, reltoastrelid BIGINT, relhasindex BOOLEAN, relisshared BOOLEAN, relpersistence VARCHAR, relkind VARCHAR, relnatts SMALLINT, relchecks SMALLINT, relhasrules BOOLEAN, relhastriggers BOOLEAN, relhassubclass BOOLEAN, relrowsecurity BOOLEAN, relforcerowsecurity BOOLEAN, relispopulated BOOLEAN, relreplident VARCHAR, relispartition BOOLEAN, relrewrite BIGINT, relfrozenxid BIGINT, relminmxid BIGINT, relacl VARCHAR[], reloptions VARCHAR[], relpartbound VARCHAR';

const classRow = (
  oid: number,
  name: string,
  ns: number,
  natts: number,
  kind = 'r',
  hasIndex = false,
  hasTriggers = false,
): Cell[] => [
  oid, name, ns, 0, 0, OWNER, kind === 'i' ? 403 : 2, oid, 0, 0, -1, 0, 0, hasIndex, false,
  'p', kind, natts, 0, false, hasTriggers, false, false, false, true, 'd', false, 0, 0, 0,
  null, null, null,
]; // prettier-ignore

const ident = (s: string) => (/^[a-z_][a-z0-9_]*$/.test(s) ? s : `"${s.replace(/"/g, '""')}"`);

interface Keys {
  indexes: Cell[][];
  constraints: Cell[][];
  /** pg_get_indexdef's and pg_get_constraintdef's text by OID. */
  defs: Cell[][];
  /** Tables with a primary key, and tables on either side of a foreign key. */
  indexed: Set<string>;
  triggered: Set<string>;
}

/**
 * A dataset's primary key and its references as PostgreSQL's constraints, so BI tools draw
 * the joins (AQL makes them; the SQL API never needs them written).
 */
function keys(tables: SqlTable[], oidOf: Map<string, number>, nextOid: () => number): Keys {
  const k: Keys = {
    indexes: [],
    constraints: [],
    defs: [],
    indexed: new Set(),
    triggered: new Set(),
  };
  const pkIndex = new Map<string, number>();
  for (const t of tables) {
    const at = t.columns.findIndex((c) => c.primaryKey);
    if (at < 0) continue;
    const index = nextOid();
    const con = nextOid();
    const name = `${t.name}_pkey`;
    pkIndex.set(t.name, index);
    k.indexed.add(t.name);
    k.indexes.push([index, oidOf.get(t.name)!, 1, 1, true, false, true, false, true, false, true, false, true, true, false, [at + 1], [0], [0], [0], null, null]); // prettier-ignore
    k.constraints.push([con, name, NS_PUBLIC, 'p', false, false, true, oidOf.get(t.name)!, 0, index, 0, 0, ' ', ' ', ' ', true, 0, true, [at + 1], null, null, null, null, null, null, null]); // prettier-ignore
    const col = ident(t.columns[at]!.name);
    k.defs.push([index, `CREATE UNIQUE INDEX ${ident(name)} ON public.${ident(t.name)} USING btree (${col})`]); // prettier-ignore
    k.defs.push([con, `PRIMARY KEY (${col})`]);
  }
  const byName = new Map(tables.map((t) => [t.name, t]));
  for (const t of tables)
    t.columns.forEach((c, j) => {
      const target = c.references ? byName.get(c.references) : undefined;
      const key = target?.columns.findIndex((x) => x.primaryKey) ?? -1;
      if (!target || key < 0) return;
      const con = nextOid();
      k.triggered.add(t.name).add(target.name);
      k.constraints.push([con, `${t.name}_${c.name}_fkey`.replace(/\W+/g, '_').toLowerCase(), NS_PUBLIC, 'f', false, false, true, oidOf.get(t.name)!, 0, pkIndex.get(target.name)!, 0, oidOf.get(target.name)!, 'a', 'a', 's', true, 0, true, [j + 1], [key + 1], null, null, null, null, null, null]); // prettier-ignore
      k.defs.push([con, `FOREIGN KEY (${ident(c.name)}) REFERENCES ${ident(target.name)}(${ident(target.columns[key]!.name)})`]); // prettier-ignore
    });
  return k;
}

/** The statements that build the emulated catalog for one member's schema of a project. */
export function emulatedCatalog(schema: SqlSchema, database: string): string[] {
  const tables = [...schema.tables.values()].sort((a, b) => a.name.localeCompare(b.name));
  const classes: Cell[][] = Object.entries(CATALOG_OIDS).map(([name, oid]) =>
    classRow(oid, name, NS_CATALOG, 0),
  );
  const attributes: Cell[][] = [];
  const descriptions: Cell[][] = [];
  const isTables: Cell[][] = [];
  const isColumns: Cell[][] = [];
  const oidOf = new Map(tables.map((x, i) => [x.name, FIRST_OID + i]));
  let last = FIRST_OID + tables.length;
  const k = keys(tables, oidOf, () => last++);
  for (const [index, table] of k.indexes.map((r) => [r[0], r[1]] as [number, number]))
    classes.push(classRow(index, `${tables[table - FIRST_OID]!.name}_pkey`, NS_PUBLIC, 1, 'i'));
  tables.forEach((tbl, i) => {
    const oid = FIRST_OID + i;
    classes.push(
      classRow(
        oid,
        tbl.name,
        NS_PUBLIC,
        tbl.columns.length,
        'r',
        k.indexed.has(tbl.name),
        k.triggered.has(tbl.name),
      ),
    );
    if (tbl.description) descriptions.push([oid, PG_CLASS_OID, 0, tbl.description]);
    isTables.push([database, 'public', tbl.name, 'BASE TABLE', null, null, null, null, null, 'NO', 'NO', null]); // prettier-ignore
    tbl.columns.forEach((c, j) => {
      const type = pgTypeOf(c.dataType);
      const text = type.category === 'S';
      attributes.push([
        oid, c.name, type.oid, -1, type.len, j + 1, 0, -1, -1, type.byval,
        type.len === 8 ? 'd' : 'i', type.byval ? 'p' : 'x', '', !!c.primaryKey, false, false,
        '', '', false, true, 0, text ? 100 : 0, null, null, null, null,
      ]); // prettier-ignore
      if (c.description) descriptions.push([oid, PG_CLASS_OID, j + 1, c.description]);
      const numeric = type.category === 'N';
      isColumns.push([
        database, 'public', tbl.name, c.name, j + 1, null, c.primaryKey ? 'NO' : 'YES',
        type.sqlName, null, text ? 1_073_741_824 : null,
        numeric ? (type.oid === 20 ? 64 : 53) : null, numeric ? 2 : null,
        type.oid === 20 ? 0 : null, type.category === 'D' ? (type.oid === 1082 ? 0 : 6) : null,
        null, null, null, null, null, null, null, null, null, null, null, database, 'pg_catalog',
        type.name,
        null, null, null, null, String(j + 1), 'NO', 'NO', null, null, null, null, null, 'NO',
        'NEVER', null, 'NO',
      ]); // prettier-ignore
    });
  });
  const types: Cell[][] = [];
  for (const ty of PG_BUILTIN_TYPES) {
    const base = (oid: number, name: string, len: number, byval: boolean, cat: string, elem: number, array: number, input: string): Cell[] => [
      oid, name, NS_CATALOG, OWNER, len, byval, 'b', cat, false, true, ',', 0,
      elem ? 'array_subscript_handler' : '-', elem, array, input, input.replace(/in$/, 'out'),
      input.replace(/in$/, 'recv'), input.replace(/in$/, 'send'), '-', '-', '-',
      len === 8 ? 'd' : 'i', byval ? 'p' : 'x', false, 0, -1, 0, cat === 'S' ? 100 : 0, null, null, null,
    ]; // prettier-ignore
    types.push(base(ty.oid, ty.name, ty.len, ty.byval, ty.category, 0, ty.array, ty.input));
    types.push(base(ty.array, `_${ty.name}`, -1, false, 'A', ty.oid, 0, 'array_in'));
  }
  const settings = [
    ...(initialSettings() as Map<string, string>),
    ['max_index_keys', '32'],
    ['block_size', '8192'],
    ['max_connections', '100'],
  ].map(([name, setting]: string[]): Cell[] => [
    name!, setting!, null, 'Ursa', '', null, 'user', 'string', 'default', null, null, null,
    setting!, setting!, null, null, false,
  ]); // prettier-ignore

  const pg: Table[] = [
    {
      name: 'pg_namespace',
      columns: 'oid BIGINT, nspname VARCHAR, nspowner BIGINT, nspacl VARCHAR[]',
      rows: [
        [NS_CATALOG, 'pg_catalog', OWNER, null],
        [NS_PUBLIC, 'public', OWNER, null],
        [NS_INFORMATION, 'information_schema', OWNER, null],
      ],
    },
    { name: 'pg_class', columns: CLASS_COLUMNS, rows: classes },
    {
      name: 'pg_attribute',
      columns:
        'attrelid BIGINT, attname VARCHAR, atttypid BIGINT, attstattarget INTEGER, attlen SMALLINT, attnum SMALLINT, attndims INTEGER, attcacheoff INTEGER, atttypmod INTEGER, attbyval BOOLEAN, attalign VARCHAR, attstorage VARCHAR, attcompression VARCHAR, attnotnull BOOLEAN, atthasdef BOOLEAN, atthasmissing BOOLEAN, attidentity VARCHAR, attgenerated VARCHAR, attisdropped BOOLEAN, attislocal BOOLEAN, attinhcount INTEGER, attcollation BIGINT, attacl VARCHAR[], attoptions VARCHAR[], attfdwoptions VARCHAR[], attmissingval VARCHAR',
      rows: attributes,
    },
    {
      name: 'pg_type',
      columns:
        'oid BIGINT, typname VARCHAR, typnamespace BIGINT, typowner BIGINT, typlen SMALLINT, typbyval BOOLEAN, typtype VARCHAR, typcategory VARCHAR, typispreferred BOOLEAN, typisdefined BOOLEAN, typdelim VARCHAR, typrelid BIGINT, typsubscript VARCHAR, typelem BIGINT, typarray BIGINT, typinput VARCHAR, typoutput VARCHAR, typreceive VARCHAR, typsend VARCHAR, typmodin VARCHAR, typmodout VARCHAR, typanalyze VARCHAR, typalign VARCHAR, typstorage VARCHAR, typnotnull BOOLEAN, typbasetype BIGINT, typtypmod INTEGER, typndims INTEGER, typcollation BIGINT, typdefaultbin VARCHAR, typdefault VARCHAR, typacl VARCHAR[]',
      rows: types,
    },
    {
      name: 'pg_description',
      columns: 'objoid BIGINT, classoid BIGINT, objsubid INTEGER, description VARCHAR',
      rows: descriptions,
    },
    { name: 'ursa_defs', columns: 'oid BIGINT, def VARCHAR', rows: k.defs },
    { name: 'pg_attrdef', columns: 'oid BIGINT, adrelid BIGINT, adnum SMALLINT, adbin VARCHAR' },
    {
      name: 'pg_index',
      columns:
        'indexrelid BIGINT, indrelid BIGINT, indnatts SMALLINT, indnkeyatts SMALLINT, indisunique BOOLEAN, indnullsnotdistinct BOOLEAN, indisprimary BOOLEAN, indisexclusion BOOLEAN, indimmediate BOOLEAN, indisclustered BOOLEAN, indisvalid BOOLEAN, indcheckxmin BOOLEAN, indisready BOOLEAN, indislive BOOLEAN, indisreplident BOOLEAN, indkey SMALLINT[], indcollation BIGINT[], indclass BIGINT[], indoption SMALLINT[], indexprs VARCHAR, indpred VARCHAR',
      rows: k.indexes,
    },
    {
      name: 'pg_constraint',
      columns:
        'oid BIGINT, conname VARCHAR, connamespace BIGINT, contype VARCHAR, condeferrable BOOLEAN, condeferred BOOLEAN, convalidated BOOLEAN, conrelid BIGINT, contypid BIGINT, conindid BIGINT, conparentid BIGINT, confrelid BIGINT, confupdtype VARCHAR, confdeltype VARCHAR, confmatchtype VARCHAR, conislocal BOOLEAN, coninhcount INTEGER, connoinherit BOOLEAN, conkey SMALLINT[], confkey SMALLINT[], conpfeqop BIGINT[], conppeqop BIGINT[], conffeqop BIGINT[], confdelsetcols SMALLINT[], conexclop BIGINT[], conbin VARCHAR',
      rows: k.constraints,
    },
    {
      name: 'pg_am',
      columns: 'oid BIGINT, amname VARCHAR, amhandler VARCHAR, amtype VARCHAR',
      rows: [
        [2, 'heap', 'heap_tableam_handler', 't'],
        [403, 'btree', 'bthandler', 'i'],
      ],
    },
    {
      name: 'pg_inherits',
      columns: 'inhrelid BIGINT, inhparent BIGINT, inhseqno INTEGER, inhdetachpending BOOLEAN',
    },
    {
      name: 'pg_policy',
      columns:
        'oid BIGINT, polname VARCHAR, polrelid BIGINT, polcmd VARCHAR, polpermissive BOOLEAN, polroles BIGINT[], polqual VARCHAR, polwithcheck VARCHAR',
    },
    {
      name: 'pg_statistic_ext',
      columns:
        'oid BIGINT, stxrelid BIGINT, stxname VARCHAR, stxnamespace BIGINT, stxowner BIGINT, stxstattarget INTEGER, stxkeys SMALLINT[], stxkind VARCHAR[], stxexprs VARCHAR',
    },
    {
      name: 'pg_publication',
      columns:
        'oid BIGINT, pubname VARCHAR, pubowner BIGINT, puballtables BOOLEAN, pubinsert BOOLEAN, pubupdate BOOLEAN, pubdelete BOOLEAN, pubtruncate BOOLEAN, pubviaroot BOOLEAN',
    },
    {
      name: 'pg_publication_rel',
      columns: 'oid BIGINT, prpubid BIGINT, prrelid BIGINT, prqual VARCHAR, prattrs SMALLINT[]',
    },
    {
      name: 'pg_publication_namespace',
      columns: 'oid BIGINT, pnpubid BIGINT, pnnspid BIGINT',
    },
    {
      name: 'pg_trigger',
      columns:
        'oid BIGINT, tgrelid BIGINT, tgparentid BIGINT, tgname VARCHAR, tgfoid BIGINT, tgtype SMALLINT, tgenabled VARCHAR, tgisinternal BOOLEAN, tgconstrrelid BIGINT, tgconstrindid BIGINT, tgconstraint BIGINT, tgdeferrable BOOLEAN, tginitdeferred BOOLEAN, tgnargs SMALLINT, tgattr SMALLINT[], tgargs VARCHAR, tgqual VARCHAR, tgoldtable VARCHAR, tgnewtable VARCHAR',
    },
    {
      name: 'pg_rewrite',
      columns:
        'oid BIGINT, rulename VARCHAR, ev_class BIGINT, ev_type VARCHAR, ev_enabled VARCHAR, is_instead BOOLEAN, ev_qual VARCHAR, ev_action VARCHAR',
    },
    {
      name: 'pg_foreign_table',
      columns: 'ftrelid BIGINT, ftserver BIGINT, ftoptions VARCHAR[]',
    },
    {
      name: 'pg_partitioned_table',
      columns:
        'partrelid BIGINT, partstrat VARCHAR, partnatts SMALLINT, partdefid BIGINT, partattrs SMALLINT[], partclass BIGINT[], partcollation BIGINT[], partexprs VARCHAR',
    },
    {
      name: 'pg_database',
      columns:
        'oid BIGINT, datname VARCHAR, datdba BIGINT, encoding INTEGER, datlocprovider VARCHAR, datistemplate BOOLEAN, datallowconn BOOLEAN, datconnlimit INTEGER, datfrozenxid BIGINT, datminmxid BIGINT, dattablespace BIGINT, datcollate VARCHAR, datctype VARCHAR, daticulocale VARCHAR, datcollversion VARCHAR, datacl VARCHAR[]',
      rows: [[16_383, database, OWNER, 6, 'c', false, true, -1, 0, 0, 1663, 'C.UTF-8', 'C.UTF-8', null, null, null]], // prettier-ignore
    },
    {
      name: 'pg_roles',
      columns:
        'rolname VARCHAR, rolsuper BOOLEAN, rolinherit BOOLEAN, rolcreaterole BOOLEAN, rolcreatedb BOOLEAN, rolcanlogin BOOLEAN, rolreplication BOOLEAN, rolconnlimit INTEGER, rolpassword VARCHAR, rolvaliduntil TIMESTAMP, rolbypassrls BOOLEAN, rolconfig VARCHAR[], oid BIGINT',
      rows: [['ursa', false, true, false, false, true, false, -1, '********', null, false, null, OWNER]], // prettier-ignore
    },
    {
      name: 'pg_user',
      columns:
        'usename VARCHAR, usesysid BIGINT, usecreatedb BOOLEAN, usesuper BOOLEAN, userepl BOOLEAN, usebypassrls BOOLEAN, passwd VARCHAR, valuntil TIMESTAMP, useconfig VARCHAR[]',
      rows: [['ursa', OWNER, false, false, false, false, '********', null, null]],
    },
    {
      name: 'pg_tablespace',
      columns:
        'oid BIGINT, spcname VARCHAR, spcowner BIGINT, spcacl VARCHAR[], spcoptions VARCHAR[]',
      rows: [[1663, 'pg_default', OWNER, null, null]],
    },
    {
      name: 'pg_proc',
      columns:
        'oid BIGINT, proname VARCHAR, pronamespace BIGINT, proowner BIGINT, prolang BIGINT, procost FLOAT, prorows FLOAT, provariadic BIGINT, prosupport VARCHAR, prokind VARCHAR, prosecdef BOOLEAN, proleakproof BOOLEAN, proisstrict BOOLEAN, proretset BOOLEAN, provolatile VARCHAR, proparallel VARCHAR, pronargs SMALLINT, pronargdefaults SMALLINT, prorettype BIGINT, proargtypes BIGINT[], proallargtypes BIGINT[], proargmodes VARCHAR[], proargnames VARCHAR[], proargdefaults VARCHAR, protrftypes BIGINT[], prosrc VARCHAR, probin VARCHAR, prosqlbody VARCHAR, proconfig VARCHAR[], proacl VARCHAR[]',
    },
    {
      name: 'pg_collation',
      columns:
        'oid BIGINT, collname VARCHAR, collnamespace BIGINT, collowner BIGINT, collprovider VARCHAR, collisdeterministic BOOLEAN, collencoding INTEGER, collcollate VARCHAR, collctype VARCHAR, colliculocale VARCHAR, collversion VARCHAR',
      rows: [[100, 'default', NS_CATALOG, OWNER, 'd', true, -1, null, null, null, null]],
    },
    {
      name: 'pg_enum',
      columns: 'oid BIGINT, enumtypid BIGINT, enumsortorder FLOAT, enumlabel VARCHAR',
    },
    {
      name: 'pg_extension',
      columns:
        'oid BIGINT, extname VARCHAR, extowner BIGINT, extnamespace BIGINT, extrelocatable BOOLEAN, extversion VARCHAR, extconfig BIGINT[], extcondition VARCHAR[]',
    },
    {
      name: 'pg_depend',
      columns:
        'classid BIGINT, objid BIGINT, objsubid INTEGER, refclassid BIGINT, refobjid BIGINT, refobjsubid INTEGER, deptype VARCHAR',
    },
    {
      name: 'pg_settings',
      columns:
        'name VARCHAR, setting VARCHAR, unit VARCHAR, category VARCHAR, short_desc VARCHAR, extra_desc VARCHAR, context VARCHAR, vartype VARCHAR, source VARCHAR, min_val VARCHAR, max_val VARCHAR, enumvals VARCHAR[], boot_val VARCHAR, reset_val VARCHAR, sourcefile VARCHAR, sourceline INTEGER, pending_restart BOOLEAN',
      rows: settings,
    },
    {
      name: 'pg_tables',
      columns:
        'schemaname VARCHAR, tablename VARCHAR, tableowner VARCHAR, tablespace VARCHAR, hasindexes BOOLEAN, hasrules BOOLEAN, hastriggers BOOLEAN, rowsecurity BOOLEAN',
      rows: tables.map((x) => ['public', x.name, 'ursa', null, false, false, false, false]),
    },
    {
      name: 'pg_views',
      columns: 'schemaname VARCHAR, viewname VARCHAR, viewowner VARCHAR, definition VARCHAR',
    },
    {
      name: 'pg_matviews',
      columns:
        'schemaname VARCHAR, matviewname VARCHAR, matviewowner VARCHAR, tablespace VARCHAR, hasindexes BOOLEAN, ispopulated BOOLEAN, definition VARCHAR',
    },
  ];

  const is: Table[] = [
    {
      name: 'schemata',
      columns:
        'catalog_name VARCHAR, schema_name VARCHAR, schema_owner VARCHAR, default_character_set_catalog VARCHAR, default_character_set_schema VARCHAR, default_character_set_name VARCHAR, sql_path VARCHAR',
      rows: ['pg_catalog', 'public', 'information_schema'].map((s) => [database, s, 'ursa', null, null, null, null]), // prettier-ignore
    },
    {
      name: 'tables',
      columns:
        'table_catalog VARCHAR, table_schema VARCHAR, table_name VARCHAR, table_type VARCHAR, self_referencing_column_name VARCHAR, reference_generation VARCHAR, user_defined_type_catalog VARCHAR, user_defined_type_schema VARCHAR, user_defined_type_name VARCHAR, is_insertable_into VARCHAR, is_typed VARCHAR, commit_action VARCHAR',
      rows: isTables,
    },
    {
      name: 'columns',
      columns:
        'table_catalog VARCHAR, table_schema VARCHAR, table_name VARCHAR, column_name VARCHAR, ordinal_position INTEGER, column_default VARCHAR, is_nullable VARCHAR, data_type VARCHAR, character_maximum_length INTEGER, character_octet_length INTEGER, numeric_precision INTEGER, numeric_precision_radix INTEGER, numeric_scale INTEGER, datetime_precision INTEGER, interval_type VARCHAR, interval_precision INTEGER, character_set_catalog VARCHAR, character_set_schema VARCHAR, character_set_name VARCHAR, collation_catalog VARCHAR, collation_schema VARCHAR, collation_name VARCHAR, domain_catalog VARCHAR, domain_schema VARCHAR, domain_name VARCHAR, udt_catalog VARCHAR, udt_schema VARCHAR, udt_name VARCHAR, scope_catalog VARCHAR, scope_schema VARCHAR, scope_name VARCHAR, maximum_cardinality INTEGER, dtd_identifier VARCHAR, is_self_referencing VARCHAR, is_identity VARCHAR, identity_generation VARCHAR, identity_start VARCHAR, identity_increment VARCHAR, identity_maximum VARCHAR, identity_minimum VARCHAR, identity_cycle VARCHAR, is_generated VARCHAR, generation_expression VARCHAR, is_updatable VARCHAR',
      rows: isColumns,
    },
    {
      name: 'views',
      columns:
        'table_catalog VARCHAR, table_schema VARCHAR, table_name VARCHAR, view_definition VARCHAR, check_option VARCHAR, is_updatable VARCHAR, is_insertable_into VARCHAR, is_trigger_updatable VARCHAR, is_trigger_deletable VARCHAR, is_trigger_insertable_into VARCHAR',
    },
    {
      name: 'table_constraints',
      columns:
        'constraint_catalog VARCHAR, constraint_schema VARCHAR, constraint_name VARCHAR, table_catalog VARCHAR, table_schema VARCHAR, table_name VARCHAR, constraint_type VARCHAR, is_deferrable VARCHAR, initially_deferred VARCHAR, enforced VARCHAR, nulls_distinct VARCHAR',
    },
    {
      name: 'key_column_usage',
      columns:
        'constraint_catalog VARCHAR, constraint_schema VARCHAR, constraint_name VARCHAR, table_catalog VARCHAR, table_schema VARCHAR, table_name VARCHAR, column_name VARCHAR, ordinal_position INTEGER, position_in_unique_constraint INTEGER',
    },
    {
      name: 'routines',
      columns:
        'specific_catalog VARCHAR, specific_schema VARCHAR, specific_name VARCHAR, routine_catalog VARCHAR, routine_schema VARCHAR, routine_name VARCHAR, routine_type VARCHAR, data_type VARCHAR',
    },
  ];

  const out = [`CREATE SCHEMA ${PG_SCHEMA}`, `CREATE SCHEMA ${IS_SCHEMA}`];
  for (const [schemaName, list] of [
    [PG_SCHEMA, pg],
    [IS_SCHEMA, is],
  ] as const)
    for (const x of list) {
      out.push(`CREATE TABLE ${schemaName}.${x.name} (${x.columns})`);
      // In slices: one VALUES list per statement stays small for DuckDB's parser.
      for (let i = 0; i < (x.rows?.length ?? 0); i += 500)
        out.push(
          `INSERT INTO ${schemaName}.${x.name} VALUES ${x
            .rows!.slice(i, i + 500)
            .map((r) => `(${r.map(lit).join(', ')})`)
            .join(', ')}`,
        );
    }
  out.push(...functions(database));
  // PgJDBC's primary-key and index queries expand an index's key columns with it.
  out.push(
    `CREATE MACRO ${IS_SCHEMA}._pg_expandarray(a) AS unnest(list_transform(range(len(a)), i -> {'x': a[i + 1], 'n': i + 1}))`,
  );
  return out;
}

/** The catalog's names (tables, functions) that queries are pointed at, by schema. */
export function emulatedNames(): { pg: Set<string>; is: Set<string> } {
  return NAMES;
}

const formatType = PG_BUILTIN_TYPES.flatMap((ty) => [
  `WHEN ${ty.oid} THEN '${ty.sqlName.replace(/'/g, "''")}'`,
  `WHEN ${ty.array} THEN '${ty.sqlName.replace(/'/g, "''")}[]'`,
]).join(' ');

/** PostgreSQL's catalog functions over the emulated tables (DuckDB's read its own OIDs). */
function functions(database: string): string[] {
  const s = PG_SCHEMA;
  const def = `(SELECT max(def) FROM ${s}.ursa_defs d WHERE d.oid = o)`;
  return [
    `CREATE MACRO ${s}.format_type(t, m) AS CASE t ${formatType} ELSE NULL END`,
    `CREATE MACRO ${s}.pg_table_is_visible(o) AS o IN (SELECT oid FROM ${s}.pg_class WHERE relnamespace IN (${NS_CATALOG}, ${NS_PUBLIC}))`,
    `CREATE MACRO ${s}.pg_type_is_visible(o) AS true`,
    `CREATE MACRO ${s}.pg_function_is_visible(o) AS true`,
    `CREATE MACRO ${s}.obj_description(o) AS (SELECT max(description) FROM ${s}.pg_description d WHERE d.objoid = o AND d.objsubid = 0), (o, c) AS (SELECT max(description) FROM ${s}.pg_description d WHERE d.objoid = o AND d.objsubid = 0)`,
    `CREATE MACRO ${s}.col_description(o, n) AS (SELECT max(description) FROM ${s}.pg_description d WHERE d.objoid = o AND d.objsubid = n)`,
    `CREATE MACRO ${s}.shobj_description(o, c) AS NULL`,
    `CREATE MACRO ${s}.pg_get_expr(e, r) AS e, (e, r, p) AS e`,
    `CREATE MACRO ${s}.pg_get_indexdef(o) AS ${def}, (o, n, p) AS ${def}`,
    `CREATE MACRO ${s}.pg_get_constraintdef(o) AS ${def}, (o, p) AS ${def}`,
    `CREATE MACRO ${s}.pg_get_viewdef(o) AS NULL, (o, p) AS NULL`,
    `CREATE MACRO ${s}.pg_get_statisticsobjdef_columns(o) AS NULL`,
    `CREATE MACRO ${s}.pg_get_partkeydef(o) AS NULL`,
    `CREATE MACRO ${s}.pg_get_triggerdef(o) AS NULL, (o, p) AS NULL`,
    `CREATE MACRO ${s}.pg_get_ruledef(o) AS NULL, (o, p) AS NULL`,
    `CREATE MACRO ${s}.pg_get_function_arguments(o) AS ''`,
    `CREATE MACRO ${s}.pg_get_function_result(o) AS ''`,
    `CREATE MACRO ${s}.pg_get_function_identity_arguments(o) AS ''`,
    `CREATE MACRO ${s}.pg_relation_is_publishable(o) AS false`,
    `CREATE MACRO ${s}.array_upper(a, d) AS len(a)`,
    `CREATE MACRO ${s}.array_lower(a, d) AS CASE WHEN len(a) > 0 THEN 1 END`,
    `CREATE MACRO ${s}.pg_partition_ancestors(o) AS unnest([o::BIGINT])`,
    // In FROM … WITH ORDINALITY AS a(relid, depth): the ordinal is the second column here.
    `CREATE MACRO ${s}.pg_partition_ancestors(o) AS TABLE SELECT o::BIGINT AS relid, 1 AS depth`,
    `CREATE MACRO ${s}.pg_get_userbyid(id) AS 'ursa'`,
    `CREATE MACRO ${s}.pg_encoding_to_char(e) AS 'UTF8'`,
    `CREATE MACRO ${s}.has_table_privilege(a, b) AS true, (a, b, c) AS true`,
    `CREATE MACRO ${s}.has_schema_privilege(a, b) AS true, (a, b, c) AS true`,
    `CREATE MACRO ${s}.has_database_privilege(a, b) AS true, (a, b, c) AS true`,
    `CREATE MACRO ${s}.pg_table_size(o) AS 0`,
    `CREATE MACRO ${s}.pg_relation_size(o) AS 0, (o, f) AS 0`,
    `CREATE MACRO ${s}.pg_total_relation_size(o) AS 0`,
    `CREATE MACRO ${s}.pg_size_pretty(n) AS '0 bytes'`,
    `CREATE MACRO ${s}.current_database() AS ${lit(database)}`,
    `CREATE MACRO ${s}.current_schemas(b) AS ['pg_catalog', 'public']`,
    `CREATE MACRO ${s}.pg_backend_pid() AS 0`,
  ];
}

const NAMES = (() => {
  const pg = new Set(
    emulatedCatalog({ tables: new Map() }, '')
      .map((x) => /^CREATE (?:TABLE|MACRO) ursa_pg\.(\w+)/.exec(x)?.[1])
      .filter((x): x is string => !!x),
  );
  const is = new Set(
    emulatedCatalog({ tables: new Map() }, '')
      .map((x) => /^CREATE (?:TABLE|MACRO) ursa_is\.(\w+)/.exec(x)?.[1])
      .filter((x): x is string => !!x),
  );
  return { pg, is };
})();
