// input.http and the network guard, against a real loopback API (no mocks of http or fetch).
// Only 127.0.0.1 ever receives traffic: disallowed addresses are refused before connecting,
// and public addresses are tested as literals only.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BoxError } from '../src/engine/flows/errors.js';
import {
  getJsonPointer,
  httpInputSchema,
  httpRecords,
  nextLink,
  retryAfterMs,
  type HttpInput,
  type HttpLimits,
} from '../src/engine/flows/connectors/http.js';
import {
  guardedLookup,
  isAllowed,
  isPublicAddress,
  resolveAllowed,
} from '../src/engine/flows/connectors/net-guard.js';
import type { Credentials, NetPolicy, ReadContext } from '../src/engine/flows/connectors/types.js';
import {
  API_PASSWORD,
  API_TOKEN,
  API_USER,
  startTestApi,
  type TestApi,
} from './helpers/http-api.js';

const LOOPBACK: NetPolicy = { allowHosts: ['127.0.0.1'] };
const NOBODY: NetPolicy = { allowHosts: [] };

const bearer: Credentials = { ident: 'api-token', kind: 'http', secret: API_TOKEN };
const basic: Credentials = {
  ident: 'api-basic',
  kind: 'http',
  secret: `${API_USER}:${API_PASSWORD}`,
};
const FAST: Partial<HttpLimits> = { backoffMs: 5, timeoutMs: 5000 };

function ctxOf(net: NetPolicy = LOOPBACK, signal = new AbortController().signal): ReadContext {
  return { box: 'src', signal, net };
}

async function readAll(
  input: HttpInput,
  cred: Credentials | null = bearer,
  ctx: ReadContext = ctxOf(),
  limits: Partial<HttpLimits> = FAST,
) {
  const pages: Record<string, unknown>[][] = [];
  for await (const page of httpRecords(input, cred, ctx, limits)) pages.push(page);
  return { pages, records: pages.flat() };
}

async function failure(p: Promise<unknown>): Promise<BoxError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BoxError);
  return err as BoxError;
}

let api: TestApi;
let other: TestApi; // a second origin (another port)

beforeAll(async () => {
  api = await startTestApi();
  other = await startTestApi();
});
afterAll(async () => {
  await api.close();
  await other.close();
});
beforeEach(() => {
  api.reset();
  other.reset();
});

