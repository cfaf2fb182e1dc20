// Flow expressions reach only the input's columns: AQL has no table functions, a reference is
// a column or an error with the closest one, and the run's DuckDB cannot open files outside
// the project even if SQL asked it to.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileFlowExpr, type FlowColumn } from '../src/engine/flows/expressions.js';
import { Scratch } from '../src/engine/flows/scratch.js';

const COLS: FlowColumn[] = [
  { name: 'amount', type: 'number', duck: 'DOUBLE' },
  { name: 'Region', type: 'string', duck: 'VARCHAR' },
  { name: 'day', type: 'date', duck: 'DATE' },
  { name: 'tags', type: null, duck: 'VARCHAR[]' },
];
const compile = (text: string, kind: 'condition' | 'value' | 'measure' = 'value') =>
  compileFlowExpr(text, kind, COLS, 'b', 'f', '2024-06-30').sql;

describe('flow expressions', () => {
  it('compile to SQL over quoted columns with values as literals', () => {
    expect(compile('[amount] > 10 AND [region] IN ("EU", "US")', 'condition')).toBe(
      `(("amount" > 10) AND ("Region" IN ('EU', 'US')))`,
    );
    expect(compile('UPPER([Region]) || "\'; DROP TABLE x; --"')).toContain(
      `'''; DROP TABLE x; --'`,
    );
    expect(compile('SUM([amount])', 'measure')).toBe('sum("amount")');
    expect(compile('COUNT_DISTINCT([Region])', 'measure')).toBe('count(DISTINCT "Region")');
  });

  it.each([
    ["read_csv('/etc/passwd')", /unknown function READ_CSV/],
    ['READ_CSV("/etc/passwd")', /unknown function READ_CSV/],
    ['[amout] * 2', /unknown column \[amout\].*did you mean \[amount\]/],
    ['[tags]', /type VARCHAR\[\], which expressions cannot use/],
    ['SUM([amount])', /aggregates rows: use it in a transform.aggregate measure/],
    ['(SELECT SUM([amount]))', /sub-select/],
    ['[amount] - [Region]', /arithmetic needs numbers/],
  ])('refuses %s', (text, message) => {
    expect(() => compile(text)).toThrow(message);
  });

  it('refuses a measure that does not aggregate', () => {
    expect(() => compile('[amount] * 2', 'measure')).toThrow(/a measure aggregates its group/);
  });
});

describe("the run's DuckDB", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-scratch-'));
  const files = path.join(dir, 'files');
  const outside = path.join(dir, 'outside.csv');
  fs.mkdirSync(files);
  fs.writeFileSync(path.join(files, 'in.csv'), 'a\n1\n');
  fs.writeFileSync(outside, 'secret\n42\n');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads the project files and its own folder, nothing else, and cannot be reopened', async () => {
    const s = await Scratch.open(path.join(dir, 'run'), [files], new AbortController().signal);
    try {
      const ok = await s.table('t', `SELECT * FROM read_csv('${path.join(files, 'in.csv')}')`);
      expect(ok.rows).toBe(1);
      await expect(s.c.run(`SELECT * FROM read_csv('${outside}')`)).rejects.toThrow(
        /file system operations are disabled/,
      );
      await expect(s.c.run('SET enable_external_access = true')).rejects.toThrow();
      await expect(s.c.run(`SET allowed_directories = ['/']`)).rejects.toThrow();
    } finally {
      await s.close();
    }
    expect(fs.existsSync(path.join(dir, 'run'))).toBe(false);
  });
});
