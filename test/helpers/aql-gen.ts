// Random AQL for fuzzing: a grammar-based arbitrary over a project's real object titles and
// identifiers (mostly well-typed, sometimes not), mutations of generated queries (tokens
// deleted, duplicated, swapped; truncation; stray characters, brackets, quotes; huge
// numbers; unicode) and a few very long or deeply nested inputs.
import fc from 'fast-check';

export interface Vocabulary {
  /** Attributes and labels (with their data type), by title and by identifier. */
  attributes: Name[];
  dates: Name[];
  facts: Name[];
  metrics: Name[];
  filters: Name[];
}

export interface Name {
  title: string;
  ident: string;
  /** string, integer, number, date, boolean (attributes, labels and facts). */
  dataType?: string;
}

type Arb = fc.Arbitrary<string>;

const join = (parts: string[]) => parts.join(' ');

/** A keyword or function name in a random letter case. */
function anyCase(word: string): Arb {
  return fc.constantFrom(word, word.toLowerCase(), word[0] + word.slice(1).toLowerCase(), word);
}

/** `[Title]` or `[ident]`, sometimes in another case or padded; now and then unknown. */
function ref(names: Name[]): Arb {
  if (!names.length) return fc.constant('[Nothing Here]');
  return fc
    .tuple(
      fc.constantFrom(...names),
      fc.nat(49),
      fc.constantFrom('', '', '', ' ', '  '),
      fc.constantFrom('', '', ' '),
    )
    .map(([n, how, pre, post]) => {
      const text =
        how < 30
          ? n.title
          : how < 42
            ? n.ident
            : how < 45
              ? n.title.toUpperCase()
              : how < 49
                ? n.title.toLowerCase()
                : `${n.title}x`; // unknown: "did you mean"
      return `[${pre}${text}${post}]`;
    });
}

const INTS = [
  '0',
  '1',
  '2',
  '5',
  '10',
  '100',
  '2024',
  '2147483647',
  '2147483648',
  '9007199254740991',
  '9007199254740993',
  '99999999999999999999',
  '1e308',
  '1e400',
  '1.5',
  '.5',
  '5.',
  '0.0000001',
  '1E-7',
  '3e2',
  '00012',
];

const number: Arb = fc.oneof(
  fc.constantFrom(...INTS),
  fc.nat(3000).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: 0 }).map((d) => String(d)),
  fc.bigInt({ min: 0n, max: 10n ** 40n }).map(String),
);

function quoted(s: string, q: '"' | "'"): string {
  return q + s.split(q).join(q + q) + q;
}

const STRINGS = [
  'CA',
  'NY',
  'TX',
  'West',
  'East',
  'ATL',
  'SFO',
  'AA',
  '2024-03-31',
  '2025-01-01',
  '2024-02-30',
  '2024-13-01',
  '2024-1-5',
  '2024-03-31 10:00:00',
  'abc',
  '',
  ' ',
  '5',
  '1e5',
  '-3.5',
  '0x10',
  'true',
  '%A%',
  '_',
  '\\',
  "it's",
  'say "hi"',
  '[Distance]',
  '-- not a comment',
  '/* nor this */',
  "'; DROP TABLE ds_flights; --",
  'ünïcødé ✈ 東京 🛫',
  '\u0000',
  '\u202e',
];

const string: Arb = fc
  .tuple(
    fc.oneof(fc.constantFrom(...STRINGS), fc.string({ maxLength: 12, unit: 'grapheme' })),
    fc.constantFrom<'"' | "'">('"', "'"),
  )
  .map(([s, q]) => quoted(s, q));

const literal: Arb = fc.oneof(
  { arbitrary: number, weight: 4 },
  { arbitrary: string, weight: 4 },
  { arbitrary: anyCase('TRUE'), weight: 1 },
  { arbitrary: anyCase('FALSE'), weight: 1 },
  { arbitrary: anyCase('NULL'), weight: 1 },
);