describe('net guard', () => {
  it('classifies addresses', () => {
    const refused = [
      '127.0.0.1',
      '127.8.9.10',
      '::1',
      '[::1]',
      '10.0.0.1',
      '10.255.255.255',
      '172.16.0.1',
      '172.31.255.254',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '100.127.255.255',
      'fe80::1',
      'fe80::1%eth0',
      'fc00::1',
      'fd12:3456::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '::ffff:169.254.169.254',
      '64:ff9b::a00:1',
      '2002:c0a8:101::1',
      '0.0.0.0',
      '::',
      '224.0.0.1',
      '239.255.255.250',
      '255.255.255.255',
      'ff02::1',
      '192.0.2.1',
      '2001:db8::1',
      'localhost',
      'not an address',
    ];
    for (const a of refused) expect(isPublicAddress(a), a).toBe(false);
    const allowed = [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700:4700::1111',
      '2a00:1450:4001::1',
      '::ffff:8.8.8.8',
    ];
    for (const a of allowed) expect(isPublicAddress(a), a).toBe(true);
  });

  it('allows listed hosts by name and by resolved address', () => {
    expect(isAllowed('localhost', '127.0.0.1', NOBODY)).toBe(false);
    expect(isAllowed('localhost', '127.0.0.1', { allowHosts: ['localhost'] })).toBe(true);
    expect(isAllowed('localhost', '127.0.0.1', LOOPBACK)).toBe(true);
    expect(isAllowed('::ffff:127.0.0.1', '::ffff:127.0.0.1', LOOPBACK)).toBe(true);
    expect(isAllowed('::1', '::1', { allowHosts: ['[::1]'] })).toBe(true);
    expect(isAllowed('::1', '0:0:0:0:0:0:0:1', { allowHosts: ['::1'] })).toBe(true);
    expect(isAllowed('db.internal', '10.0.0.5', { allowHosts: ['db.internal'] })).toBe(true);
    expect(isAllowed('db.internal', '10.0.0.6', LOOPBACK)).toBe(false);
    expect(isAllowed('anything', '8.8.8.8', NOBODY)).toBe(true);
  });

  it('resolveAllowed refuses private literals and names, naming box, field, host and address', async () => {
    const ctx = { box: 'pg', field: 'credentials', net: NOBODY };
    for (const host of ['127.0.0.1', '[::1]', '10.1.2.3', '169.254.169.254', '::ffff:127.0.0.1']) {
      const err = await failure(resolveAllowed(host, ctx));
      expect(err.box).toBe('pg');
      expect(err.field).toBe('credentials');
      expect(err.message).toContain(host.replace(/[[\]]/g, ''));
      expect(err.message).toContain('URSA_CONNECTOR_ALLOW_HOSTS');
    }
    // A name is checked on what it resolves to (localhost resolves locally).
    const err = await failure(resolveAllowed('localhost', ctx));
    expect(err.message).toContain('"localhost"');
    expect(err.message).toMatch(/127\.0\.0\.1|::1/);
    // Public literals need no DNS and pass.
    await expect(resolveAllowed('8.8.8.8', ctx)).resolves.toEqual({
      address: '8.8.8.8',
      family: 4,
    });
    await expect(resolveAllowed('[2606:4700:4700::1111]', ctx)).resolves.toEqual({
      address: '2606:4700:4700::1111',
      family: 6,
    });
  });

  it('resolveAllowed allows listed hosts and returns the address to connect to', async () => {
    const byAddress = { box: 'pg', field: 'credentials', net: LOOPBACK };
    await expect(resolveAllowed('127.0.0.1', byAddress)).resolves.toEqual({
      address: '127.0.0.1',
      family: 4,
    });
    const byName = { box: 'pg', field: 'credentials', net: { allowHosts: ['localhost'] } };
    const { address } = await resolveAllowed('LocalHost', byName);
    expect(['127.0.0.1', '::1']).toContain(address);
  });

  it('guardedLookup checks what a name resolves to, in both callback forms', async () => {
    const lookup = (net: NetPolicy, all: boolean) =>
      new Promise<{ err: Error | null; address: unknown; family?: number }>((resolve) =>
        guardedLookup({ box: 'b', field: 'url', net })(
          'localhost',
          { all },
          (err, address, family) => resolve({ err, address, family }),
        ),
      );
    const refused = await lookup(NOBODY, true);
    expect(refused.err).toBeInstanceOf(BoxError);
    expect(refused.err!.message).toContain('URSA_CONNECTOR_ALLOW_HOSTS');
    const all = await lookup({ allowHosts: ['localhost'] }, true);
    expect(all.err).toBeNull();
    expect(Array.isArray(all.address)).toBe(true);
    const one = await lookup({ allowHosts: ['localhost'] }, false);
    expect(one.err).toBeNull();
    expect(typeof one.address).toBe('string');
    expect([4, 6]).toContain(one.family);
  });
});

