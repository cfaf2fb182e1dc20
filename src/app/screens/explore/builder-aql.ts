// The query builder's shape and its AQL: measures (metrics, aggregated facts, counts of a
// dataset), dimensions (attributes, labels, a date by month or year), filters (values of an
// attribute or not those, text it contains or not, a number compared or between two, a date
// period), the sort and the top N. `toAql` writes it; `fromAql` reads a text back when it has
// exactly that shape (null otherwise: the text was edited by hand beyond what the builder shows).
import type { ModelObject } from './complete.js';

export const AGGREGATIONS = [
  ['SUM', 'Sum'],
  ['AVG', 'Average'],
  ['MIN', 'Minimum'],
  ['MAX', 'Maximum'],
] as const;
export type Agg = (typeof AGGREGATIONS)[number][0];

export const PERIODS = [
  ['last7', 'Last 7 days'],
  ['last30', 'Last 30 days'],
  ['last90', 'Last 90 days'],
  ['week', 'This week'],
  ['month', 'This month'],
  ['quarter', 'This quarter'],
  ['year', 'This year'],
  ['ytd', 'Year to date'],
  ['prevyear', 'Previous year'],
  ['between', 'Between two dates'],
] as const;
export type Period = (typeof PERIODS)[number][0];
const LAST_DAYS: Partial<Record<Period, number>> = { last7: 7, last30: 30, last90: 90 };
/** Periods that are the calendar unit holding today (DATE_TRUNC of both sides equal). */
const UNITS = ['week', 'month', 'quarter', 'year'] as const;
type Unit = (typeof UNITS)[number];
const isUnit = (s: string): s is Unit => (UNITS as readonly string[]).includes(s);

/** Comparisons a number filter offers (equality is the values filter's). */
export const COMPARISONS = [
  ['>', 'greater than'],
  ['>=', 'at least'],
  ['<', 'less than'],
  ['<=', 'at most'],
  ['between', 'between'],
] as const;
export type Comparison = (typeof COMPARISONS)[number][0];

export type Measure =
  | ({ alias?: string } & (
      | { kind: 'metric'; ref: string }
      | { kind: 'fact'; ref: string; agg: Agg }
      | { kind: 'count'; dataset: string }
    ))
  /** A custom expression, written as it is, under its name: `SUM([A]) / SUM([B]) AS "Share"`. */
  | { kind: 'formula'; aql: string; alias: string };
export interface Dimension {
  ref: string;
  /** A date attribute grouped by month or year (DATE_TRUNC). */
  trunc?: 'month' | 'year';
  alias?: string;
}
export type Filter =
  /** One of the values, or (`not`) none of them. */
  | { ref: string; values: string[]; not?: boolean }
  /** Text containing `text`, ignoring case, or (`not`) not containing it. */
  | { ref: string; contains: string; not?: boolean }
  | { ref: string; cmp: Exclude<Comparison, 'between'>; value: string }
  | { ref: string; cmp: 'between'; from: string; to: string }
  | { ref: string; period: Exclude<Period, 'between'> }
  | { ref: string; period: 'between'; from: string; to: string };
/** The column the rows are sorted by: its position (1 = the first column), descending or not. */
export interface Sort {
  col: number;
  desc: boolean;
}
export interface Built {
  measures: Measure[];
  dims: Dimension[];
  filters: Filter[];
  sort?: Sort;
  /** Only the first rows (after the sort): a top N. */
  limit?: number;
}

export const EMPTY: Built = { measures: [], dims: [], filters: [] };

/** The model as the builder reads it: objects by identifier and by title, datasets. */
export interface BuilderModel {
  byIdent: Map<string, ModelObject>;
  byTitle: Map<string, ModelObject>;
  datasets: string[];
}