const cmpOp = fc.constantFrom('=', '<>', '!=', '<', '<=', '>', '>=');
const arithOp = fc.constantFrom('+', '-', '*', '/');
const AGGS = ['SUM', 'AVG', 'MIN', 'MAX', 'MEDIAN', 'COUNT'];
const PARTS = ['YEAR', 'QUARTER', 'MONTH', 'WEEK', 'DAY'];
const UNKNOWN_FUNCTIONS = ['SUMM', 'COUNTD', 'LEN', 'NOW', 'AVERAGE', 'x', 'SELECT_'];
/** Version 2 (AQL.md §11). */
const TEXT_FNS = ['UPPER', 'LOWER', 'TRIM', 'LENGTH'];
const V2_FUNCTIONS = [
  ...TEXT_FNS,
  'LEFT',
  'RIGHT',
  'SUBSTRING',
  'CONCAT',
  'REPLACE',
  'COALESCE',
  'NULLIF',
  'LEAST',
  'GREATEST',
  'DATE_TRUNC',
  'DATE_ADD',
  'DATE_DIFF',
  'PERCENTILE',
  'STDDEV',
  'COUNT_DISTINCT',
  'RANK',
  'ROW_NUMBER',
  'LAG',
];
const FUNCTIONS = [
  ...AGGS,
  ...PARTS,
  'TODAY',
  'ABS',
  'ROUND',
  'IFNULL',
  ...V2_FUNCTIONS,
  ...UNKNOWN_FUNCTIONS,
];
const UNITS = ['"month"', '"day"', "'YEAR'", '"week"', '"quarter"', '"fortnight"', '1'];
const WINDOW_AGGS = ['SUM', 'AVG', 'MIN', 'MAX', 'COUNT'];
const RANKS = ['RANK()', 'DENSE_RANK()', 'ROW_NUMBER()'];
const FRAMES = [
  '',
  ' ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW',
  ' ROWS 2 PRECEDING',
  ' ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING',
  ' RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING',
];

/** `f(measure) OVER (…)` and ranking functions, over a query's dimensions and measures. */
function windowOf(measure: Arb, dimension: Arb): Arb {
  const over = fc
    .tuple(
      fc.option(dimension, { freq: 2 }),
      fc.option(fc.tuple(fc.oneof(measure, dimension), fc.constantFrom('', ' DESC', ' ASC'))),
      fc.constantFrom(...FRAMES),
    )
    .map(
      ([p, o, f]) =>
        `OVER (${p === null ? '' : `PARTITION BY ${p} `}${o === null ? '' : `ORDER BY ${o[0]}${o[1]}`}${o === null ? '' : f})`,
    );
  return fc.oneof(
    fc
      .tuple(fc.constantFrom(...WINDOW_AGGS).chain(anyCase), measure, over)
      .map(([f, m, o]) => `${f}(${m}) ${o}`),
    fc.tuple(fc.constantFrom(...RANKS), over).map(([f, o]) => `${f} ${o}`),
    fc
      .tuple(
        fc.constantFrom('LAG', 'LEAD', 'FIRST_VALUE', 'LAST_VALUE'),
        measure,
        fc.constantFrom('', ', 1', ', 2, 0'),
        over,
      )
      .map(([f, m, a, o]) => `${f}(${m}${f.startsWith('L') && f !== 'LAST_VALUE' ? a : ''}) ${o}`),
  );
}

/**
 * The loose grammar: any expression anywhere (dimensions, row-level expressions, measures,
 * conditions), typed or not; most of these are rejected with a 400.
 */
