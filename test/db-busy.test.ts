// A metadata database that is busy (a statement past its timeout, a deadlock it broke, too
// many connections) is a moment's trouble, not a bug: 503 with Retry-After, not a 500.
import { describe, expect, it } from 'vitest';
import { LockLost } from '../src/engine/db/store.js';
import type { McpContext } from '../src/mcp/tools/common.js';
import { describeError } from '../src/mcp/tools/common.js';
import { toErrorBody } from '../src/http/errors.js';

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

  it.each([
    ['57P01 (session terminated)', wrapped('57P01')],
    ['57P02 (crash shutdown)', wrapped('57P02')],
    ['57P03 (starting up)', wrapped('57P03')],
    ['08006 (connection failure)', wrapped('08006')],
    ['a socket that ended', new Error('Connection terminated unexpectedly')],
    [
      'a lost cluster-wide lock',
      new LockLost('ursa:upload:p:u', Object.assign(new Error('terminating'), { code: '57P01' })),
    ],
    [
      "a stopped server's Unix socket",
      Object.assign(new Error('connect ENOENT /tmp/x/.s.PGSQL.5432'), {
        code: 'ENOENT',
        syscall: 'connect',
      }),
    ],
  ])('a lost connection, %s, answers 503 unreachable with Retry-After', (_what, err) => {
    const r = toErrorBody(err);
    expect(r.body).toMatchObject({ statusCode: 503, context: { retryAfterSeconds: 5 } });
    expect(r.body.message).toMatch(/cannot be reached/);
    expect(r.headers).toEqual({ 'Retry-After': '5' });
  });

  it('a missing file is no lost connection: still a 500', () => {
    const r = toErrorBody(Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' }));
    expect(r.body.statusCode).toBe(500);
  });

  it('an MCP tool says so too (retry later), not internal error', () => {
    const logged: unknown[] = [];
    const ctx = {
      engine: { log: { error: (o: unknown) => logged.push(o) } },
      principal: { email: 'a@example.com' },
      exposeInternalErrors: false,
    } as unknown as McpContext;
    expect(describeError(ctx, wrapped('57P01'))).toMatch(/cannot be reached; retry/);
    expect(describeError(ctx, wrapped('40P01'))).toMatch(/busy; retry/);
    expect(describeError(ctx, new Error('Connection terminated unexpectedly'))).toMatch(
      /cannot be reached/,
    );
    expect(logged).toEqual([]);
    expect(describeError(ctx, wrapped('23505'))).toMatch(/^internal error/);
    expect(logged).toHaveLength(1);
  });
});