export function builderModel(objects: ModelObject[]): BuilderModel {
  const byIdent = new Map(objects.map((o) => [o.ident, o]));
  const byTitle = new Map(objects.map((o) => [o.name.trim().toLowerCase(), o]));
  const datasets = [
    ...new Set(
      objects.flatMap((o) =>
        (o.type === 'attribute' || o.type === 'fact') && o.def?.dataset ? [o.def.dataset] : [],
      ),
    ),
  ].sort();
  return { byIdent, byTitle, datasets };
}

export const isDate = (o: ModelObject | undefined) =>
  o?.def?.dataType === 'date' || o?.def?.dataType === 'datetime';
/** A number to compare: a fact, or an attribute of numbers. */
export const isNumber = (o: ModelObject | undefined) =>
  o?.type === 'fact' || o?.def?.dataType === 'integer' || o?.def?.dataType === 'number';
const NUM = /^-?\d+(\.\d+)?$/;

const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
/** A reference by title (what people read), or by identifier when the title is unknown. */
const refText = (m: BuilderModel, ident: string) => `[${m.byIdent.get(ident)?.name ?? ident}]`;
const titleOf = (m: BuilderModel, ident: string) => m.byIdent.get(ident)?.name ?? ident;

/** The title a builder column gets (its alias): "Sum of Distance", "Count of flights". */
export function measureTitle(m: BuilderModel, x: Measure): string {
  if (x.alias) return x.alias;
  if (x.kind === 'formula') return x.aql;
  if (x.kind === 'metric') return titleOf(m, x.ref);
  if (x.kind === 'count') return `Count of ${x.dataset}`;
  return `${AGGREGATIONS.find(([a]) => a === x.agg)![1]} of ${titleOf(m, x.ref)}`;
}

export const dimensionTitle = (m: BuilderModel, d: Dimension): string =>
  d.alias ?? (d.trunc ? `${titleOf(m, d.ref)} (${d.trunc})` : titleOf(m, d.ref));

function measureAql(m: BuilderModel, x: Measure): string {
  const as = ` AS ${quote(measureTitle(m, x))}`;
  if (x.kind === 'formula') return `${x.aql.trim()}${as}`;
  if (x.kind === 'metric') return x.alias ? `${refText(m, x.ref)}${as}` : refText(m, x.ref);
  if (x.kind === 'count') return `COUNT([dataset.${x.dataset}])${as}`;
  return `${x.agg}(${refText(m, x.ref)})${as}`;
}

function dimensionAql(m: BuilderModel, d: Dimension): string {
  if (d.trunc)
    return `DATE_TRUNC(${quote(d.trunc)}, ${refText(m, d.ref)}) AS ${quote(dimensionTitle(m, d))}`;
  return d.alias ? `${refText(m, d.ref)} AS ${quote(d.alias)}` : refText(m, d.ref);
}

/** A value as AQL: numbers and booleans of such attributes bare, text quoted. */
function valueAql(o: ModelObject | undefined, v: string): string {
  const t = o?.def?.dataType;
  if ((t === 'integer' || t === 'number') && /^-?\d+(\.\d+)?$/.test(v)) return v;
  if (t === 'boolean' && /^(true|false)$/i.test(v)) return v.toUpperCase();
  return quote(v);
}

function filterAql(m: BuilderModel, f: Filter): string {
  const o = m.byIdent.get(f.ref);
  const r = refText(m, f.ref);
  if ('values' in f)
    return f.values.length === 1
      ? `${r} ${f.not ? '<>' : '='} ${valueAql(o, f.values[0]!)}`
      : `${r} ${f.not ? 'NOT IN' : 'IN'} (${f.values.map((v) => valueAql(o, v)).join(', ')})`;
  if ('contains' in f) return `${r} ${f.not ? 'NOT ILIKE' : 'ILIKE'} ${quote(`%${f.contains}%`)}`;
  if ('cmp' in f)
    return f.cmp === 'between' ? `${r} BETWEEN ${f.from} AND ${f.to}` : `${r} ${f.cmp} ${f.value}`;
  // A date and time is compared by its day, so the last day of a range counts whole.
  const day = o?.def?.dataType === 'datetime' ? `DATE_TRUNC("day", ${r})` : r;
  const last = LAST_DAYS[f.period];
  if (last) return `${day} BETWEEN DATE_ADD("day", -${last - 1}, TODAY()) AND TODAY()`;
  if (f.period === 'between') return `${day} BETWEEN ${quote(f.from)} AND ${quote(f.to)}`;
  if (f.period === 'ytd') return `${day} BETWEEN DATE_TRUNC("year", TODAY()) AND TODAY()`;
  if (f.period === 'prevyear')
    return `DATE_TRUNC("year", ${r}) = DATE_TRUNC("year", DATE_ADD("year", -1, TODAY()))`;
  return `DATE_TRUNC(${quote(f.period)}, ${r}) = DATE_TRUNC(${quote(f.period)}, TODAY())`;
}