export function looseQueryArbitrary(v: Vocabulary): Arb {
  const attr = ref(v.attributes);
  const date = ref(v.dates);
  const fact = ref(v.facts);
  const metric = ref(v.metrics);
  const filter = ref(v.filters);
  const anyRef = ref([...v.attributes, ...v.dates, ...v.facts, ...v.metrics, ...v.filters]);
  const part = fc
    .tuple(
      fc.constantFrom(...PARTS).chain(anyCase),
      fc.oneof(date, date, anyRef, fc.constant('TODAY()')),
    )
    .map(([f, d]) => `${f}(${d})`);
  const dimension: Arb = fc.oneof(
    { arbitrary: attr, weight: 6 },
    { arbitrary: part, weight: 2 },
    { arbitrary: anyRef, weight: 1 },
  );

  const g = fc.letrec<{
    row: string;
    measure: string;
    cond: string;
    having: string;
    any: string;
  }>((tie) => {
    const row = tie('row');
    const measure = tie('measure');
    const cond = tie('cond');
    const any = tie('any');
    const d = { maxDepth: 2, depthIdentifier: 'aql' } as const;
    return {
      // Row-level scalar: what aggregations take and WHERE compares.
      row: fc.oneof(
        d,
        fact,
        attr,
        literal,
        part,
        fc.tuple(row, arithOp, row).map(join),
        fc.tuple(fc.constant('-'), row).map(([a, b]) => a + b),
        row.map((x) => `(${x})`),
        fc.tuple(anyCase('ABS'), row).map(([f, x]) => `${f}(${x})`),
        fc.tuple(row, fc.oneof(number, literal)).map(([x, n]) => `ROUND(${x}, ${n})`),
        fc.tuple(row, row).map(([a, b]) => `IFNULL(${a}, ${b})`),
        fc
          .tuple(cond, row, fc.option(row))
          .map(([c, t, e]) => `CASE WHEN ${c} THEN ${t}${e === null ? '' : ` ELSE ${e}`} END`),
        fc.tuple(fc.constantFrom(...TEXT_FNS).chain(anyCase), row).map(([f, x]) => `${f}(${x})`),
        fc.tuple(row, row).map(([a, b]) => `${a} || ${b}`),
        fc
          .tuple(fc.constantFrom('CONCAT', 'COALESCE', 'LEAST', 'GREATEST', 'NULLIF'), row, row)
          .map(([f, a, b]) => `${f}(${a}, ${b})`),
        fc
          .tuple(fc.constantFrom('LEFT', 'RIGHT', 'SUBSTRING'), row, fc.oneof(number, row))
          .map(([f, a, n]) => `${f}(${a}, ${n})`),
        fc.tuple(row, literal, literal).map(([a, b, c]) => `REPLACE(${a}, ${b}, ${c})`),
        fc
          .tuple(fc.constantFrom(...UNITS), fc.oneof(date, row, literal))
          .map(([u, d]) => `DATE_TRUNC(${u}, ${d})`),
        fc
          .tuple(fc.constantFrom(...UNITS), fc.oneof(number, row), fc.oneof(date, literal, row))
          .map(([u, n, d]) => `DATE_ADD(${u}, ${n}, ${d})`),
        fc
          .tuple(fc.constantFrom(...UNITS), fc.oneof(date, literal), fc.oneof(date, row))
          .map(([u, a, b]) => `DATE_DIFF(${u}, ${a}, ${b})`),
        fc.tuple(date, fc.constantFrom('+', '-'), fc.oneof(number, date)).map(join),
      ),
      measure: fc.oneof(
        d,
        fc
          .tuple(fc.constantFrom('SUM', 'AVG', 'MAX', 'MIN', 'MEDIAN').chain(anyCase), fact)
          .map(([f, x]) => `${f}(${x})`),
        metric,
        fc
          .tuple(anyCase('COUNT'), attr, fc.option(anyRef))
          .map(([f, a, o]) => `${f}(${a}${o === null ? '' : `, ${o}`})`),
        fc.tuple(fc.constantFrom(...AGGS).chain(anyCase), row).map(([f, x]) => `${f}(${x})`),
        fc.tuple(measure, arithOp, fc.oneof(measure, number, literal)).map(join),
        fc.tuple(fc.oneof(number, literal), arithOp, measure).map(join),
        measure.map((x) => `-${x}`),
        measure.map((x) => `(${x})`),
        fc
          .tuple(
            measure,
            fc.option(fc.array(fc.oneof(attr, anyRef), { maxLength: 2 })),
            fc.option(cond),
          )
          .map(
            ([m, by, w]) =>
              `(SELECT ${m}${by === null ? '' : ` BY ALL ${by.join(', ')}`}${w === null ? '' : ` WHERE ${w}`})`,
          ),
        fc
          .tuple(measure, fc.option(fc.constantFrom('0', '1', '2', '-1', '2.5', '40', '99999')))
          .map(([m, n]) => (n === null ? `ROUND(${m})` : `ROUND(${m}, ${n})`)),
        fc.tuple(measure, fc.oneof(number, literal, measure)).map(([a, b]) => `IFNULL(${a}, ${b})`),
        fc.tuple(anyCase('ABS'), measure).map(([f, x]) => `${f}(${x})`),
        fc
          .tuple(tie('having'), measure, fc.option(fc.oneof(measure, literal)))
          .map(([c, t, e]) => `CASE WHEN ${c} THEN ${t}${e === null ? '' : ` ELSE ${e}`} END`),
        fc
          .tuple(row, fc.constantFrom('0.5', '0.9', '1', '2', '-0.1', '"x"'))
          .map(([x, p]) => `PERCENTILE(${x}, ${p})`),
        fc.tuple(anyCase('STDDEV'), row).map(([f, x]) => `${f}(${x})`),
        fc
          .tuple(anyCase('COUNT_DISTINCT'), fc.oneof(attr, fact, row))
          .map(([f, x]) => `${f}(${x})`),
        windowOf(measure, dimension),
      ),
      cond: fc.oneof(
        d,
        fc.tuple(dimension, cmpOp, literal).map(join),
        filter,
        fc.tuple(row, cmpOp, fc.oneof(row, literal)).map(join),
        fc
          .tuple(dimension, fc.boolean(), fc.array(literal, { minLength: 1, maxLength: 4 }))
          .map(([x, not, list]) => `${x} ${not ? 'NOT IN' : 'IN'} (${list.join(', ')})`),
        fc
          .tuple(fc.oneof(dimension, row), fc.boolean(), literal, literal)
          .map(([x, not, lo, hi]) => `${x} ${not ? 'NOT BETWEEN' : 'BETWEEN'} ${lo} AND ${hi}`),
        fc
          .tuple(fc.oneof(dimension, row), fc.boolean(), fc.oneof(string, literal, row))
          .map(([x, not, p]) => `${x} ${not ? 'NOT LIKE' : 'LIKE'} ${p}`),
        fc
          .tuple(fc.oneof(dimension, row), fc.boolean())
          .map(([x, not]) => `${x} IS ${not ? 'NOT ' : ''}NULL`),
        cond.map((c) => `NOT ${c}`),
        cond.map((c) => `(${c})`),
        fc.tuple(cond, fc.constantFrom('AND', 'OR', 'and', 'Or'), cond).map(join),
        fc
          .tuple(anyCase('YEAR'), date, cmpOp, fc.constantFrom('2024', '2025', '"2024"', '2001'))
          .map(([f, x, op, y]) => `${f}(${x}) ${op} ${y}`),
        fc.tuple(date, cmpOp, fc.oneof(string, fc.constant('TODAY()'))).map(join),
      ),
      having: fc.oneof(
        d,
        fc.tuple(measure, cmpOp, fc.oneof(number, literal, measure)).map(join),
        fc.tuple(dimension, cmpOp, literal).map(join),
        fc.tuple(tie('having'), fc.constantFrom('AND', 'OR'), tie('having')).map(join),
        tie('having').map((c) => `NOT (${c})`),
        fc.tuple(measure, fc.boolean()).map(([m, not]) => `${m} IS ${not ? 'NOT ' : ''}NULL`),
      ),
      // Anything at all, typed or not.
      any: fc.oneof(
        d,
        literal,
        anyRef,
        fc
          .tuple(fc.constantFrom(...FUNCTIONS).chain(anyCase), fc.array(any, { maxLength: 3 }))
          .map(([f, args]) => `${f}(${args.join(', ')})`),
        fc
          .tuple(any, fc.oneof(arithOp, cmpOp, fc.constantFrom('AND', 'OR', 'LIKE')), any)
          .map(join),
        any.map((x) => `NOT ${x}`),
        any.map((x) => `(${x})`),
        fc.tuple(any, any).map(([c, t]) => `CASE WHEN ${c} THEN ${t} END`),
        fc
          .tuple(any, fc.array(any, { minLength: 1, maxLength: 3 }))
          .map(([x, list]) => `${x} IN (${list.join(', ')})`),
        row,
        measure,
        cond,
      ),
    };
  });

  const alias = fc.oneof(
    fc.constantFrom('"Miles"', '"Flights"', "'x'", 'Total', '"a""b"', '"✈"', '""', 'select_'),
    fc.string({ maxLength: 8, unit: 'grapheme-ascii' }).map((s) => quoted(s, '"')),
  );
  const item = fc
    .tuple(
      fc.oneof(
        { arbitrary: dimension, weight: 5 },
        { arbitrary: g.measure, weight: 6 },
        { arbitrary: g.any, weight: 1 },
      ),
      fc.option(alias, { freq: 4 }),
    )
    .map(([e, a]) => (a === null ? e : `${e} AS ${a}`));
  const orderItem = fc
    .tuple(
      fc.oneof(
        fc.constantFrom('1', '2', '3', '0', '7', '1.5'),
        alias.filter((a) => a.startsWith('"') || a.startsWith("'")),
        dimension,
        g.measure,
        g.any,
      ),
      fc.constantFrom('', ' ASC', ' DESC', ' desc'),
    )
    .map(([t, dir]) => t + dir);
  const sep = fc.constantFrom(' ', ' ', ' ', '\n', '\t', ' /* c */ ', ' -- note\n', '\r\n  ');
  return fc
    .record({
      select: anyCase('SELECT'),
      items: fc.array(item, { minLength: 1, maxLength: 3 }),
      where: fc.option(g.cond, { freq: 2 }),
      having: fc.option(g.having, { freq: 4 }),
      qualify: fc.option(fc.tuple(windowOf(g.measure, dimension), cmpOp, number).map(join), {
        freq: 5,
      }),
      order: fc.option(fc.array(orderItem, { minLength: 1, maxLength: 3 }), { freq: 3 }),
      limit: fc.option(fc.tuple(number, fc.option(number, { freq: 3 })), { freq: 3 }),
      sep,
    })
    .map((q) => {
      const parts = [`${q.select} ${q.items.join(', ')}`];
      if (q.where !== null) parts.push(`WHERE ${q.where}`);
      if (q.having !== null) parts.push(`HAVING ${q.having}`);
      if (q.qualify !== null) parts.push(`QUALIFY ${q.qualify}`);
      if (q.order !== null) parts.push(`ORDER BY ${q.order.join(', ')}`);
      if (q.limit !== null)
        parts.push(`LIMIT ${q.limit[0]}${q.limit[1] === null ? '' : ` OFFSET ${q.limit[1]}`}`);
      return parts.join(q.sep);
    });
}

