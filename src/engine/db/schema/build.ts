// What the SQLite and PostgreSQL builders share: walking the declarations in order and
// resolving a declared column to the built column it became.
import {
  TABLE,
  ownerOf,
  type AnyColumn,
  type AnyTable,
  type ColumnSpec,
  type Constraint,
} from './kit.js';

/** How one database makes columns, constraints and tables (drizzle's functions, untyped). */
export interface Dialect<Col> {
  column(spec: ColumnSpec, resolve: (c: AnyColumn) => Col): unknown;
  constraint(c: Constraint, resolve: (c: AnyColumn) => Col): unknown;
  table(
    name: string,
    columns: Record<string, unknown>,
    extra?: (self: unknown) => unknown[],
  ): unknown;
}

/** Every table of `declarations` built by `dialect`, under the same keys. */
export function buildTables<Col>(
  declarations: Record<string, AnyTable>,
  dialect: Dialect<Col>,
): Record<string, unknown> {
  const built = new Map<AnyTable, Record<string, Col>>();
  /** Another table's column (references are resolved lazily, so order does not matter). */
  const resolve = (c: AnyColumn): Col => {
    const { table, key } = ownerOf(c);
    const t = built.get(table);
    if (!t) throw new Error(`${table[TABLE].name} is not among the tables built`);
    return t[key] as Col;
  };
  const out: Record<string, unknown> = {};
  for (const [exportName, decl] of Object.entries(declarations)) {
    const spec = decl[TABLE];
    const columns = Object.fromEntries(
      Object.entries(spec.columns).map(([k, c]) => [k, dialect.column(c.spec, resolve)]),
    );
    // Constraints get the table's own columns from drizzle (`self`, as a hand-written table
    // does: PostgreSQL indexes need its extra-config columns), other tables' from `built`.
    const extra =
      spec.constraints &&
      ((self: unknown) => {
        const own = self as Record<string, Col>;
        const local = (c: AnyColumn): Col => {
          const { table, key } = ownerOf(c);
          return table === decl ? (own[key] as Col) : resolve(c);
        };
        return (spec.constraints?.(spec.columns) ?? []).map((c) => dialect.constraint(c, local));
      });
    const t = dialect.table(spec.name, columns, extra);
    built.set(decl, t as Record<string, Col>);
    out[exportName] = t;
  }
  return out;
}