/** Whether a filter is complete enough to write (a value chosen, both ends given). */
export function filterReady(f: Filter): boolean {
  if ('values' in f) return f.values.length > 0;
  if ('contains' in f) return f.contains.trim() !== '';
  if ('cmp' in f)
    return f.cmp === 'between' ? NUM.test(f.from) && NUM.test(f.to) : NUM.test(f.value);
  return f.period !== 'between' || (!!f.from && !!f.to);
}

/** The AQL of a built query; '' while it has no column. */
export function toAql(m: BuilderModel, b: Built): string {
  const items = [
    ...b.dims.map((d) => dimensionAql(m, d)),
    ...b.measures.map((x) => measureAql(m, x)),
  ];
  if (!items.length) return '';
  const conds = b.filters.filter(filterReady).map((f) => filterAql(m, f));
  const sort = b.sort && b.sort.col <= items.length ? b.sort : undefined;
  return [
    `SELECT ${items.join(', ')}`,
    ...(conds.length ? [`WHERE ${conds.join('\n  AND ')}`] : []),
    ...(sort ? [`ORDER BY ${sort.col}${sort.desc ? ' DESC' : ''}`] : []),
    ...(b.limit ? [`LIMIT ${b.limit}`] : []),
  ].join('\n');
}

/** The columns of a built query in the order of its SELECT: breakdowns, then measures. */
export const columnTitles = (m: BuilderModel, b: Built): string[] => [
  ...b.dims.map((d) => dimensionTitle(m, d)),
  ...b.measures.map((x) => measureTitle(m, x)),
];

/** The built query without column `col` (1-based), its sort following the columns. */
export function withoutColumn(b: Built, col: number): Built {
  const nd = b.dims.length;
  const next: Built = {
    ...b,
    dims: b.dims.filter((_, j) => j + 1 !== col),
    measures: b.measures.filter((_, j) => nd + j + 1 !== col),
  };
  if (!b.sort || b.sort.col < col) return next;
  if (b.sort.col === col) return { ...next, sort: undefined };
  return { ...next, sort: { ...b.sort, col: b.sort.col - 1 } };
}

/** The sort after clicking column `col`: descending first, then ascending, then none. */
export function nextSort(current: Sort | undefined, col: number): Sort | undefined {
  if (current?.col !== col) return { col, desc: true };
  return current.desc ? { col, desc: false } : undefined;
}

/**
 * A column title the engine wrote as the item's text (`SUM([Distance])`, `COUNT([Flight])`:
 * no alias) in words, as the builder titles its columns: "Sum of Distance". Others as given.
 */
export function readableTitle(title: string): string {
  const m = /^\s*(SUM|AVG|MIN|MAX|COUNT)\s*\(\s*\[([^\]]+)\]\s*\)\s*$/i.exec(title);
  if (!m) return title;
  const fn = m[1]!.toUpperCase();
  const name = AGGREGATIONS.find(([a]) => a === fn)?.[1] ?? 'Count';
  return `${name} of ${m[2]!.trim().replace(/^dataset\./, '')}`;
}

// ---- reading AQL back ----