const VALUES: Record<string, string[]> = {
  string: [
    '"CA"',
    '"TX"',
    "'NY'",
    '"West"',
    '"ATL"',
    '"SFO"',
    '"AA"',
    '"Delta Air Lines"',
    '"Monday"',
    '"2024-03"',
    '""',
    '"x"',
  ],
  integer: ['0', '1', '3', '12', '2024', '2025', '500', '1000', '-1', '2.5'],
  number: ['0', '15', '-5', '30.5', '100', '1e3'],
  date: ['"2024-03-31"', "'2025-01-01'", '"2024-02-29"', 'TODAY()', '"2025-12-31"'],
  boolean: ['TRUE', 'FALSE', 'true'],
};
const value = (dataType: string | undefined): Arb =>
  fc.constantFrom(...(VALUES[dataType ?? 'string'] ?? VALUES.string!));

/**
 * The typed grammar: dimensions, measures and conditions that fit the model, so most of
 * these compile and run (and every one that compiles must run).
 */
export function typedQueryArbitrary(v: Vocabulary): Arb {
  const named = (names: Name[]) => fc.constantFrom(...names);
  const show = (n: Name) =>
    fc
      .nat(9)
      .map((i) =>
        i < 6 ? `[${n.title}]` : i < 9 ? `[${n.ident}]` : `[ ${n.title.toLowerCase()} ]`,
      );
  const attr = named(v.attributes);
  const fact = named(v.facts);
  const kw = anyCase;
  const dimension: Arb = fc.oneof(
    { arbitrary: attr.chain(show), weight: 6 },
    {
      arbitrary: fc
        .tuple(fc.constantFrom(...PARTS).chain(kw), named(v.dates).chain(show))
        .map(([f, d]) => `${f}(${d})`),
      weight: 2,
    },
    {
      arbitrary: fc
        .tuple(fc.constantFrom('"month"', '"week"', '"year"'), named(v.dates).chain(show))
        .map(([u, d]) => `DATE_TRUNC(${u}, ${d})`),
      weight: 1,
    },
    {
      arbitrary: fc
        .tuple(fc.constantFrom(...TEXT_FNS, 'LOWER'), attr.chain(show))
        .map(([f, a]) => `${f}(${a})`),
      weight: 1,
    },
    {
      arbitrary: fc
        .tuple(attr.chain(show), attr.chain(show))
        .map(([a, b]) => `${a} || "/" || ${b}`),
      weight: 1,
    },
  );
  const atom: Arb = fc.oneof(
    attr.chain((a) =>
      fc.oneof(
        fc.tuple(show(a), cmpOp, value(a.dataType)).map(join),
        fc
          .tuple(show(a), fc.boolean(), fc.array(value(a.dataType), { minLength: 1, maxLength: 3 }))
          .map(([x, not, l]) => `${x} ${not ? 'NOT IN' : 'IN'} (${l.join(', ')})`),
        fc
          .tuple(show(a), fc.boolean(), value(a.dataType), value(a.dataType))
          .map(([x, not, lo, hi]) => `${x} ${not ? 'NOT BETWEEN' : 'BETWEEN'} ${lo} AND ${hi}`),
        fc
          .tuple(show(a), fc.boolean(), fc.constantFrom('"%A%"', '"S_O"', "'%'", '"C%"'))
          .map(([x, not, p]) => `${x} ${not ? 'NOT LIKE' : 'LIKE'} ${p}`),
        fc.tuple(show(a), fc.boolean()).map(([x, not]) => `${x} IS ${not ? 'NOT ' : ''}NULL`),
      ),
    ),
    fact.chain((f) => fc.tuple(show(f), cmpOp, value('number')).map(join)),
    fc
      .tuple(
        fc.constantFrom(...PARTS).chain(kw),
        named(v.dates).chain(show),
        cmpOp,
        value('integer'),
      )
      .map(([p, d, op, x]) => `${p}(${d}) ${op} ${x}`),
    ...(v.filters.length ? [named(v.filters).chain(show)] : []),
  );
  const { cond } = fc.letrec<{ cond: string }>((tie) => ({
    cond: fc.oneof(
      { maxDepth: 2, depthIdentifier: 'cond' },
      atom,
      atom,
      tie('cond').map((c) => `NOT (${c})`),
      fc
        .tuple(tie('cond'), fc.constantFrom('AND', 'OR', 'and'), tie('cond'))
        .map(([a, o, b]) => `(${a}) ${o} (${b})`),
    ),
  }));
  const rowNumber: Arb = fc.oneof(
    fact.chain(show),
    fact.chain(show),
    fc.tuple(fact.chain(show), arithOp, fc.oneof(fact.chain(show), value('number'))).map(join),
    fc
      .tuple(cond, fact.chain(show), value('number'))
      .map(([c, t, e]) => `CASE WHEN ${c} THEN ${t} ELSE ${e} END`),
    fact.chain(show).map((f) => `ABS(${f})`),
    fact.chain(show).map((f) => `ROUND(${f}, 1)`),
    fact.chain(show).map((f) => `IFNULL(${f}, 0)`),
  );
  const { measure } = fc.letrec<{ measure: string }>((tie) => {
    const m = tie('measure');
    return {
      measure: fc.oneof(
        { maxDepth: 2, depthIdentifier: 'measure' },
        fc
          .tuple(fc.constantFrom('SUM', 'AVG', 'MIN', 'MAX', 'MEDIAN').chain(kw), rowNumber)
          .map(([f, x]) => `${f}(${x})`),
        fc
          .tuple(kw('COUNT'), fc.oneof(attr.chain(show), fact.chain(show)))
          .map(([f, x]) => `${f}(${x})`),
        fc
          .tuple(fc.constantFrom('STDDEV', 'COUNT_DISTINCT', 'PERCENTILE'), rowNumber)
          .map(([f, x]) => (f === 'PERCENTILE' ? `${f}(${x}, 0.75)` : `${f}(${x})`)),
        ...(v.metrics.length ? [named(v.metrics).chain(show)] : []),
        fc.tuple(m, arithOp, fc.oneof(m, value('number'))).map(join),
        m.map((x) => `-(${x})`),
        fc
          .tuple(m, fc.option(fc.array(dimension, { maxLength: 2 })), fc.option(cond, { freq: 3 }))
          .map(
            ([x, by, w]) =>
              `(SELECT ${x}${by === null ? '' : ` BY ALL ${by.filter((b) => b.startsWith('[')).join(', ')}`}${w === null ? '' : ` WHERE ${w}`})`,
          ),
        fc.tuple(m, fc.constantFrom('', ', 0', ', 2')).map(([x, dg]) => `ROUND(${x}${dg})`),
        fc.tuple(m, value('number')).map(([x, n]) => `IFNULL(${x}, ${n})`),
        m.map((x) => `ABS(${x})`),
        fc
          .tuple(m, cmpOp, value('number'), m, m)
          .map(([a, op, n, t, e]) => `CASE WHEN ${a} ${op} ${n} THEN ${t} ELSE ${e} END`),
      ),
    };
  });
  type Item = { text: string; dim: boolean; alias: string | null };
  const item: fc.Arbitrary<Item> = fc
    .tuple(
      fc.oneof(
        dimension.map((text) => ({ text, dim: true })),
        measure.map((text) => ({ text, dim: false })),
        measure.map((text) => ({ text, dim: false })),
        // A window over the result (its dimensions may not all be in SELECT: a 400 then).
        windowOf(measure, dimension).map((text) => ({ text, dim: false })),
      ),
      fc.option(fc.constantFrom('"Miles"', '"Flights"', 'Total', "'Share'", '"x y"'), { freq: 3 }),
    )
    .map(([i, alias]) => ({ ...i, alias }));
  return fc
    .tuple(
      kw('SELECT'),
      fc.array(item, { minLength: 1, maxLength: 3 }),
      fc.option(cond, { freq: 2 }),
      fc.nat(),
      fc.option(fc.tuple(fc.nat(), fc.constantFrom('', ' ASC', ' DESC')), { freq: 2 }),
      fc.option(
        fc.tuple(
          fc.constantFrom('0', '1', '5', '10', '100'),
          fc.option(fc.constantFrom('0', '3', '50'), { freq: 3 }),
        ),
        {
          freq: 3,
        },
      ),
      fc.constantFrom(' ', '\n', '  ', ' -- c\n', ' /* c */ '),
      fc.tuple(cmpOp, value('number'), fc.option(cond)),
      fc.option(fc.constantFrom('1', '2', '3'), { freq: 4 }),
    )
    .map(([select, items, where, pick, order, limit, sep, [op, n], top]) => {
      const parts = [
        `${select} ${items.map((i) => (i.alias ? `${i.text} AS ${i.alias}` : i.text)).join(', ')}`,
      ];
      if (where !== null) parts.push(`WHERE ${where}`);
      const measures = items.filter((i) => !i.dim);
      const dims = items.filter((i) => i.dim && i.text.startsWith('['));
      if (pick % 3 === 0 && measures.length)
        parts.push(`HAVING ${measures[pick % measures.length]!.text} ${op} ${n}`);
      else if (pick % 3 === 1 && dims.length)
        parts.push(`HAVING ${dims[pick % dims.length]!.text} IS NOT NULL`);
      // Top N per group: ranked within the first dimension by the first measure.
      if (top !== null && measures.length)
        parts.push(
          `QUALIFY RANK() OVER (${dims.length ? `PARTITION BY ${dims[0]!.text} ` : ''}ORDER BY ${measures[0]!.text} DESC) <= ${top}`,
        );
      if (order !== null) {
        const [k, dir] = order;
        const target = items[k % items.length]!;
        // A position, an alias (always a quoted string in ORDER BY), or the item itself.
        const by =
          k % 3 === 0
            ? String((k % items.length) + 1)
            : k % 3 === 1 && target.alias
              ? `"${target.alias.replace(/^["']|["']$/g, '')}"`
              : target.text;
        parts.push(`ORDER BY ${by}${dir}`);
      }
      if (limit !== null)
        parts.push(`LIMIT ${limit[0]}${limit[1] === null ? '' : ` OFFSET ${limit[1]}`}`);
      return parts.join(sep);
    });
}