describe('input.http: the guard on requests', () => {
  it('refuses a loopback URL before any request when 127.0.0.1 is not listed', async () => {
    const err = await failure(readAll({ url: `${api.url}/page` }, bearer, ctxOf(NOBODY)));
    expect(err.field).toBe('url');
    expect(err.message).toContain('127.0.0.1');
    expect(err.message).toContain('URSA_CONNECTOR_ALLOW_HOSTS');
    // by name too: localhost resolves to loopback, refused in the lookup, before connecting
    const byName = await failure(
      readAll({ url: `http://localhost:${api.port}/page` }, bearer, ctxOf(NOBODY)),
    );
    expect(byName.message).toContain('localhost');
    expect(api.total).toBe(0);
  });

  it('reads when 127.0.0.1 is listed, by address and by a name resolving to it', async () => {
    const { records } = await readAll({ url: `${api.url}/page`, records: '/data/items' });
    expect(records).toHaveLength(10);
    expect(records[0]).toEqual({ id: 0, name: 'item 0', value: 0, even: true });
    const viaName = await readAll({
      url: `http://localhost:${api.port}/page`,
      records: '/data/items',
    });
    expect(viaName.records).toHaveLength(10);
    expect(api.total).toBe(2);
  });

  it('re-checks every redirect hop', async () => {
    for (const to of [
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'http://[::1]:1/',
      'http://[::ffff:127.0.0.2]/',
      'http://0.0.0.0/',
    ]) {
      const url = `${api.url}/redirect?to=${encodeURIComponent(to)}`;
      // 127.0.0.1 is listed (the first hop works); the target is not
      const err = await failure(readAll({ url }));
      expect(err.field).toBe('url');
      expect(err.message).toContain('URSA_CONNECTOR_ALLOW_HOSTS');
    }
    expect(api.hits.get('/redirect')).toBe(5);
    expect(api.total).toBe(5);
    // Allowed by name only: the name passes (through the lookup, on each new connection),
    // the literal address it resolves to does not.
    const byName = ctxOf({ allowHosts: ['localhost'] });
    const ok = await readAll(
      {
        url: `http://localhost:${api.port}/redirect?to=${encodeURIComponent(`http://localhost:${other.port}/echo`)}`,
      },
      null,
      byName,
    );
    expect(ok.records).toHaveLength(1);
    expect(other.total).toBe(1);
    const err = await failure(
      readAll(
        {
          url: `http://localhost:${api.port}/redirect?to=${encodeURIComponent(`${other.url}/echo`)}`,
        },
        null,
        byName,
      ),
    );
    expect(err.message).toContain('127.0.0.1');
    expect(other.total).toBe(1);
  });
});

describe('input.http: pagination', () => {
  it('page numbers with a size parameter, records at a JSON pointer', async () => {
    const { pages, records } = await readAll({
      url: `${api.url}/page?n=45`,
      records: '/data/items',
      pagination: { type: 'page', param: 'page', sizeParam: 'size', size: 10 },
    });
    expect(pages.map((p) => p.length)).toEqual([10, 10, 10, 10, 5]);
    expect(records.map((r) => r.id)).toEqual([...Array(45).keys()]);
    expect(api.hits.get('/page')).toBe(6); // the empty sixth page ends it
  });

  it('page numbers from a start of 0', async () => {
    const { records } = await readAll({
      url: `${api.url}/page0?n=23`,
      pagination: { type: 'page', param: 'p', start: 0 },
    });
    expect(records.map((r) => r.id)).toEqual([...Array(23).keys()]);
  });

  it('offset advances by the records received, not the limit asked for', async () => {
    const { pages, records } = await readAll({
      url: `${api.url}/offset?n=30`,
      pagination: { type: 'offset', param: 'offset', limitParam: 'limit', limit: 10 },
    });
    expect(pages.map((p) => p.length)).toEqual([7, 7, 7, 7, 2]);
    expect(records.map((r) => r.id)).toEqual([...Array(30).keys()]);
  });

  it('cursor from a JSON pointer, stops when it is null', async () => {
    const { pages, records } = await readAll({
      url: `${api.url}/cursor?n=25&size=10`,
      records: '/items',
      pagination: { type: 'cursor', param: 'cursor', path: '/meta/next' },
    });
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    expect(records.map((r) => r.id)).toEqual([...Array(25).keys()]);
    expect(api.hits.get('/cursor')).toBe(3);
  });

  it('a cursor that repeats is an error', async () => {
    const err = await failure(
      readAll({
        url: `${api.url}/same-cursor`,
        records: '/items',
        pagination: { type: 'cursor', param: 'c', path: '/next' },
      }),
    );
    expect(err.field).toBe('pagination.path');
  });

  it('Link rel="next", resolved relative to the current URL', async () => {
    const { pages, records } = await readAll({
      url: `${api.url}/link?n=35&size=10`,
      pagination: { type: 'link' },
    });
    expect(pages.map((p) => p.length)).toEqual([10, 10, 10, 5]);
    expect(records.map((r) => r.id)).toEqual([...Array(35).keys()]);
  });

  it('more pages than maxPages is an error, exactly maxPages is not', async () => {
    const err = await failure(
      readAll({
        url: `${api.url}/forever`,
        maxPages: 3,
        pagination: { type: 'page', param: 'page' },
      }),
    );
    expect(err.field).toBe('maxPages');
    expect(api.hits.get('/forever')).toBe(4);
    const { pages } = await readAll({
      url: `${api.url}/page?n=30`,
      records: '/data/items',
      maxPages: 3,
      pagination: { type: 'page', param: 'page', sizeParam: 'size', size: 10 },
    });
    expect(pages).toHaveLength(3);
  });

  it('stops at once on abort mid-pagination, with the signal reason', async () => {
    const ac = new AbortController();
    const gen = httpRecords(
      {
        url: `${api.url}/page?n=1000`,
        records: '/data/items',
        pagination: { type: 'page', param: 'page', sizeParam: 'size', size: 10 },
      },
      bearer,
      ctxOf(LOOPBACK, ac.signal),
      FAST,
    );
    const first = await gen.next();
    expect(first.value).toHaveLength(10);
    const reason = new Error('stopped by the user');
    ac.abort(reason);
    await expect(gen.next()).rejects.toBe(reason);
    expect(api.hits.get('/page')).toBe(1);
  });

  it('an abort during a slow request or a Retry-After wait ends it at once', async () => {
    const ac = new AbortController();
    const reason = new Error('cancelled');
    setTimeout(() => ac.abort(reason), 100);
    const t0 = Date.now();
    await expect(
      readAll({ url: `${api.url}/slow?ms=5000` }, bearer, ctxOf(LOOPBACK, ac.signal)),
    ).rejects.toBe(reason);
    expect(Date.now() - t0).toBeLessThan(2000);

    const ac2 = new AbortController();
    setTimeout(() => ac2.abort(reason), 150);
    const t1 = Date.now();
    await expect(
      readAll(
        { url: `${api.url}/flaky?key=abort&fail=5&status=429&after=30` },
        bearer,
        ctxOf(LOOPBACK, ac2.signal),
        { maxRetryAfterMs: 60_000 },
      ),
    ).rejects.toBe(reason);
    expect(Date.now() - t1).toBeLessThan(2000);
    expect(api.hits.get('/flaky')).toBe(1);
  });
});

