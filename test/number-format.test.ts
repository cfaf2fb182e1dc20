// A metric's display `format`: spreadsheet number patterns applied to result cells.
import { describe, expect, it } from 'vitest';
import { defaultNumber, formatNumber, spreadsheetFormat } from '../src/shared/number-format.js';

describe('formatNumber', () => {
  it.each([
    ['1234567.891', '#,##0.00', '1,234,567.89'],
    ['1234567.891', '0', '1234568'],
    ['0.1234', '0.0%', '12.3%'],
    ['1234567', '$#,##0,"K"', '$1,235K'],
    ['1234567890', '#,##0,,"M"', '1,235M'],
    ['-1234.5', '#,##0.0', '-1,234.5'],
    ['-1234.5', '#,##0.0;(#,##0.0)', '(1,234.5)'],
    ['12.5', '#,##0.##', '12.5'],
    ['12', '#,##0.##', '12'],
    ['0.5', '#.##', '.5'],
    ['3.14159', '0.000 "kg"', '3.142 kg'],
    ['1234', '€ #,##0', '€ 1,234'],
    ['-0.001', '#,##0.00', '0.00'],
    ['7', '000', '007'],
  ])('%s with %s is %s', (value, pattern, shown) => {
    expect(formatNumber(value, pattern)).toBe(shown);
  });

  it('shows what is not a number, or has no pattern, as it is', () => {
    expect(formatNumber('abc', '#,##0')).toBe('abc');
    expect(formatNumber('', '#,##0')).toBe('');
    expect(formatNumber('12.5', undefined)).toBe('12.5');
    expect(formatNumber('12.5', 'no digits here')).toBe('12.5');
  });

  it('groups and rounds to two decimals by default', () => {
    expect(defaultNumber('1234567.891')).toBe('1,234,567.89');
    expect(defaultNumber('42')).toBe('42');
  });
});

describe('spreadsheetFormat (the XLSX numFmt of a metric format)', () => {
  it.each([
    ['#,##0.00', '#,##0.00'],
    ['0.0%', '0.0%'],
    // Text around the digits is quoted: "mi" would be minutes, "$" stays a literal.
    ['#,##0 mi', '#,##0" mi"'],
    ['$#,##0,"K"', '"$"#,##0,"K"'],
    ['#,##0,,"M"', '#,##0,,"M"'],
    ['#,##0.0;(#,##0.0)', '#,##0.0;"("#,##0.0")"'],
    ['#.##', '#.##'],
    ['000', '000'],
  ])('%s → %s', (pattern, numFmt) => {
    expect(spreadsheetFormat(pattern)).toBe(numFmt);
  });

  it('is null where formatNumber does not apply', () => {
    expect(spreadsheetFormat('text only')).toBeNull();
    expect(spreadsheetFormat('')).toBeNull();
    expect(spreadsheetFormat(undefined)).toBeNull();
  });
});