/** Typed queries mostly, loose ones sometimes. */
export const queryArbitrary = (v: Vocabulary): Arb =>
  fc.oneof(
    { arbitrary: typedQueryArbitrary(v), weight: 3 },
    { arbitrary: looseQueryArbitrary(v), weight: 1 },
  );

const TOKEN =
  /\[[^\]]*\]|"(?:[^"]|"")*"|'(?:[^']|'')*'|(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[A-Za-z_]\w*|<>|!=|<=|>=|--[^\n]*|\/\*[\s\S]*?\*\/|\s+|[\s\S]/g;

const FRAGMENTS = [
  '(',
  ')',
  '[',
  ']',
  '"',
  "'",
  '/*',
  '*/',
  '--',
  ',',
  ';',
  '.',
  '*',
  '!',
  '=',
  'SELECT',
  'BY ALL',
  'WHERE',
  'HAVING',
  'ORDER BY',
  'LIMIT',
  'AND',
  'OR',
  'NOT',
  'IN',
  'AS',
  'NULL',
  'CASE',
  'END',
  '99999999999999999999999999999',
  '1e400',
  '1e308',
  '-9223372036854775809',
  '0.000000000000000000000001',
  '(SELECT',
  '[Distance]',
  '[]',
  '[[',
  '""',
  '😀',
  '\u0000',
  '\u202e',
  'İ',
  'ﬀ',
  '\uFEFF',
  '\u2028',
  '\\',
  '$1',
  '?',
  '@',
  '`',
  '#',
];

