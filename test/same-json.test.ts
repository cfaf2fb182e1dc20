// jsonb (PostgreSQL) gives documents back with their keys in its own order: "is this
// definition unchanged?" must not depend on it, or every reload looks like a model change.
import { describe, expect, it } from 'vitest';
import { sameJson } from '../src/engine/same-json.js';

describe('sameJson', () => {
  it('ignores the order of object keys at every depth, keeps array order', () => {
    expect(
      sameJson({ a: 1, b: { c: [1, { d: 2, e: 3 }] } }, { b: { c: [1, { e: 3, d: 2 }] }, a: 1 }),
    ).toBe(true);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(sameJson(null, null)).toBe(true);
  });
});