type Token = (
  | { t: 'ref'; v: string }
  | { t: 'str'; v: string }
  | { t: 'num'; v: string }
  | { t: 'word'; v: string }
  | { t: 'sym'; v: string }
) & {
  /** Where it starts and ends in the text (a formula is kept as written). */
  s: number;
  e: number;
};

/** Tokens of the text, or null when it holds something the builder never writes (comments). */
function tokenize(text: string): Token[] | null {
  const out: Token[] = [];
  const re =
    /\s+|\[([^\]]*)\]|"((?:[^"]|"")*)"|(\d+(?:\.\d+)?)|([A-Za-z_][A-Za-z_0-9]*)|(<>|<=|>=|!=|\|\||[(),=<>+*/%.-])/y;
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('--', i) || text.startsWith('/*', i)) return null;
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) return null;
    const at = { s: i, e: re.lastIndex };
    i = re.lastIndex;
    if (m[1] !== undefined) out.push({ t: 'ref', v: m[1].trim(), ...at });
    else if (m[2] !== undefined) out.push({ t: 'str', v: m[2].replace(/""/g, '"'), ...at });
    else if (m[3] !== undefined) out.push({ t: 'num', v: m[3], ...at });
    else if (m[4] !== undefined) out.push({ t: 'word', v: m[4].toUpperCase(), ...at });
    else if (m[5] !== undefined) out.push({ t: 'sym', v: m[5], ...at });
  }
  return out;
}

class Fail extends Error {}

