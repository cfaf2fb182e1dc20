// A loopback JSON API for connector tests: every pagination style, bearer and basic auth,
// slow answers, 429/503 before success, dropped connections, redirects, oversized, gzip,
// brotli and non-JSON bodies. It listens on 127.0.0.1 only and counts every request.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

export const API_TOKEN = 'tok-SECRET-5f2a9c71e8';
export const API_USER = 'reader';
export const API_PASSWORD = 'pw-SECRET-83bd1';

export interface TestApi {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  /** Requests received, all paths. */
  readonly total: number;
  /** Requests per path name. */
  hits: Map<string, number>;
  /** Headers of the last request per path name. */
  lastHeaders: Map<string, http.IncomingHttpHeaders>;
  /** The request target (path and query string) of the last request per path name. */
  lastTarget: Map<string, string>;
  reset(): void;
  close(): Promise<void>;
}

const record = (i: number) => ({ id: i, name: `item ${i}`, value: i * 1.5, even: i % 2 === 0 });

/** A page of records [from, to) of a total, as JSON text (cached: the server stays cheap). */
const cache = new Map<string, string>();
function slice(from: number, to: number, wrap: (items: string) => string): string {
  const key = `${from}:${to}`;
  let items = cache.get(key);
  if (items === undefined) {
    const parts: string[] = [];
    for (let i = from; i < to; i++) parts.push(JSON.stringify(record(i)));
    items = `[${parts.join(',')}]`;
    if (cache.size > 5000) cache.clear();
    cache.set(key, items);
  }
  return wrap(items);
}

function send(
  res: http.ServerResponse,
  status: number,
  body: string | Buffer,
  headers: http.OutgoingHttpHeaders = {},
): void {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': buf.length,
    ...headers,
  });
  res.end(buf);
}

