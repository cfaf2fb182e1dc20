// test/passes.ts says which files the PostgreSQL pass leaves out; docs/testing.md lists them
// and says why. vitest.config.ts refuses to start when a test file is in neither list.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BOTH_PASSES, SQLITE_ONLY } from './passes.js';

describe('the two passes', () => {
  const doc = fs.readFileSync('docs/testing.md', 'utf8');

  it('every file run once is named in docs/testing.md, and no file run twice is', () => {
    const named = (f: string) => doc.includes(`\`${f}\``);
    expect(Object.keys(SQLITE_ONLY).filter((f) => !named(f))).toEqual([]);
    expect(BOTH_PASSES.filter(named)).toEqual([]);
  });

  it('each file run once says why', () => {
    expect(Object.entries(SQLITE_ONLY).filter(([, why]) => why.length < 10)).toEqual([]);
  });
});