/** The built query the text is, or null when it is not of the builder's shape. */
export function fromAql(m: BuilderModel, text: string): Built | null {
  if (!text.trim()) return EMPTY;
  const found = tokenize(text);
  if (!found) return null;
  const tokens: Token[] = found;
  let i = 0;
  const peek = (k = 0) => tokens[i + k];
  const isWord = (w: string, k = 0) => peek(k)?.t === 'word' && peek(k)!.v === w;
  const isSym = (s: string, k = 0) => peek(k)?.t === 'sym' && peek(k)!.v === s;
  const fail = (): never => {
    throw new Fail();
  };
  const word = (w: string) => (isWord(w) ? void i++ : fail());
  const sym = (s: string) => (isSym(s) ? void i++ : fail());
  const take = <T extends Token['t']>(t: T): Extract<Token, { t: T }>['v'] => {
    const x = peek();
    if (x?.t !== t) fail();
    i++;
    return x!.v;
  };
  const object = (ref: string, ...types: string[]) => {
    const o = m.byIdent.get(ref) ?? m.byTitle.get(ref.toLowerCase());
    return o && types.includes(o.type) ? o : fail();
  };
  const alias = () => (isWord('AS') ? (i++, take('str')) : undefined);
  const today = () => (word('TODAY'), sym('('), sym(')'));

  /** An item the builder offers: a date by month or year, an aggregation, an object. */
  function item(): void {
    if (isWord('DATE_TRUNC')) {
      i++;
      sym('(');
      const unit = take('str').toLowerCase();
      sym(',');
      const o = object(take('ref'), 'attribute');
      sym(')');
      if ((unit !== 'month' && unit !== 'year') || !isDate(o)) fail();
      const d: Dimension = { ref: o.ident, trunc: unit as 'month' | 'year' };
      const a = alias();
      dims.push(a && a !== dimensionTitle(m, d) ? { ...d, alias: a } : d);
    } else if (peek()?.t === 'word' && (isWord('COUNT') || AGGREGATIONS.some(([a]) => isWord(a)))) {
      const fn = take('word');
      sym('(');
      const ref = take('ref');
      sym(')');
      let x: Measure;
      if (fn === 'COUNT') {
        const ds = ref.startsWith('dataset.') ? ref.slice(8) : fail();
        if (!m.datasets.includes(ds)) fail();
        x = { kind: 'count', dataset: ds };
      } else x = { kind: 'fact', ref: object(ref, 'fact').ident, agg: fn as Agg };
      const a = alias();
      measures.push(a && a !== measureTitle(m, x) ? { ...x, alias: a } : x);
    } else {
      const o = object(take('ref'), 'attribute', 'label', 'metric');
      const a = alias();
      if (o.type === 'metric')
        measures.push({ kind: 'metric', ref: o.ident, ...(a ? { alias: a } : {}) });
      else dims.push({ ref: o.ident, ...(a ? { alias: a } : {}) });
    }
  }

  /** Whether the SELECT item ends here (a comma, a clause, the end). */
  function atItemEnd(): boolean {
    return (
      i === tokens.length || isSym(',') || isWord('WHERE') || isWord('ORDER') || isWord('LIMIT')
    );
  }

  /** `expression AS "name"`: the expression kept as written, balanced, without a top comma. */
  function formula(): void {
    const start = i;
    let depth = 0;
    while (i < tokens.length) {
      if (depth === 0 && isWord('AS') && peek(1)?.t === 'str') break;
      if (depth === 0 && (isSym(',') || isWord('WHERE') || isWord('ORDER') || isWord('LIMIT')))
        fail();
      if (isSym('(')) depth++;
      if (isSym(')') && --depth < 0) fail();
      i++;
    }
    if (i === start || i === tokens.length || depth !== 0) fail();
    const aql = text.slice(tokens[start]!.s, tokens[i - 1]!.e);
    i++;
    const name = take('str');
    if (!atItemEnd()) fail();
    measures.push({ kind: 'formula', aql, alias: name });
  }

  const measures: Measure[] = [];
  const dims: Dimension[] = [];
  const filters: Filter[] = [];
  try {
    word('SELECT');
    do {
      const start = i;
      const counts = [measures.length, dims.length] as const;
      try {
        item();
        if (!atItemEnd()) fail();
      } catch (e) {
        if (!(e instanceof Fail)) throw e;
        // Not one of the builder's items: a formula (an expression with a name), or nothing.
        i = start;
        measures.length = counts[0];
        dims.length = counts[1];
        formula();
      }
    } while (isSym(',') && ++i);
    if (isWord('WHERE')) {
      i++;
      do filters.push(condition());
      while (isWord('AND') && ++i);
    }
    let sort: Sort | undefined;
    if (isWord('ORDER')) {
      i++;
      word('BY');
      const col = Number(take('num'));
      if (!Number.isInteger(col) || col < 1 || col > dims.length + measures.length) fail();
      const desc = isWord('DESC') ? (i++, true) : isWord('ASC') ? (i++, false) : false;
      sort = { col, desc };
    }
    let limit: number | undefined;
    if (isWord('LIMIT')) {
      i++;
      limit = Number(take('num'));
      if (!Number.isInteger(limit) || limit < 1) fail();
    }
    if (i !== tokens.length) fail();
    return {
      measures,
      dims,
      filters,
      ...(sort ? { sort } : {}),
      ...(limit ? { limit } : {}),
    };
  } catch (e) {
    if (e instanceof Fail) return null;
    throw e;
  }

  /** A number, perhaps negative: the text of it. */
  function number(): string {
    const minus = isSym('-') ? (i++, '-') : '';
    return minus + take('num');
  }

  function condition(): Filter {
    if (isWord('DATE_TRUNC') && !(peek(2)?.t === 'str' && peek(2)!.v.toLowerCase() === 'day')) {
      // DATE_TRUNC("month", [d]) = DATE_TRUNC("month", TODAY()), or the previous year's:
      // DATE_TRUNC("year", [d]) = DATE_TRUNC("year", DATE_ADD("year", -1, TODAY()))
      i++;
      sym('(');
      const unit = take('str').toLowerCase();
      sym(',');
      const o = object(take('ref'), 'attribute');
      sym(')');
      sym('=');
      word('DATE_TRUNC');
      sym('(');
      if (take('str').toLowerCase() !== unit) fail();
      sym(',');
      let previous = false;
      if (isWord('DATE_ADD')) {
        i++;
        sym('(');
        if (take('str').toLowerCase() !== 'year') fail();
        sym(',');
        sym('-');
        if (take('num') !== '1') fail();
        sym(',');
        today();
        sym(')');
        previous = true;
      } else today();
      sym(')');
      if (!isUnit(unit) || !isDate(o) || (previous && unit !== 'year')) fail();
      return { ref: o.ident, period: previous ? 'prevyear' : (unit as Unit) };
    }
    let o: ModelObject;
    if (isWord('DATE_TRUNC')) {
      i += 2; // DATE_TRUNC (
      take('str');
      sym(',');
      o = object(take('ref'), 'attribute');
      sym(')');
      if (o.def?.dataType !== 'datetime' || !isWord('BETWEEN')) fail();
    } else o = object(take('ref'), 'attribute', 'label', 'fact');
    if (o.type === 'fact' && !isWord('BETWEEN') && !['>', '>=', '<', '<='].some((c) => isSym(c)))
      fail();
    if (isWord('BETWEEN') && !isDate(o)) {
      // [n] BETWEEN 1 AND 5
      i++;
      if (!isNumber(o)) fail();
      const from = number();
      word('AND');
      return { ref: o.ident, cmp: 'between', from, to: number() };
    }
    const cmp = (['>', '>=', '<', '<='] as const).find((c) => isSym(c));
    if (cmp && peek(1)?.t !== 'str') {
      i++;
      if (!isNumber(o)) fail();
      return { ref: o.ident, cmp, value: number() };
    }
    if (isWord('BETWEEN')) {
      i++;
      if (!isDate(o) || (o.def?.dataType === 'datetime') !== (tokens[i - 2]?.t === 'sym')) fail();
      if (isWord('DATE_TRUNC')) {
        // Year to date: BETWEEN DATE_TRUNC("year", TODAY()) AND TODAY()
        i++;
        sym('(');
        if (take('str').toLowerCase() !== 'year') fail();
        sym(',');
        today();
        sym(')');
        word('AND');
        today();
        return { ref: o.ident, period: 'ytd' };
      }
      if (isWord('DATE_ADD')) {
        i++;
        sym('(');
        if (take('str').toLowerCase() !== 'day') fail();
        sym(',');
        sym('-');
        const n = Number(take('num')) + 1;
        sym(',');
        today();
        sym(')');
        word('AND');
        today();
        const period = (Object.keys(LAST_DAYS) as Period[]).find((p) => LAST_DAYS[p] === n);
        return period ? { ref: o.ident, period: period as 'last7' } : fail();
      }
      const from = take('str');
      word('AND');
      const to = take('str');
      const day = /^\d{4}-\d{2}-\d{2}$/;
      return day.test(from) && day.test(to)
        ? { ref: o.ident, period: 'between', from, to }
        : fail();
    }
    if (isDate(o)) fail();
    const value = () => {
      const x = peek();
      if (
        x?.t === 'str' ||
        x?.t === 'num' ||
        (x?.t === 'word' && (x.v === 'TRUE' || x.v === 'FALSE'))
      ) {
        i++;
        return x.t === 'word' ? x.v.toLowerCase() : x.v;
      }
      return fail();
    };
    if (isSym('=') || isSym('<>')) {
      const not = take('sym') === '<>';
      return { ref: o.ident, values: [value()], ...(not ? { not } : {}) };
    }
    const not = isWord('NOT') ? (i++, true) : false;
    const flag = not ? { not } : {};
    if (isWord('ILIKE')) {
      i++;
      const pattern = /^%(.*)%$/s.exec(take('str'));
      return pattern && pattern[1] ? { ref: o.ident, contains: pattern[1], ...flag } : fail();
    }
    word('IN');
    sym('(');
    const values = [value()];
    while (isSym(',')) {
      i++;
      values.push(value());
    }
    sym(')');
    return { ref: o.ident, values, ...flag };
  }
}