type Mutation =
  | { op: 'delete' | 'duplicate'; at: number }
  | { op: 'swap'; at: number; to: number }
  | { op: 'truncate'; at: number }
  | { op: 'insert' | 'replace'; at: number; text: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constantFrom('delete' as const, 'duplicate' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('swap' as const), at: fc.nat(), to: fc.nat() }),
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    op: fc.constantFrom('insert' as const, 'replace' as const),
    at: fc.nat(),
    text: fc.oneof(
      { arbitrary: fc.constantFrom(...FRAGMENTS), weight: 4 },
      { arbitrary: fc.string({ minLength: 1, maxLength: 3, unit: 'binary' }), weight: 1 },
      { arbitrary: fc.string({ minLength: 1, maxLength: 3, unit: 'grapheme' }), weight: 1 },
    ),
  }),
);

export function mutate(text: string, mutations: Mutation[]): string {
  let tokens: string[] = text.match(TOKEN) ?? [];
  for (const m of mutations) {
    const n = tokens.length;
    if (!n) tokens = [''];
    const i = m.at % Math.max(1, tokens.length);
    switch (m.op) {
      case 'delete':
        tokens.splice(i, 1);
        break;
      case 'duplicate':
        tokens.splice(i, 0, tokens[i] ?? '');
        break;
      case 'swap': {
        const j = m.to % tokens.length;
        [tokens[i], tokens[j]] = [tokens[j]!, tokens[i]!];
        break;
      }
      case 'truncate': {
        const whole = tokens.join('');
        tokens = whole.slice(0, m.at % Math.max(1, whole.length)).match(TOKEN) ?? [];
        break;
      }
      case 'insert':
        tokens.splice(i, 0, m.text);
        break;
      case 'replace':
        tokens[i] = m.text;
        break;
    }
  }
  return tokens.join('');
}

