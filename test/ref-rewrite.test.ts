// Saved AQL stores references as identifiers and shows those written by title with the
// current title (src/engine/aql/ref-rewrite.ts, src/engine/model/saved-aql.ts). References are
// found by the AQL lexer: strings (quotes doubled) and comments hold none.
import { describe, expect, it } from 'vitest';
import { referencesIn } from '../src/engine/aql/references.js';
import { refModel, refTokens, showRefs, storeRefs } from '../src/engine/aql/ref-rewrite.js';
import { BY_TITLE_KEY, migrateDef, showDef, storeDef } from '../src/engine/model/saved-aql.js';

const fact = (ident: string, name: string) => ({ ident, type: 'fact', name });
const base = [
  fact('fact.sales.amount', 'Amount'),
  { ident: 'attr.sales.region', type: 'attribute', name: 'Region' },
  { ident: 'metric.revenue', type: 'metric', name: 'Revenue' },
  // Reports are not named by title in AQL: "Amount" stays the fact's alone.
  { ident: 'report.amount', type: 'report', name: 'Amount' },
];

describe('references found by the lexer', () => {
  it('skips strings with doubled quotes and comments; a backslash escapes nothing', () => {
    const text = `SELECT [A] -- [no]\n/* [nor] */ WHERE [B] = "C:\\" OR [C] = 'it''s [x]' OR [D] = "say ""[y]"""`;
    expect(referencesIn(text)).toEqual(['A', 'B', 'C', 'D']);
    expect(refTokens(text).map((t) => text.slice(t.start, t.end))).toEqual([
      '[A]',
      '[B]',
      '[C]',
      '[D]',
    ]);
  });

  it('trims, deduplicates and ignores empty references', () => {
    expect(referencesIn('[ A ] + [A] + [] + [B]')).toEqual(['A', 'B']);
  });
});

describe('storing', () => {
  const m = refModel(base);

  it('turns titles (any case, spaces around) into identifiers and remembers their positions', () => {
    expect(
      storeRefs('SELECT SUM([ amount ]) + [metric.revenue] WHERE [REGION] = "[Amount]"', m),
    ).toEqual({
      aql: 'SELECT SUM([fact.sales.amount]) + [metric.revenue] WHERE [attr.sales.region] = "[Amount]"',
      byTitle: [0, 2],
    });
  });

  it('keeps unknown and ambiguous references as written', () => {
    const dup = refModel([...base, { ident: 'metric.amount', type: 'metric', name: 'amount' }]);
    expect(storeRefs('SELECT [Amount] + [Nope]', dup)).toEqual({
      aql: 'SELECT [Amount] + [Nope]',
      byTitle: [],
    });
  });

  it('an identifier wins over a title, as in AQL', () => {
    const tricky = refModel([...base, fact('Revenue', 'Other')]);
    expect(storeRefs('SELECT [Revenue]', tricky)).toEqual({
      aql: 'SELECT [Revenue]',
      byTitle: [],
    });
  });
});

describe('showing', () => {
  it('shows positions written by title with the current title, identifiers as written', () => {
    const renamed = refModel([fact('fact.sales.amount', 'Sales Amount'), ...base.slice(1)]);
    const s = storeRefs('SELECT SUM([Amount]) + SUM([fact.sales.amount])', refModel(base));
    expect(showRefs(s.aql, s.byTitle, renamed)).toBe(
      'SELECT SUM([Sales Amount]) + SUM([fact.sales.amount])',
    );
  });

  it('keeps the identifier when the title would not name the same object again', () => {
    const s = storeRefs('SELECT SUM([Amount])', refModel(base));
    for (const [name, extra] of [
      ['Sales [EUR]', []],
      ['Sales\nAmount', []],
      ['Shared', [{ ident: 'metric.shared', type: 'metric', name: 'shared' }]],
      ['metric.revenue', []],
    ] as const) {
      const m = refModel([fact('fact.sales.amount', name), ...base.slice(1), ...extra]);
      expect(showRefs(s.aql, s.byTitle, m), name).toBe('SELECT SUM([fact.sales.amount])');
    }
    // The object is gone: nothing to show but its identifier.
    expect(showRefs(s.aql, s.byTitle, refModel(base.slice(1)))).toBe(
      'SELECT SUM([fact.sales.amount])',
    );
  });
});

describe('defs', () => {
  const m = refModel(base);

  it('store with positions, show without them; other types are left alone', () => {
    const stored = storeDef('metric', { aql: 'SELECT SUM([Amount])', format: '#' }, m);
    expect(stored).toEqual({
      aql: 'SELECT SUM([fact.sales.amount])',
      format: '#',
      [BY_TITLE_KEY]: [0],
    });
    expect(showDef('metric', stored, m)).toEqual({ aql: 'SELECT SUM([Amount])', format: '#' });
    expect(storeDef('metric', { aql: 'SELECT SUM([fact.sales.amount])' }, m)).toEqual({
      aql: 'SELECT SUM([fact.sales.amount])',
    });
    const folder = { content: ['Amount'] };
    expect(storeDef('folder', folder, m)).toBe(folder);
  });

  it('a def sent back as read keeps what was written by title, also where an ident was shown', () => {
    const stored = storeDef('metric', { aql: 'SELECT SUM([Amount])' }, m);
    const ambiguous = refModel([...base, { ident: 'metric.amt', type: 'metric', name: 'AMOUNT' }]);
    const shown = showDef('metric', stored, ambiguous);
    expect(shown.aql).toBe('SELECT SUM([fact.sales.amount])');
    expect(storeDef('metric', shown, ambiguous, stored)).toEqual(stored);
    // Another text starts afresh.
    expect(storeDef('metric', { aql: 'SELECT MAX([fact.sales.amount])' }, m, stored)).toEqual({
      aql: 'SELECT MAX([fact.sales.amount])',
    });
  });

  it('migration turns titles left in a stored text into identifiers and keeps known positions', () => {
    const stored = storeDef('report', { aql: 'SELECT [Amount]', visualization: {} }, m);
    const later = { ...stored, aql: `${String(stored.aql)}, [Region], [Gone]` };
    expect(migrateDef('report', later, m)).toEqual({
      aql: 'SELECT [fact.sales.amount], [attr.sales.region], [Gone]',
      visualization: {},
      [BY_TITLE_KEY]: [0, 1],
    });
    const again = migrateDef('report', later, m);
    expect(migrateDef('report', again, m)).toEqual(again);
  });
});
