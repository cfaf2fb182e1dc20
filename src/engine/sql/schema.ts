// The model as a SQL schema: each dataset a table whose columns are its attributes, labels and
// facts by title, and a `metrics` table whose columns are the saved metrics. Only what the
// member may read is in it (the catalog's visibility), so a hidden object is an unknown column.

export type ColumnKind = 'attribute' | 'label' | 'fact' | 'metric';

export interface SqlColumn {
  /** The column's name: the object's title. */
  name: string;
  /** The object's identifier, as AQL references it (`[attr.flights.origin]`). */
  ident: string;
  kind: ColumnKind;
  /** AQL's data type: string, integer, number, date, datetime, boolean. */
  dataType: string;
  description?: string;
  /** The dataset an attribute references (a foreign key). */
  references?: string;
  primaryKey?: boolean;
}

export interface SqlTable {
  name: string;
  /** The dataset; null for the metrics table. */
  dataset: string | null;
  description?: string;
  columns: SqlColumn[];
  /** By lower-case name: titles are unique in any case across a project. */
  byName: Map<string, SqlColumn>;
  key: SqlColumn | null;
}

export interface SqlSchema {
  tables: Map<string, SqlTable>;
}

export const METRICS_TABLE = 'metrics';

export interface ModelShape {
  datasets: {
    name: string;
    description?: string;
    columns: {
      id: string;
      title: string;
      type: 'attribute' | 'label' | 'fact';
      dataType: string;
      description?: string;
      references?: string;
      primaryKey?: boolean;
    }[];
  }[];
  metrics: { id: string; title: string; description?: string }[];
}

function table(
  name: string,
  dataset: string | null,
  columns: SqlColumn[],
  description?: string,
): SqlTable {
  return {
    name,
    dataset,
    ...(description ? { description } : {}),
    columns,
    byName: new Map(columns.map((c) => [c.name.toLowerCase(), c])),
    key: columns.find((c) => c.primaryKey) ?? null,
  };
}

export function sqlSchema(model: ModelShape): SqlSchema {
  const tables = new Map<string, SqlTable>();
  for (const d of model.datasets) {
    const columns: SqlColumn[] = d.columns.map((c) => ({
      name: c.title,
      ident: c.id,
      kind: c.type,
      dataType: c.dataType,
      ...(c.description ? { description: c.description } : {}),
      ...(c.references ? { references: c.references } : {}),
      ...(c.primaryKey ? { primaryKey: true } : {}),
    }));
    tables.set(d.name.toLowerCase(), table(d.name, d.name, columns, d.description));
  }
  // A dataset named "metrics" keeps its name; the metrics are then only MEASURE("…").
  if (!tables.has(METRICS_TABLE) && model.metrics.length)
    tables.set(
      METRICS_TABLE,
      table(
        METRICS_TABLE,
        null,
        model.metrics.map((m) => ({
          name: m.title,
          ident: m.id,
          kind: 'metric' as const,
          dataType: 'number',
          ...(m.description ? { description: m.description } : {}),
        })),
        "The project's saved metrics: each column a measure, next to any table's columns.",
      ),
    );
  return { tables };
}