describe('input.http: requests', () => {
  it('sends the bearer token; basic auth with user:password', async () => {
    const { records } = await readAll({ url: `${api.url}/basic`, auth: 'basic' }, basic);
    expect(records).toEqual([{ user: API_USER }]);
    await readAll({ url: `${api.url}/page`, records: '/data/items' });
    expect(api.lastHeaders.get('/page')?.authorization).toBe(`Bearer ${API_TOKEN}`);
    expect(api.lastHeaders.get('/page')?.['accept-encoding']).toContain('gzip');
  });

  it('POST sends the body as JSON; a 303 turns it into a GET', async () => {
    const { records } = await readAll({
      url: `${api.url}/search`,
      method: 'POST',
      body: { query: 'x', n: [1, 2] },
    });
    expect(records).toEqual([{ method: 'POST', body: { query: 'x', n: [1, 2] } }]);
    const redirected = await readAll({
      url: `${api.url}/redirect?status=303&to=/echo`,
      method: 'POST',
      body: { a: 1 },
    });
    expect(redirected.records[0]).toMatchObject({ method: 'GET', body: '' });
    const kept = await readAll({
      url: `${api.url}/redirect?status=307&to=/echo`,
      method: 'POST',
      body: { a: 1 },
    });
    expect(kept.records[0]).toMatchObject({
      method: 'POST',
      body: '{"a":1}',
      contentType: 'application/json',
    });
  });

  it('keeps credentials on same-origin redirects, never sends them to another origin', async () => {
    const same = await readAll({
      url: `${api.url}/redirect?to=/echo`,
      headers: { 'X-Key': 'k1' },
    });
    expect(same.records[0]).toMatchObject({ authorization: `Bearer ${API_TOKEN}`, xKey: 'k1' });
    const cross = await readAll({
      url: `${api.url}/redirect?to=${encodeURIComponent(`${other.url}/echo`)}`,
      headers: { 'X-Key': 'k1' },
    });
    expect(cross.records[0]).toMatchObject({ authorization: null, xKey: null });
    expect(other.hits.get('/echo')).toBe(1);
  });

  it('refuses more than 5 redirects, and non-http URLs', async () => {
    const loop = await failure(readAll({ url: `${api.url}/loop` }));
    expect(loop.field).toBe('url');
    expect(loop.message).toContain('redirects');
    expect(api.hits.get('/loop')).toBe(6);
    const ftp = await failure(
      readAll({ url: `${api.url}/redirect?to=${encodeURIComponent('file:///etc/passwd')}` }),
    );
    expect(ftp.field).toBe('url');
    const direct = await failure(readAll({ url: 'ftp://127.0.0.1/x' }));
    expect(direct.field).toBe('url');
    const userinfo = await failure(readAll({ url: `http://u:p@127.0.0.1:${api.port}/page` }));
    expect(userinfo.field).toBe('url');
  });

  it('times out a slow answer and a trickling body', async () => {
    const t0 = Date.now();
    const err = await failure(
      readAll({ url: `${api.url}/slow?ms=3000` }, bearer, ctxOf(), { timeoutMs: 200, retries: 0 }),
    );
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(err.field).toBe('url');
    expect(err.message).toMatch(/200 ms/);
    const trickle = await failure(
      readAll({ url: `${api.url}/trickle` }, bearer, ctxOf(), { timeoutMs: 300, retries: 1 }),
    );
    expect(trickle.message).toMatch(/after 2 attempts/);
    expect(api.hits.get('/trickle')).toBe(2);
  });

  it('retries 503 and 429 with Retry-After, and dropped connections', async () => {
    const ok = await readAll({ url: `${api.url}/flaky?key=a&fail=3&status=503` });
    expect(ok.records).toEqual([{ attempt: 4 }]);
    const t0 = Date.now();
    const limited = await readAll(
      { url: `${api.url}/flaky?key=b&fail=1&status=429&after=1` },
      bearer,
      ctxOf(),
      { backoffMs: 5 },
    );
    const waited = Date.now() - t0;
    expect(limited.records).toEqual([{ attempt: 2 }]);
    expect(waited).toBeGreaterThanOrEqual(950); // Retry-After: 1 (s), not the 5 ms backoff
    // capped at maxRetryAfterMs
    const t1 = Date.now();
    await readAll({ url: `${api.url}/flaky?key=c&fail=1&status=429&after=3600` }, bearer, ctxOf(), {
      backoffMs: 5,
      maxRetryAfterMs: 100,
    });
    expect(Date.now() - t1).toBeLessThan(1000);
    // an HTTP date
    const date = new Date(Date.now() + 60_000).toUTCString();
    await readAll(
      { url: `${api.url}/flaky?key=d&fail=1&status=503&after=${encodeURIComponent(date)}` },
      bearer,
      ctxOf(),
      { backoffMs: 5, maxRetryAfterMs: 50 },
    );
    const reset = await readAll({ url: `${api.url}/reset?key=e&fail=2` });
    expect(reset.records).toEqual([{ attempt: 3 }]);
  });

  it('gives up after the retries, with the status', async () => {
    const err = await failure(
      readAll({ url: `${api.url}/flaky?key=f&fail=100&status=503` }, bearer, ctxOf(), {
        backoffMs: 1,
        retries: 2,
      }),
    );
    expect(err.field).toBe('url');
    expect(err.message).toContain('503');
    expect(err.message).toContain('after 3 attempts');
    expect(api.hits.get('/flaky')).toBe(3);
  });

  it('401/403 name the credentials; other 4xx give status and excerpt', async () => {
    const e401 = await failure(readAll({ url: `${api.url}/page` }, null));
    expect(e401.field).toBe('credentials');
    expect(e401.message).toContain('401');
    const e403 = await failure(readAll({ url: `${api.url}/forbidden` }));
    expect(e403.field).toBe('credentials');
    expect(e403.message).toContain('refused the credentials');
    expect(e403.message).toContain('403');
    const e404 = await failure(readAll({ url: `${api.url}/missing` }));
    expect(e404.field).toBe('url');
    expect(e404.message).toContain('404');
    expect(e404.message).toContain('no such thing');
    expect(api.hits.get('/missing')).toBe(1); // 4xx is not retried
  });

  it('never puts the secret in an error message', async () => {
    const wrongToken = 'wrong-SECRET-token-77';
    const e1 = await failure(
      readAll({ url: `${api.url}/page` }, { ident: 'w', kind: 'http', secret: wrongToken }),
    );
    expect(e1.message).toContain('invalid token'); // the body excerpt is there…
    expect(e1.message).not.toContain(wrongToken); // …without the token it echoed
    const wrongPw = 'bad-SECRET-pw-99';
    const e2 = await failure(
      readAll(
        { url: `${api.url}/basic`, auth: 'basic' },
        { ident: 'w', kind: 'http', secret: `${API_USER}:${wrongPw}` },
      ),
    );
    expect(e2.field).toBe('credentials');
    expect(e2.message).not.toContain(wrongPw);
    expect(e2.message).not.toContain(Buffer.from(`${API_USER}:${wrongPw}`).toString('base64'));
    const e3 = await failure(
      readAll({ url: `${api.url}/page` }, { ident: 'w', kind: 'http', secret: 'a\r\nb-SECRET' }),
    );
    expect(e3.field).toBe('credentials');
    expect(e3.message).not.toContain('b-SECRET');
    for (const e of [e1, e2, e3]) expect(e.message).not.toContain(API_TOKEN);
  });

  it('refuses credentials of another kind and basic without user:password', async () => {
    const pg = await failure(
      readAll({ url: `${api.url}/page` }, { ident: 'db', kind: 'postgres', secret: 'x' }),
    );
    expect(pg.field).toBe('credentials');
    const noColon = await failure(
      readAll(
        { url: `${api.url}/basic`, auth: 'basic' },
        { ident: 'b', kind: 'http', secret: 'x' },
      ),
    );
    expect(noColon.field).toBe('credentials');
    expect(api.total).toBe(0);
  });
});

