// The SQL of each transform box over the tables of its inputs. Column names come from the
// inputs' own tables (quoted); values and expressions come from the AQL expression compiler.
import { closest } from '../aql/suggest.js';
import { ident } from '../data/databases.js';
import type { Box } from './flow-def.js';
import { BoxError } from './errors.js';
import { compileFlowExpr, type FlowColumn } from './expressions.js';

export interface InputTable {
  box: string;
  table: string;
  columns: FlowColumn[];
}

/** A column of `input` by name (DuckDB names ignore case), or an error with the closest. */
export function column(input: InputTable, name: string, box: string, field: string): FlowColumn {
  const found = input.columns.find((c) => c.name.toLowerCase() === name.toLowerCase());
  if (found) return found;
  const names = input.columns.map((c) => c.name);
  const near = closest(name, names, 3);
  throw new BoxError(
    box,
    field,
    `unknown column "${name}" in the rows of "${input.box}"${near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(', ')}?` : ''} Its columns: ${names
      .slice(0, 50)
      .map((n) => `"${n}"`)
      .join(', ')}`,
  );
}

/** The SELECT computing `box` from its inputs. */
export function transformSql(box: Box, inputs: InputTable[], today: string): string {
  const [u] = inputs as [InputTable];
  const from = `FROM ${ident(u.table)}`;
  const expr = (text: string, kind: 'condition' | 'value' | 'measure', field: string) =>
    compileFlowExpr(text, kind, u.columns, box.id, field, today).sql;
  switch (box.type) {
    case 'transform.filter':
      return `SELECT * ${from} WHERE ${expr(String(box.condition), 'condition', 'condition')}`;
    case 'transform.derive': {
      const replace: string[] = [];
      const add: string[] = [];
      for (const [name, text] of Object.entries(box.columns as Record<string, string>)) {
        const sql = expr(text, 'value', `columns.${name}`);
        const existing = u.columns.find((c) => c.name.toLowerCase() === name.toLowerCase());
        if (existing) replace.push(`${sql} AS ${ident(existing.name)}`);
        else add.push(`${sql} AS ${ident(name)}`);
      }
      const star = replace.length ? `* REPLACE (${replace.join(', ')})` : '*';
      return `SELECT ${[star, ...add].join(', ')} ${from}`;
    }
    case 'transform.select': {
      const cols = box.columns as string[] | Record<string, string>;
      const pairs: Array<[string, string]> = Array.isArray(cols)
        ? cols.map((c) => [c, c])
        : Object.entries(cols);
      const seen = new Set<string>();
      const items = pairs.map(([to, fromName]) => {
        const c = column(u, fromName, box.id, 'columns');
        if (seen.has(to.toLowerCase()))
          throw new BoxError(box.id, 'columns', `column "${to}" is named twice`);
        seen.add(to.toLowerCase());
        return `${ident(c.name)} AS ${ident(to)}`;
      });
      return `SELECT ${items.join(', ')} ${from}`;
    }
    case 'transform.aggregate': {
      const groups = (box.groupby as string[]).map((g, i) =>
        ident(column(u, g, box.id, `groupby.${i}`).name),
      );
      const measures = Object.entries(box.measures as Record<string, string>).map(
        ([name, text]) => {
          if (groups.some((g) => g.toLowerCase() === ident(name).toLowerCase()))
            throw new BoxError(box.id, `measures.${name}`, `"${name}" is also a group-by column`);
          return `${expr(text, 'measure', `measures.${name}`)} AS ${ident(name)}`;
        },
      );
      return `SELECT ${[...groups, ...measures].join(', ')} ${from}${groups.length ? ` GROUP BY ${groups.join(', ')}` : ''}`;
    }
    case 'transform.join':
      return joinSql(box, inputs);
    case 'transform.union':
      return inputs.map((i) => `SELECT * FROM ${ident(i.table)}`).join(' UNION ALL BY NAME ');
    case 'transform.sort': {
      const by = (box.by as Array<{ column: string; desc?: boolean }>).map(
        (b, i) =>
          `${ident(column(u, b.column, box.id, `by.${i}.column`).name)} ${b.desc ? 'DESC' : 'ASC'} NULLS LAST`,
      );
      return `SELECT * ${from} ORDER BY ${by.join(', ')}`;
    }
    case 'transform.dedupe': {
      const cols = box.columns as string[] | undefined;
      if (!cols) return `SELECT DISTINCT * ${from}`;
      const on = cols.map((c, i) => ident(column(u, c, box.id, `columns.${i}`).name));
      return `SELECT DISTINCT ON (${on.join(', ')}) * ${from}`;
    }
    case 'transform.limit':
      return `SELECT * ${from} LIMIT ${Number(box.rows)}`;
    default:
      throw new BoxError(box.id, 'type', `${box.type} is not a transform`);
  }
}

const KIND_WORDS: Record<string, string> = {
  string: 'text',
  integer: 'a number',
  number: 'a number',
  date: 'a date',
  datetime: 'a date and time',
  boolean: 'true/false',
};
const kindOf = (c: FlowColumn) =>
  c.type === 'integer' || c.type === 'number' ? 'number' : c.type === 'datetime' ? 'date' : c.type;

function joinSql(box: Box, inputs: InputTable[]): string {
  const left = inputs.find((i) => i.box === box.left)!;
  const right = inputs.find((i) => i.box === box.right)!;
  const how = ({ inner: 'INNER', left: 'LEFT', full: 'FULL' } as const)[
    (box.how as 'inner' | 'left' | 'full' | undefined) ?? 'inner'
  ];
  const keys = (box.on as Array<[string, string]>).map(([l, r], i) => {
    const lc = column(left, l, box.id, `on.${i}.0`);
    const rc = column(right, r, box.id, `on.${i}.1`);
    if (kindOf(lc) !== kindOf(rc))
      throw new BoxError(
        box.id,
        `on.${i}`,
        `type mismatch: "${lc.name}" of "${left.box}" is ${KIND_WORDS[lc.type ?? ''] ?? lc.duck}, "${rc.name}" of "${right.box}" is ${KIND_WORDS[rc.type ?? ''] ?? rc.duck}; derive one to the other's type first`,
      );
    return { lc, rc };
  });
  const taken = new Set(left.columns.map((c) => c.name.toLowerCase()));
  const sameKey = new Map(
    keys
      .filter((k) => k.lc.name.toLowerCase() === k.rc.name.toLowerCase())
      .map((k) => [k.rc.name.toLowerCase(), k]),
  );
  const items = left.columns.map((c) => {
    const k = sameKey.get(c.name.toLowerCase());
    // A full join's key is whichever side has it.
    return how === 'FULL' && k
      ? `COALESCE(l.${ident(k.lc.name)}, r.${ident(k.rc.name)}) AS ${ident(c.name)}`
      : `l.${ident(c.name)}`;
  });
  for (const c of right.columns) {
    if (sameKey.has(c.name.toLowerCase())) continue;
    let name = c.name;
    for (let n = 1; taken.has(name.toLowerCase()); n++)
      name = `${c.name}_${right.box}${n > 1 ? `_${n}` : ''}`;
    taken.add(name.toLowerCase());
    items.push(`r.${ident(c.name)} AS ${ident(name)}`);
  }
  const on = keys.map((k) => `l.${ident(k.lc.name)} = r.${ident(k.rc.name)}`).join(' AND ');
  return `SELECT ${items.join(', ')} FROM ${ident(left.table)} AS l ${how} JOIN ${ident(right.table)} AS r ON ${on}`;
}