export async function startTestApi(): Promise<TestApi> {
  const hits = new Map<string, number>();
  const lastHeaders = new Map<string, http.IncomingHttpHeaders>();
  const lastTarget = new Map<string, string>();
  const flaky = new Map<string, number>();
  let total = 0;

  const server = http.createServer((req, res) => {
    req.on('error', () => {});
    res.on('error', () => {});
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = u.pathname;
    total++;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    lastHeaders.set(path, req.headers);
    lastTarget.set(path, req.url ?? '/');
    const q = (k: string, d: number) => (u.searchParams.has(k) ? Number(u.searchParams.get(k)) : d);
    const n = q('n', 25);

    // Open routes (no credentials): echo, redirects, the cross-origin target.
    if (path === '/echo') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () =>
        send(
          res,
          200,
          JSON.stringify([
            {
              method: req.method,
              authorization: req.headers.authorization ?? null,
              xKey: req.headers['x-key'] ?? null,
              contentType: req.headers['content-type'] ?? null,
              body: Buffer.concat(chunks).toString('utf8'),
            },
          ]),
        ),
      );
      return;
    }
    if (path === '/redirect') {
      res.writeHead(q('status', 302), { location: u.searchParams.get('to') ?? '/' });
      res.end();
      return;
    }
    if (path === '/loop') {
      res.writeHead(302, { location: '/loop' });
      res.end();
      return;
    }

    // Basic auth.
    if (path === '/basic') {
      const want = `Basic ${Buffer.from(`${API_USER}:${API_PASSWORD}`).toString('base64')}`;
      if (req.headers.authorization !== want) {
        return send(res, 401, `bad credentials: ${req.headers.authorization ?? 'none'}`, {
          'content-type': 'text/plain',
          'www-authenticate': 'Basic realm="test"',
        });
      }
      return send(res, 200, JSON.stringify([{ user: API_USER }]));
    }

    // Everything else wants the bearer token; a wrong one is echoed (as careless APIs do).
    if (req.headers.authorization !== `Bearer ${API_TOKEN}`) {
      const status = path === '/forbidden' ? 403 : 401;
      return send(
        res,
        status,
        JSON.stringify({ error: `invalid token: ${req.headers.authorization ?? 'none'}` }),
      );
    }
    if (path === '/forbidden') return send(res, 403, JSON.stringify({ error: 'no access' }));

    switch (path) {
      case '/page': {
        // ?page=1..&size= → { data: { items: [...] } }
        const size = q('size', 10);
        const from = (q('page', 1) - 1) * size;
        const body = slice(
          Math.min(from, n),
          Math.min(from + size, n),
          (i) => `{"data":{"items":${i}}}`,
        );
        return send(res, 200, body);
      }
      case '/page0': {
        // zero-based pages, fixed size 10, ignores size parameters
        const from = q('p', 0) * 10;
        return send(
          res,
          200,
          slice(Math.min(from, n), Math.min(from + 10, n), (i) => i),
        );
      }
      case '/offset': {
        // ?offset=&limit= → [...] (the API caps limit at 7, so pages come short)
        const from = q('offset', 0);
        const limit = Math.min(q('limit', 10), 7);
        return send(
          res,
          200,
          slice(Math.min(from, n), Math.min(from + limit, n), (i) => i),
        );
      }
      case '/cursor': {
        // ?cursor=c<offset> → { items, meta: { next } }
        const size = q('size', 10);
        const c = u.searchParams.get('cursor');
        const from = c ? Number(c.slice(1)) : 0;
        const to = Math.min(from + size, n);
        const next = to < n ? JSON.stringify(`c${to}`) : 'null';
        return send(
          res,
          200,
          slice(from, to, (i) => `{"items":${i},"meta":{"next":${next}}}`),
        );
      }
      case '/same-cursor':
        return send(res, 200, JSON.stringify({ items: [{ a: 1 }], next: 'again' }));
      case '/link': {
        // ?page= → [...], Link: <…?page=N+1>; rel="next" (relative), plus other relations
        const size = q('size', 10);
        const page = q('page', 1);
        const from = (page - 1) * size;
        const to = Math.min(from + size, n);
        const links = [`</link?page=1&size=${size}&n=${n}>; rel="first"`];
        if (to < n) links.push(`</link?page=${page + 1}&size=${size}&n=${n}>; rel="next last"`);
        return send(
          res,
          200,
          slice(Math.min(from, n), to, (i) => i),
          { link: links.join(', ') },
        );
      }
      case '/forever':
        // every page non-empty: only maxPages ends it
        return send(res, 200, JSON.stringify([{ page: u.searchParams.get('page') }]));
      case '/search': {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') as unknown;
          send(res, 200, JSON.stringify([{ method: req.method, body }]));
        });
        return;
      }
      case '/slow': {
        const timer = setTimeout(() => send(res, 200, '[{"slow":true}]'), q('ms', 1000));
        res.on('close', () => clearTimeout(timer));
        return;
      }
      case '/trickle': {
        // headers at once, then a byte every 50 ms, never finishing
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('[');
        const timer = setInterval(() => res.write(' '), 50);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case '/flaky': {
        // fails `fail` times with `status` (and Retry-After `after`, if given), then succeeds
        const key = u.searchParams.get('key') ?? '';
        const seen = (flaky.get(key) ?? 0) + 1;
        flaky.set(key, seen);
        if (seen <= q('fail', 2)) {
          const headers: http.OutgoingHttpHeaders = {};
          const after = u.searchParams.get('after');
          if (after) headers['retry-after'] = after;
          return send(res, q('status', 503), JSON.stringify({ error: 'busy' }), headers);
        }
        return send(res, 200, JSON.stringify([{ attempt: seen }]));
      }
      case '/reset': {
        // drops the connection `fail` times, then succeeds
        const key = u.searchParams.get('key') ?? '';
        const seen = (flaky.get(key) ?? 0) + 1;
        flaky.set(key, seen);
        if (seen <= q('fail', 2)) return req.socket.destroy();
        return send(res, 200, JSON.stringify([{ attempt: seen }]));
      }
      case '/big': {
        // ?bytes= of JSON, with content-length or (chunked=1) without
        const bytes = q('bytes', 1_000_000);
        const one = JSON.stringify(record(1));
        const count = Math.ceil(bytes / (one.length + 1));
        const body = `[${new Array<string>(count).fill(one).join(',')}]`;
        if (u.searchParams.get('chunked')) {
          res.writeHead(200, { 'content-type': 'application/json' });
          const buf = Buffer.from(body);
          for (let i = 0; i < buf.length; i += 65536) res.write(buf.subarray(i, i + 65536));
          res.end();
          return;
        }
        return send(res, 200, body);
      }
      case '/gzip': {
        const body = slice(0, n, (i) => i);
        const accepts = String(req.headers['accept-encoding'] ?? '');
        if (!accepts.includes('gzip')) return send(res, 200, body);
        return send(res, 200, zlib.gzipSync(body), { 'content-encoding': 'gzip' });
      }
      case '/br':
        return send(res, 200, zlib.brotliCompressSync(slice(0, n, (i) => i)), {
          'content-encoding': 'br',
        });
      case '/deflate':
        return send(res, 200, zlib.deflateSync(slice(0, n, (i) => i)), {
          'content-encoding': 'deflate',
        });
      case '/bomb': {
        // 64 MB of JSON whitespace, gzipped to ~64 KB
        const body = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024, ' '), { level: 9 });
        return send(res, 200, body, { 'content-encoding': 'gzip' });
      }
      case '/html':
        return send(res, 200, '<!doctype html><html><body>Login</body></html>', {
          'content-type': 'text/html; charset=utf-8',
        });
      case '/object':
        return send(res, 200, JSON.stringify({ count: 2, data: { rows: [{ a: 1 }] }, tags: [] }));
      case '/scalars':
        return send(res, 200, JSON.stringify({ data: [{ a: 1 }, 2] }));
      case '/empty':
        res.writeHead(204);
        res.end();
        return;
      case '/missing':
        return send(res, 404, JSON.stringify({ error: 'no such thing' }));
      default:
        return send(res, 404, JSON.stringify({ error: `no route ${path}` }));
    }
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get total() {
      return total;
    },
    hits,
    lastHeaders,
    lastTarget,
    reset() {
      total = 0;
      hits.clear();
      lastHeaders.clear();
      lastTarget.clear();
      flaky.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