describe('input.http: responses', () => {
  it('decompresses gzip, deflate and brotli', async () => {
    for (const path of ['/gzip', '/deflate', '/br']) {
      const { records } = await readAll({ url: `${api.url}${path}?n=500` });
      expect(records, path).toHaveLength(500);
      expect(records[499]).toMatchObject({ id: 499 });
    }
  });

  it('limits the size while streaming, with and without content-length, and decompressed', async () => {
    const limits = { ...FAST, maxResponseBytes: 100_000 };
    for (const q of ['bytes=300000', 'bytes=300000&chunked=1']) {
      const err = await failure(readAll({ url: `${api.url}/big?${q}` }, bearer, ctxOf(), limits));
      expect(err.field).toBe('url');
      expect(err.message).toContain('maxResponseBytes');
    }
    const bomb = await failure(readAll({ url: `${api.url}/bomb` }, bearer, ctxOf(), limits));
    expect(bomb.message).toContain('decompressed');
    // under the limit it reads
    const { records } = await readAll(
      { url: `${api.url}/big?bytes=50000` },
      bearer,
      ctxOf(),
      limits,
    );
    expect(records.length).toBeGreaterThan(100);
  });

  it('explains a non-JSON body, a body without records, and non-object records', async () => {
    const html = await failure(readAll({ url: `${api.url}/html` }));
    expect(html.message).toContain('text/html');
    expect(html.message).toContain('Login');
    const obj = await failure(readAll({ url: `${api.url}/object` }));
    expect(obj.field).toBe('records');
    expect(obj.message).toContain('/data/rows');
    const missing = await failure(readAll({ url: `${api.url}/object`, records: '/nope' }));
    expect(missing.field).toBe('records');
    const scalars = await failure(readAll({ url: `${api.url}/scalars`, records: '/data' }));
    expect(scalars.field).toBe('records');
    expect(scalars.message).toContain('record 2');
    const rows = await readAll({ url: `${api.url}/object`, records: '/data/rows' });
    expect(rows.records).toEqual([{ a: 1 }]);
    const empty = await readAll({ url: `${api.url}/empty` });
    expect(empty.records).toEqual([]);
  });

  it('reads 200k records at 1,000 per page at 20k records/s or more', async () => {
    const input: HttpInput = {
      url: `${api.url}/page?n=200000`,
      records: '/data/items',
      pagination: { type: 'page', param: 'page', sizeParam: 'size', size: 1000 },
    };
    await readAll({ ...input, url: `${api.url}/page?n=5000` }); // warm up
    const t0 = performance.now();
    let count = 0;
    for await (const page of httpRecords(input, bearer, ctxOf(), FAST)) count += page.length;
    const secs = (performance.now() - t0) / 1000;
    expect(count).toBe(200_000);
    const rate = count / secs;
    console.log(`input.http: ${Math.round(rate)} records/s`);
    expect(rate).toBeGreaterThan(20_000);
  });
});

