// A metadata database that is busy (a statement past its timeout, a deadlock it broke, too
// many connections) is a moment's trouble, not a bug: 503 with Retry-After, not a 500.
import { describe, expect, it } from 'vitest';
import { toErrorBody } from '../src/shared/errors.js';

/** An error as drizzle throws it: its own message, the driver's error as the cause. */
const wrapped = (code: string) =>
  Object.assign(new Error('Failed query: select 1'), {
    cause: Object.assign(new Error('driver error'), { code }),
  });

describe('errors of a busy metadata database', () => {
  it.each([
    ['57014', 'statement timeout'],
    ['40P01', 'deadlock detected'],
    ['40001', 'serialization failure'],
    ['55P03', 'lock not available'],
    ['53300', 'too many connections'],
  ])('%s (%s) answers 503 busy, retry shortly', (code) => {
    const r = toErrorBody(wrapped(code));
    expect(r.body).toMatchObject({
      statusCode: 503,
      message: 'the metadata database is busy; retry in a few seconds',
      context: { retryAfterSeconds: 2 },
    });
    expect(r.headers).toEqual({ 'Retry-After': '2' });
    expect(r.internal).toBe(false);
  });

  it('a lost connection still says unreachable; a wrong statement is still a 500', () => {
    expect(toErrorBody(wrapped('08006')).body.message).toMatch(/cannot be reached/);
    const wrong = toErrorBody(wrapped('23505'));
    expect(wrong.body.statusCode).toBe(500);
    expect(wrong.internal).toBe(true);
  });
});
