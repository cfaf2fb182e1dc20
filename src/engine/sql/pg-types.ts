// PostgreSQL's built-in types as the SQL API presents them: the OIDs drivers know by heart
// (PgJDBC and psqlODBC map these without asking), for result columns and the emulated
// pg_type. One table, so a column's type in a result and in the catalog always agree.

export interface PgBuiltinType {
  oid: number;
  name: string;
  /** typlen: bytes, or -1 for variable length. */
  len: number;
  byval: boolean;
  /** typcategory: B boolean, N numeric, S string, D date/time, U user, P pseudo, A array. */
  category: string;
  /** The array type's OID (0 for none). */
  array: number;
  /** format_type's spelling. */
  sqlName: string;
  input: string;
}

const t = (
  oid: number,
  name: string,
  len: number,
  category: string,
  array: number,
  sqlName = name,
  input = `${name}in`,
): PgBuiltinType => ({
  oid,
  name,
  len,
  byval: len > 0 && len <= 8,
  category,
  array,
  sqlName,
  input,
});

export const PG_BUILTIN_TYPES: readonly PgBuiltinType[] = [
  t(16, 'bool', 1, 'B', 1000, 'boolean', 'boolin'),
  t(17, 'bytea', -1, 'U', 1001),
  t(18, 'char', 1, 'S', 1002, '"char"', 'charin'),
  t(19, 'name', 64, 'S', 1003),
  t(20, 'int8', 8, 'N', 1016, 'bigint'),
  t(21, 'int2', 2, 'N', 1005, 'smallint'),
  t(23, 'int4', 4, 'N', 1007, 'integer'),
  t(24, 'regproc', 4, 'N', 1008),
  t(25, 'text', -1, 'S', 1009),
  t(26, 'oid', 4, 'N', 1028),
  t(114, 'json', -1, 'U', 199, 'json', 'json_in'),
  t(700, 'float4', 4, 'N', 1021, 'real'),
  t(701, 'float8', 8, 'N', 1022, 'double precision'),
  t(1042, 'bpchar', -1, 'S', 1014, 'character'),
  t(1043, 'varchar', -1, 'S', 1015, 'character varying'),
  t(1082, 'date', 4, 'D', 1182, 'date', 'date_in'),
  t(1083, 'time', 8, 'D', 1183, 'time without time zone', 'time_in'),
  t(1114, 'timestamp', 8, 'D', 1115, 'timestamp without time zone', 'timestamp_in'),
  t(1184, 'timestamptz', 8, 'D', 1185, 'timestamp with time zone', 'timestamptz_in'),
  t(1186, 'interval', 16, 'T', 1187, 'interval', 'interval_in'),
  t(1700, 'numeric', -1, 'N', 1231, 'numeric', 'numeric_in'),
  t(2950, 'uuid', 16, 'U', 2951, 'uuid', 'uuid_in'),
  t(3802, 'jsonb', -1, 'U', 3807, 'jsonb', 'jsonb_in'),
];

/** Ursa's data types (AQL's) as PostgreSQL's. */
const OF_DATA_TYPE: Record<string, number> = {
  string: 25,
  integer: 20,
  number: 701,
  date: 1082,
  datetime: 1114,
  boolean: 16,
  nested: 114,
};

const BY_OID = new Map(PG_BUILTIN_TYPES.map((x) => [x.oid, x]));

export const pgTypeOf = (dataType: string): PgBuiltinType =>
  BY_OID.get(OF_DATA_TYPE[dataType] ?? 25)!;