describe('input.http: parameters', () => {
  it('the schema refuses unknown and bad parameters and converts to JSON Schema', async () => {
    const js = z.toJSONSchema(httpInputSchema) as { properties: Record<string, unknown> };
    expect(Object.keys(js.properties)).toEqual(
      expect.arrayContaining(['url', 'pagination', 'records', 'maxPages', 'credentials']),
    );
    for (const [k, v] of Object.entries(js.properties)) {
      expect((v as { description?: string }).description, k).toBeTruthy();
    }
    expect(httpInputSchema.safeParse({ url: 'http://x', colour: 1 }).success).toBe(false);
    expect(
      httpInputSchema.safeParse({ url: 'http://x', pagination: { type: 'link', x: 1 } }).success,
    ).toBe(false);
    expect(httpInputSchema.safeParse({ url: 'http://x', maxPages: 100_001 }).success).toBe(false);
    expect(httpInputSchema.safeParse({ url: 'http://x', records: 'data' }).success).toBe(false);
    expect(httpInputSchema.safeParse({ url: 'http://x', body: {} }).success).toBe(false);
    expect(
      httpInputSchema.safeParse({ url: 'http://x', headers: { 'content-length': '1' } }).success,
    ).toBe(false);
    expect(
      httpInputSchema.safeParse({
        url: 'https://api.example.com/v1?x=1',
        method: 'POST',
        body: { q: 1 },
        credentials: 'tok',
        auth: 'basic',
        records: '/data/a~1b',
        pagination: { type: 'cursor', param: 'c', path: '/next' },
        maxPages: 100_000,
      }).success,
    ).toBe(true);

    // a whole box (id and type beside the parameters) is accepted
    const box = { id: 'src', type: 'input.http', url: `${api.url}/page`, records: '/data/items' };
    expect((await readAll(box as HttpInput)).records).toHaveLength(10);
    api.reset();
    const unknown = await failure(
      readAll({ url: `${api.url}/page`, colour: 'red' } as unknown as HttpInput),
    );
    expect(unknown.message).toContain('colour');
    const bad = await failure(
      readAll({ url: `${api.url}/page`, pagination: { type: 'page' } } as unknown as HttpInput),
    );
    expect(bad.field).toBe('pagination.param');
    expect(api.total).toBe(0);
  });

  it('helpers: JSON pointer, Link header, Retry-After', () => {
    const doc = { a: { 'b/c': [10, { '~d': 'x' }] }, '': 1 };
    expect(getJsonPointer(doc, '')).toBe(doc);
    expect(getJsonPointer(doc, '/a/b~1c/1/~0d')).toBe('x');
    expect(getJsonPointer(doc, '/a/b~1c/01')).toBeUndefined();
    expect(getJsonPointer(doc, '/')).toBe(1);
    expect(getJsonPointer(doc, '/a/constructor')).toBeUndefined();
    expect(
      nextLink('<https://x/?p=1>; rel="prev", <https://x/?p=3>; rel="next"; title="a, b"'),
    ).toBe('https://x/?p=3');
    expect(nextLink('<a>; title="rel=next", <b>; rel=next')).toBe('b');
    expect(nextLink('<a>; rel="prev"')).toBeNull();
    expect(nextLink(undefined)).toBeNull();
    expect(retryAfterMs('7')).toBe(7000);
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('soon')).toBeNull();
  });
});
