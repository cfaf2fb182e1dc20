// DuckDB SQL text for names and literals that take no parameters (ATTACH, read_csv options),
// shared by the dataset versions (databases.ts) and their writer (version-writer.ts).

/** A DuckDB identifier, quoted. Identifiers only ever come from validated model ids. */
export const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * A file path as a DuckDB string literal naming exactly that file. DuckDB's readers take
 * `*`, `?` and `[` in a path as a glob (`/in/report[1].csv` would read `/in/report1.csv`), so
 * each becomes a one-character class: `[*]`, `[?]`, `[[]`.
 */
export const fileLit = (file: string): string =>
  `'${file.replace(/[*?[]/g, (c) => `[${c}]`).replace(/'/g, "''")}'`;

/** A SQL string literal (for read_csv options, ATTACH and SET, which take no parameters). */
export const lit = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** The table holding a dataset's rows (in its version file; reads find it on their search path). */
export const datasetTable = (cluster: string): string => ident(`ds_${cluster}`);
