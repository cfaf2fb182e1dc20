// Result cells in JSON (aql/format.ts jsonCell): number columns as JSON numbers, fractions
// rounded to 15 significant digits (with `exact`, their exact text when no JSON number holds
// them), whole numbers beyond 2^53 as their exact text; null for an empty number cell; every
// other column as its text. The renderings over HTTP are in reports, sharing and
// mcp-dashboards tests; this pins the edge values.
import { describe, expect, it } from 'vitest';
import { formatCell, jsonCell, jsonRows } from '../src/engine/aql/format.js';

describe('jsonCell', () => {
  it.each([
    ['26253787', 'integer', 26253787],
    ['-42', 'integer', -42],
    ['9007199254740992', 'integer', 9007199254740992],
    ['123.45', 'number', 123.45],
    ['123.4500', 'number', 123.45],
    ['0.1', 'number', 0.1],
    ['-0', 'number', -0],
    ['1e+21', 'number', 1e21],
    ['1.5e-7', 'number', 1.5e-7],
  ])('%s in a %s column → the number', (text, dataType, n) => {
    expect(jsonCell(text, dataType)).toBe(n);
  });

  it.each([
    ['9007199254740993', 'integer', 'beyond 2^53, odd'],
    ['123456789012345678901234567890', 'integer', 'a HUGEINT'],
    ['Infinity', 'number', 'no JSON number'],
    ['-Infinity', 'number', 'no JSON number'],
  ])('%s in a %s column stays its exact text (%s)', (text, dataType) => {
    expect(jsonCell(text, dataType)).toBe(text);
  });

  it.each([
    // A PostgreSQL numeric AVG over integers, a DuckDB DECIMAL sum, a ratio.
    ['2.3333333333333333', 2.33333333333333, '2.3333333333333333'],
    ['0.12345678901234567890123', 0.123456789012346, '0.12345678901234567890123'],
    ['12345678901234567.25', 12345678901234600, '12345678901234567.25'],
    ['0.1', 0.1, 0.1],
    ['1.2345678901234567', 1.23456789012346, 1.2345678901234567],
  ])(
    'a fraction %s is rounded to 15 significant digits; exact gives what no double holds as text',
    (text, rounded, exact) => {
      expect(jsonCell(text, 'number')).toBe(rounded);
      expect(jsonCell(text, 'number', true)).toBe(exact);
      expect(jsonRows([{ dataType: 'number' }], [[text]], true)).toEqual([[exact]]);
    },
  );

  it('exact changes no whole number and no other column', () => {
    expect(jsonCell('9007199254740993', 'integer', true)).toBe('9007199254740993');
    expect(jsonCell('42', 'integer', true)).toBe(42);
    expect(jsonCell('', 'number', true)).toBeNull();
    expect(jsonCell('1.50', 'string', true)).toBe('1.50');
  });

  it('an empty number cell (null) is null; other columns keep their text', () => {
    expect(jsonCell('', 'integer')).toBeNull();
    expect(jsonCell('', 'number')).toBeNull();
    expect(jsonCell('', 'string')).toBe('');
    expect(jsonCell('007', 'string')).toBe('007');
    expect(jsonCell('2024-01-31', 'date')).toBe('2024-01-31');
    expect(jsonCell('true', 'boolean')).toBe('true');
  });

  it('reads the text formatCell makes of what the store answers', () => {
    for (const v of [0.1 + 0.2, 1 / 3, 26253787, -5.5, 2 ** 53, 1e-7, 1e25])
      expect(jsonCell(formatCell(v), 'number')).toBe(Number(formatCell(v)));
    expect(jsonCell(formatCell(2n ** 63n - 1n), 'integer')).toBe('9223372036854775807');
    expect(jsonCell(formatCell(null), 'number')).toBeNull();
  });

  it('jsonRows types each cell by its column', () => {
    const columns = [{ dataType: 'string' }, { dataType: 'integer' }, { dataType: 'number' }];
    expect(
      jsonRows(columns, [
        ['AA', '12', '3.5'],
        ['BB', '', '9007199254740993'],
      ]),
    ).toEqual([
      ['AA', 12, 3.5],
      ['BB', null, '9007199254740993'],
    ]);
  });
});