export function mutatedArbitrary(v: Vocabulary): Arb {
  return fc
    .tuple(queryArbitrary(v), fc.array(mutation, { minLength: 1, maxLength: 4 }))
    .map(([q, ms]) => mutate(q, ms));
}

/** Inputs at the limits: very long, deeply nested, or nothing like AQL at all. */
export const extremeArbitrary: Arb = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\n\n',
    '-- only a comment',
    '/* unclosed',
    'SELECT',
    'SELECT [',
    'SELECT "',
    "SELECT '",
    'SELECT (',
    'SELECT )',
    'select [Distance]',
    'SELECT SUM([Distance]) BY ALL',
    'SELECT (SELECT SUM([Distance]) BY ALL BY ALL)',
    'SELECT SUM([Distance]) LIMIT 1 OFFSET',
    'SELECT [Origin] ORDER BY',
  ),
  fc.nat({ max: 3000 }).map((n) => `SELECT ${'('.repeat(n)}SUM([Distance])${')'.repeat(n)}`),
  fc.nat({ max: 3000 }).map((n) => `SELECT ${'('.repeat(n)}SUM([Distance])`),
  fc.nat({ max: 20_000 }).map((n) => `SELECT SUM([Distance]) * ${'-'.repeat(n)}1`),
  fc.nat({ max: 10_000 }).map((n) => `SELECT [Origin] WHERE ${'NOT '.repeat(n)}[Origin] = "SFO"`),
  fc.nat({ max: 3000 }).map((n) => `SELECT ${'SUM([Distance]) + '.repeat(n)}1`),
  fc.nat({ max: 150 }).map(
    (n) =>
      `SELECT ${Array(n + 1)
        .fill('[Origin]')
        .join(', ')}`,
  ),
  fc
    .nat({ max: 2000 })
    .map(
      (n) =>
        `SELECT [Origin] WHERE [Origin] IN (${Array.from({ length: n + 1 }, (_, i) => `"A${i}"`).join(', ')})`,
    ),
  fc
    .nat({ max: 500 })
    .map(
      (n) =>
        `SELECT SUM(CASE ${Array.from({ length: n + 1 }, (_, i) => `WHEN [Distance] > ${i} THEN ${i}`).join(' ')} END)`,
    ),
  fc.constantFrom(99_990, 100_000, 100_001, 250_000).map((n) => `SELECT [${'x'.repeat(n)}]`),
  fc
    .constantFrom(99_000, 100_001)
    .map((n) => `SELECT [Origin] WHERE [Origin] = "${'é'.repeat(n)}"`),
  fc.constantFrom(50_000, 100_001).map((n) => 'SELECT '.repeat(n / 7)),
  fc.string({ maxLength: 200, unit: 'binary' }),
  fc.string({ maxLength: 200, unit: 'grapheme' }).map((s) => `SELECT ${s}`),
);
