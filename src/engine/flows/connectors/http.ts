// input.http: records from a JSON HTTP API, page after page. Every connection goes through the
// network guard (guardedLookup for names, checkLiteralHost for literal addresses, on every
// redirect hop too); every request has a timeout and a response-size limit enforced while the
// body streams in (after decompression as well); 429, 408, 5xx and network errors are retried
// with exponential backoff honouring Retry-After; every wait stops at once on ctx.signal.
// Errors the user must fix are BoxErrors naming the parameter, and never contain the secret.
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';
import { z } from 'zod';
import { BoxError } from '../errors.js';
import { REDACTED, redactedSpots } from '../redact.js';
import { HEADER_NAME, HEADER_VALUE, RESERVED_HEADERS } from './http-headers.js';
import { checkLiteralHost, guardedLookup, type GuardContext } from './net-guard.js';
import type { Credentials, ReadContext } from './types.js';

// ---------------------------------------------------------------------------------------
// Parameters

export type HttpPagination =
  | { type: 'page'; param: string; start?: number; sizeParam?: string; size?: number }
  | { type: 'offset'; param: string; limitParam: string; limit: number }
  | { type: 'cursor'; param: string; path: string }
  | { type: 'link' };

export interface HttpInput {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: unknown;
  /** The credentials object's ident (resolved by the caller, passed as `cred`). */
  credentials?: string;
  auth?: 'bearer' | 'basic';
  records?: string;
  pagination?: HttpPagination;
  maxPages?: number;
}

export interface HttpLimits {
  /** Per request (connection, headers and body), ms. */
  timeoutMs: number;
  /** Per response body, after decompression too. */
  maxResponseBytes: number;
  /** Retries after the first attempt (429, 408, 5xx, network errors, timeouts). */
  retries: number;
  /** First backoff, doubled each retry (with jitter). */
  backoffMs: number;
  /** The longest wait a Retry-After header can ask for (longer ones are capped). */
  maxRetryAfterMs: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  timeoutMs: 30_000,
  maxResponseBytes: 50 * 1024 * 1024,
  retries: 4,
  backoffMs: 500,
  maxRetryAfterMs: 60_000,
};

export const MAX_PAGES_DEFAULT = 1000;
export const MAX_PAGES_LIMIT = 100_000;
const MAX_REDIRECTS = 5;
/** How much of an error response is read (for the excerpt in the message). */
const ERROR_BODY_BYTES = 16 * 1024;

const JSON_POINTER = /^(\/([^~/]|~[01])*)*$/;

const jsonPointer = (what: string) =>
  z
    .string()
    .regex(JSON_POINTER, 'must be a JSON pointer (RFC 6901) such as /data/items')
    .describe(what);
const queryParam = (what: string) => z.string().min(1).max(200).describe(what);

export const httpPaginationSchema = z
  .discriminatedUnion('type', [
    z
      .object({
        type: z.literal('page').describe('Page numbers: increments a query parameter.'),
        param: queryParam('Query parameter carrying the page number, e.g. "page".'),
        start: z.number().int().min(0).optional().describe('Number of the first page (default 1).'),
        sizeParam: queryParam('Query parameter carrying the page size, e.g. "per_page".')
          .optional()
          .describe('Query parameter carrying the page size, e.g. "per_page" (with `size`).'),
        size: z
          .number()
          .int()
          .min(1)
          .max(1_000_000)
          .optional()
          .describe('Page size sent in `sizeParam`.'),
      })
      .strict()
      .describe('Page-number pagination: ?page=1, ?page=2, … until an empty page.'),
    z
      .object({
        type: z.literal('offset').describe('Offset/limit: offset += records received.'),
        param: queryParam('Query parameter carrying the offset, e.g. "offset".'),
        limitParam: queryParam('Query parameter carrying the limit, e.g. "limit".'),
        limit: z.number().int().min(1).max(1_000_000).describe('Records asked for per page.'),
      })
      .strict()
      .describe('Offset pagination: ?offset=0&limit=N, then offset += records received.'),
    z
      .object({
        type: z.literal('cursor').describe('Cursor: the next cursor is read from each page.'),
        param: queryParam('Query parameter carrying the cursor, e.g. "cursor".'),
        path: jsonPointer(
          'JSON pointer (RFC 6901) to the next cursor in the response body, e.g. /meta/next; ' +
            'pagination stops when it is missing, null or empty.',
        ),
      })
      .strict()
      .describe('Cursor pagination: the first request has no cursor, later ones ?param=<cursor>.'),
    z
      .object({
        type: z.literal('link').describe('Follows the Link header (RFC 8288) rel="next".'),
      })
      .strict()
      .describe('Link-header pagination: follows rel="next" URLs until there is none.'),
  ])
  .describe('How to fetch further pages. Every pagination stops on an empty page.');

export const httpInputSchema = z
  .object({
    url: z
      .url({ protocol: /^https?$/, error: 'must be an http: or https: URL' })
      .max(8192)
      .refine((u) => !hasUserInfo(u), {
        error: 'must not contain a user or password (user:password@): use credentials',
      })
      .describe(
        'URL of the JSON API (http: or https:); the first page for paginated APIs. No ' +
          'user:password@; its query string is hidden from members below MD Admin.',
      ),
    method: z.enum(['GET', 'POST']).optional().describe('HTTP method (default GET).'),
    headers: z
      .record(
        z.string().regex(HEADER_NAME, 'must be a valid header name'),
        z.string().max(8192).regex(HEADER_VALUE, 'must not contain line breaks'),
      )
      .refine((h) => !Object.keys(h).some((k) => RESERVED_HEADERS.has(k.toLowerCase())), {
        message: `must not set ${[...RESERVED_HEADERS].join(', ')}`,
      })
      .optional()
      .describe(
        'Extra request headers (name to value). Sent only to the origin of `url`; values are ' +
          'hidden from members below MD Admin; put secrets in a credentials object instead.',
      ),
    body: z
      .unknown()
      .optional()
      .describe('JSON value sent as the request body (application/json); only with POST.'),
    credentials: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Ident of a credentials object of kind http: its secret is a bearer token, ' +
          '`user:password` with auth "basic", or an API key in the header or query parameter ' +
          'its `apiKey` names. Sent only to the origin of `url`.',
      ),
    auth: z
      .enum(['bearer', 'basic'])
      .optional()
      .describe('How the credentials are sent: "bearer" (default) or "basic".'),
    records: jsonPointer(
      'JSON pointer (RFC 6901) to the array of records in each response, e.g. /data/items; ' +
        'by default the response itself must be an array. Each record must be an object.',
    ).optional(),
    pagination: httpPaginationSchema.optional(),
    maxPages: z
      .number()
      .int()
      .min(1)
      .max(MAX_PAGES_LIMIT)
      .optional()
      .describe(
        `Most pages read (default ${MAX_PAGES_DEFAULT}, at most ${MAX_PAGES_LIMIT}); more is ` +
          'an error, never a silent truncation.',
      ),
  })
  .strict()
  .superRefine((v, c) => {
    for (const spot of redactedSpots(v))
      c.addIssue({
        code: 'custom',
        path: spot.split('.'),
        message: `holds "${REDACTED}", the mark of a value hidden from members below MD Admin: send the real value`,
      });
    if (v.body !== undefined && (v.method ?? 'GET') !== 'POST') {
      c.addIssue({ code: 'custom', path: ['body'], message: 'is sent only with method POST' });
    }
    const p = v.pagination;
    if (p?.type === 'page' && (p.sizeParam === undefined) !== (p.size === undefined)) {
      c.addIssue({
        code: 'custom',
        path: ['pagination', p.size === undefined ? 'size' : 'sizeParam'],
        message: '`sizeParam` and `size` go together',
      });
    }
  })
  .describe('Reads records from a JSON HTTP API, following pagination.');

// The schema and the interface describe the same thing.
httpInputSchema satisfies z.ZodType<HttpInput>;

// ---------------------------------------------------------------------------------------
// Helpers

function hasUserInfo(url: string): boolean {
  try {
    const u = new URL(url);
    return u.username !== '' || u.password !== '';
  } catch {
    return false; // not a URL: z.url() says so
  }
}

/** RFC 6901: the value at `pointer` in `doc`, or undefined when there is none. */
export function getJsonPointer(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  let cur: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      cur = cur[Number(token)];
    } else if (cur !== null && typeof cur === 'object') {
      if (!Object.hasOwn(cur, token)) return undefined;
      cur = (cur as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return cur;
}

/** The rel="next" target of a Link header (RFC 8288), unresolved, or null. */
export function nextLink(header: string | string[] | undefined): string | null {
  const s = Array.isArray(header) ? header.join(', ') : header;
  if (!s) return null;
  let i = 0;
  while (i < s.length) {
    const lt = s.indexOf('<', i);
    if (lt < 0) return null;
    const gt = s.indexOf('>', lt + 1);
    if (gt < 0) return null;
    const target = s.slice(lt + 1, gt).trim();
    // Parameters up to the next comma outside quotes.
    let j = gt + 1;
    let inQuotes = false;
    while (j < s.length && (inQuotes || s[j] !== ',')) {
      if (s[j] === '"') inQuotes = !inQuotes;
      else if (s[j] === '\\' && inQuotes) j++;
      j++;
    }
    for (const param of s.slice(gt + 1, j).split(';')) {
      const eq = param.indexOf('=');
      if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'rel') continue;
      const value = param
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/s, '$1');
      if (value.toLowerCase().split(/\s+/).includes('next')) return target;
    }
    i = j + 1;
  }
  return null;
}

/** Retry-After (delay seconds or an HTTP date) in ms, or null when absent or unreadable. */
export function retryAfterMs(v: string | undefined, now = Date.now()): number | null {
  if (!v) return null;
  const t = v.trim();
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  const d = Date.parse(t);
  return Number.isNaN(d) ? null : Math.max(0, d - now);
}

class TimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
}

/** A body that cannot be used (too large, undecodable): not retried. */
class BodyError extends Error {}

/** A wait that ends at once, rejecting with the signal's reason, when the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

const RETRY_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'ERR_STREAM_PREMATURE_CLOSE',
  'INCOMPLETE',
]);

const retryableStatus = (s: number) => s === 408 || s === 429 || (s >= 500 && s <= 599);

function describeError(e: unknown): string {
  if (e instanceof TimeoutError) return e.message;
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'ENOTFOUND') return 'the host name does not resolve';
  return err?.message || String(e);
}

function excerpt(body: Buffer, max = 200): string {
  const text = body
    .toString('utf8', 0, Math.min(body.length, max * 4))
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Where a URL points, for messages: no query string (it may carry an API key). */
const where = (u: URL) => `${u.origin}${u.pathname}`;

interface Answer {
  status: number;
  statusText: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  url: URL;
}

// ---------------------------------------------------------------------------------------
// The client of one read: keep-alive agents, the guard, the limits, the redaction.

class Client {
  private httpAgent: http.Agent | null = null;
  private httpsAgent: https.Agent | null = null;
  private readonly lookup: ReturnType<typeof guardedLookup>;
  private readonly guard: GuardContext;
  private readonly origin: string;
  private readonly sameOrigin: Record<string, string>;
  private readonly otherOrigin: Record<string, string>;
  /** An API key sent as a query parameter: added to each request to the origin of `url`. */
  private readonly queryKey: { name: string; value: string } | null;
  private readonly secrets: string[];

  constructor(
    private readonly ctx: ReadContext,
    private readonly lim: HttpLimits,
    start: URL,
    userHeaders: Record<string, string>,
    auth: Authorization,
  ) {
    this.secrets = auth.secrets;
    this.guard = { box: ctx.box, field: 'url', net: ctx.net };
    this.lookup = guardedLookup(this.guard);
    this.origin = start.origin;
    this.otherOrigin = {
      accept: 'application/json',
      'accept-encoding': 'gzip, deflate, br',
      'user-agent': 'Ursa-Flows/1.0',
    };
    // User headers and credentials go only to the origin of `url`: never to another origin a
    // redirect or a Link header points at.
    this.sameOrigin = { ...this.otherOrigin };
    for (const [k, v] of Object.entries(userHeaders)) this.sameOrigin[k.toLowerCase()] = v;
    if (auth.header) this.sameOrigin.authorization = auth.header;
    if (auth.key?.in === 'header') this.sameOrigin[auth.key.name.toLowerCase()] = auth.key.value;
    this.queryKey = auth.key?.in === 'query' ? auth.key : null;
  }

  close(): void {
    this.httpAgent?.destroy();
    this.httpsAgent?.destroy();
  }

  /** A BoxError with every form of the secret taken out of the message. */
  fail(field: string | null, message: string): BoxError {
    let m = message;
    for (const s of this.secrets) m = m.split(s).join('***');
    return new BoxError(this.ctx.box, field, m);
  }

  private agent(u: URL): http.Agent {
    const opts = { keepAlive: true, maxSockets: 4, timeout: 15_000 };
    if (u.protocol === 'https:') return (this.httpsAgent ??= new https.Agent(opts));
    return (this.httpAgent ??= new http.Agent(opts));
  }

  /** One page: redirects followed, retried on 429/408/5xx/network errors; a 2xx answer. */
  async fetch(url: URL, method: 'GET' | 'POST', body: Buffer | undefined): Promise<Answer> {
    const { retries } = this.lim;
    for (let attempt = 0; ; attempt++) {
      this.ctx.signal.throwIfAborted();
      let ans: Answer;
      try {
        ans = await this.follow(url, method, body);
      } catch (e) {
        if (this.ctx.signal.aborted) throw this.ctx.signal.reason;
        if (e instanceof BoxError) throw e;
        const code = (e as NodeJS.ErrnoException)?.code ?? '';
        if ((e instanceof TimeoutError || RETRY_CODES.has(code)) && attempt < retries) {
          await sleep(this.backoff(attempt), this.ctx.signal);
          continue;
        }
        const tries = attempt > 0 ? ` (after ${attempt + 1} attempts)` : '';
        throw this.fail('url', `${method} ${where(url)} failed${tries}: ${describeError(e)}`);
      }
      if (ans.status >= 200 && ans.status < 300) return ans;
      if (retryableStatus(ans.status) && attempt < retries) {
        const asked = retryAfterMs(ans.headers['retry-after'] as string | undefined);
        const wait =
          asked === null ? this.backoff(attempt) : Math.min(asked, this.lim.maxRetryAfterMs);
        await sleep(wait, this.ctx.signal);
        continue;
      }
      throw this.statusError(ans, method, attempt + 1);
    }
  }

  private backoff(attempt: number): number {
    const full = Math.min(this.lim.backoffMs * 2 ** attempt, this.lim.maxRetryAfterMs);
    return full / 2 + Math.random() * (full / 2);
  }

  private statusError(ans: Answer, method: string, attempts: number): BoxError {
    const status = `${ans.status}${ans.statusText ? ` ${ans.statusText}` : ''}`;
    const text = excerpt(ans.body);
    const said = text ? `: ${text}` : '';
    if (ans.status === 401 || ans.status === 403) {
      return this.fail(
        'credentials',
        `the API refused the credentials (${status}) for ${method} ${where(ans.url)}${said}`,
      );
    }
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    return this.fail('url', `${method} ${where(ans.url)} answered ${status}${tries}${said}`);
  }

  /** Follows up to MAX_REDIRECTS redirects, checking every hop. */
  private async follow(
    start: URL,
    startMethod: 'GET' | 'POST',
    startBody: Buffer | undefined,
  ): Promise<Answer> {
    let url = start;
    let method = startMethod;
    let body = startBody;
    for (let hop = 0; ; hop++) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw this.fail('url', `only http: and https: URLs can be read, not ${url.protocol}`);
      }
      if (url.username || url.password) {
        throw this.fail('url', 'must not contain a user or password: use credentials');
      }
      checkLiteralHost(url.hostname, this.guard);
      const ans = await this.once(url, method, body);
      const location = ans.headers.location;
      if (![301, 302, 303, 307, 308].includes(ans.status) || !location) return ans;
      if (hop >= MAX_REDIRECTS) {
        throw this.fail('url', `more than ${MAX_REDIRECTS} redirects from ${where(start)}`);
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw this.fail('url', `${where(url)} redirects to an invalid URL`);
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        throw this.fail('url', `${where(url)} redirects to a ${next.protocol} URL`);
      }
      if (ans.status === 303 || (method === 'POST' && ans.status !== 307 && ans.status !== 308)) {
        method = 'GET';
        body = undefined;
      }
      url = next;
    }
  }

  /** One request and its (limited, decompressed) body. */
  private once(url: URL, method: string, body: Buffer | undefined): Promise<Answer> {
    const { signal } = this.ctx;
    const { timeoutMs } = this.lim;
    const same = url.origin === this.origin;
    const headers = { ...(same ? this.sameOrigin : this.otherOrigin) };
    // The key rides on the request only: `url` (in answers, messages, redirects) never has it.
    const target =
      same && this.queryKey ? withParams(url, { [this.queryKey.name]: this.queryKey.value }) : url;
    if (body) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(body.length);
    }
    return new Promise<Answer>((resolve, reject) => {
      let settled = false;
      let timedOut = false;
      const ac = new AbortController();
      const onAbort = () => ac.abort(signal.reason);
      const timer = setTimeout(() => {
        timedOut = true;
        ac.abort(new TimeoutError(`no complete answer within ${timeoutMs} ms`));
      }, timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      const cleanup = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      let req: http.ClientRequest | null = null;
      const fail = (err: unknown) => {
        if (settled) return;
        settled = true;
        cleanup();
        req?.destroy();
        if (signal.aborted) reject(signal.reason);
        else if (timedOut) reject(new TimeoutError(`no complete answer within ${timeoutMs} ms`));
        else reject(err);
      };
      if (signal.aborted) return fail(signal.reason);
      try {
        const mod = url.protocol === 'https:' ? https : http;
        req = mod.request(target, {
          method,
          headers,
          agent: this.agent(url),
          lookup: this.lookup,
          signal: ac.signal,
          timeout: timeoutMs,
        });
      } catch (e) {
        return fail(e);
      }
      const r = req;
      r.on('error', fail);
      r.on('timeout', () =>
        r.destroy(new TimeoutError(`the connection was idle for ${timeoutMs} ms`)),
      );
      r.on('response', (res) => {
        const ok = res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300;
        const limit = ok ? this.lim.maxResponseBytes : ERROR_BODY_BYTES;
        readBody(res, limit, !ok).then(
          (buf) => {
            if (settled) return;
            settled = true;
            cleanup();
            resolve({
              status: res.statusCode ?? 0,
              statusText: res.statusMessage ?? '',
              headers: res.headers,
              body: buf,
              url,
            });
          },
          (e: unknown) => {
            fail(e instanceof BodyError ? this.fail('url', e.message) : e);
          },
        );
      });
      r.end(body);
    });
  }
}

/**
 * Reads a response body up to `limit` bytes (raw and decompressed). Past the limit: an error,
 * or with `truncate` (error responses, read only for an excerpt) what came so far.
 */
function readBody(res: http.IncomingMessage, limit: number, truncate: boolean): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const encoding = (res.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    let decoder: zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null = null;
    const chunks: Buffer[] = [];
    let size = 0;
    let raw = 0;
    let done = false;
    const finish = (err: unknown | null) => {
      if (done) return;
      done = true;
      if (err) {
        res.destroy();
        decoder?.destroy();
        reject(err);
      } else {
        resolve(Buffer.concat(chunks, size));
      }
    };
    const tooLarge = (what: string) =>
      new BodyError(`the response is larger than ${limit} bytes${what} (maxResponseBytes)`);
    const truncated = () => {
      done = true;
      res.destroy();
      decoder?.destroy();
      resolve(Buffer.concat(chunks, size));
    };
    res.on('error', (e) => finish(e));
    res.on('close', () => {
      if (!res.complete) {
        finish(
          Object.assign(new Error('the connection closed before the answer was complete'), {
            code: 'INCOMPLETE',
          }),
        );
      }
    });
    if (encoding === 'gzip' || encoding === 'x-gzip') decoder = zlib.createGunzip();
    else if (encoding === 'deflate') decoder = zlib.createInflate();
    else if (encoding === 'br') decoder = zlib.createBrotliDecompress();
    else if (encoding !== 'identity' && encoding !== '') {
      return finish(new BodyError(`the response has an unsupported encoding: ${encoding}`));
    }
    const declared = Number(res.headers['content-length']);
    if (!decoder && !truncate && declared > limit) return finish(tooLarge(''));
    const onData = (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > limit) {
        size -= c.length;
        if (truncate) return truncated();
        return finish(tooLarge(decoder ? ' decompressed' : ''));
      }
      chunks.push(c);
    };
    if (decoder) {
      const d = decoder;
      d.on('error', (e) =>
        finish(truncate ? null : new BodyError(`the response does not decompress (${e.message})`)),
      );
      d.on('data', onData);
      d.on('end', () => finish(null));
      res.on('data', (c: Buffer) => {
        if (done) return;
        raw += c.length;
        if (raw > limit) return truncate ? truncated() : finish(tooLarge(''));
        d.write(c);
      });
      res.on('end', () => d.end());
    } else {
      res.on('data', onData);
      res.on('end', () => finish(null));
    }
  });
}

// ---------------------------------------------------------------------------------------
// Credentials

/** How a request carries the credentials: an Authorization header, or an API key. */
interface Authorization {
  header: string | null;
  /** The API key in the header or query parameter the credentials name. */
  key: { in: 'header' | 'query'; name: string; value: string } | null;
  /** Every form of the secret, taken out of messages. */
  secrets: string[];
}

function authorizationOf(input: HttpInput, cred: Credentials | null, box: string): Authorization {
  if (!cred) {
    if (input.auth) {
      throw new BoxError(box, 'credentials', `auth "${input.auth}" needs credentials of kind http`);
    }
    return { header: null, key: null, secrets: [] };
  }
  if (cred.kind !== 'http') {
    throw new BoxError(
      box,
      'credentials',
      `credentials "${cred.ident}" are of kind ${cred.kind}; input.http needs kind http`,
    );
  }
  const secret = cred.secret;
  if (!secret) throw new BoxError(box, 'credentials', `credentials "${cred.ident}" have no secret`);
  const headerSafe = (what: string) => {
    if (!HEADER_VALUE.test(secret) || secret.trim() !== secret) {
      throw new BoxError(
        box,
        'credentials',
        `the secret of credentials "${cred.ident}" is not a valid ${what} ` +
          '(line breaks, control characters or surrounding spaces)',
      );
    }
  };
  if (cred.apiKey) {
    if (input.auth) throw new BoxError(box, 'auth', apiKeyAuthConflict(cred.ident, cred.apiKey));
    if (cred.apiKey.in === 'header') headerSafe('header value');
    return { header: null, key: { ...cred.apiKey, value: secret }, secrets: [secret] };
  }
  if ((input.auth ?? 'bearer') === 'bearer') {
    headerSafe('bearer token');
    return { header: `Bearer ${secret}`, key: null, secrets: [secret] };
  }
  let user: string;
  let password: string;
  const colon = secret.indexOf(':');
  if (colon >= 0) {
    user = secret.slice(0, colon);
    password = secret.slice(colon + 1);
  } else if (cred.user) {
    user = cred.user;
    password = secret;
  } else {
    throw new BoxError(
      box,
      'credentials',
      `auth "basic" needs the secret of credentials "${cred.ident}" to be user:password`,
    );
  }
  const token = Buffer.from(`${user}:${password}`, 'utf8').toString('base64');
  const secrets = [secret, `${user}:${password}`, token, password].filter((s) => s.length > 0);
  return { header: `Basic ${token}`, key: null, secrets };
}

/** Credentials that carry an API key decide how it is sent: a box's `auth` would be ignored. */
export function apiKeyAuthConflict(ident: string, apiKey: { in: string; name: string }): string {
  return `credentials "${ident}" send their secret as an API key (${apiKey.in} "${apiKey.name}"); leave auth out`;
}

/** The port a URL connects to. */
const portOf = (u: URL) => Number(u.port || (u.protocol === 'https:' ? 443 : 80));

// ---------------------------------------------------------------------------------------
// Records and pages

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** Pointers to arrays near the top of a document, to suggest for `records`. */
function arrayPointers(doc: unknown): string[] {
  const out: string[] = [];
  const esc = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return out;
  for (const [k, v] of Object.entries(doc)) {
    if (Array.isArray(v)) out.push(`/${esc(k)}`);
    else if (v !== null && typeof v === 'object') {
      for (const [k2, v2] of Object.entries(v)) {
        if (Array.isArray(v2)) out.push(`/${esc(k)}/${esc(k2)}`);
      }
    }
  }
  return out.slice(0, 5);
}

function recordsOf(
  doc: unknown,
  pointer: string | undefined,
  page: number,
  client: Client,
): Record<string, unknown>[] {
  if (doc === undefined) return []; // 204 / empty body
  let arr: unknown;
  if (pointer === undefined) {
    if (!Array.isArray(doc)) {
      const hints = arrayPointers(doc);
      throw client.fail(
        'records',
        `the response is ${kindOf(doc)}, not an array of records; set records to the JSON ` +
          `pointer of the array${hints.length ? ` (arrays found: ${hints.join(', ')})` : ''}`,
      );
    }
    arr = doc;
  } else {
    arr = getJsonPointer(doc, pointer);
    if (arr === null) return [];
    if (arr === undefined) {
      const hints = arrayPointers(doc);
      throw client.fail(
        'records',
        `the response of page ${page} has nothing at ${pointer}` +
          (hints.length ? ` (arrays found: ${hints.join(', ')})` : ''),
      );
    }
    if (!Array.isArray(arr)) {
      throw client.fail('records', `${pointer} is ${kindOf(arr)} in page ${page}, not an array`);
    }
  }
  const list = arr as unknown[];
  for (let i = 0; i < list.length; i++) {
    const r = list[i];
    if (r === null || typeof r !== 'object' || Array.isArray(r)) {
      throw client.fail(
        'records',
        `record ${i + 1} of page ${page} is ${kindOf(r)}, not an object`,
      );
    }
  }
  return list as Record<string, unknown>[];
}

function parseJson(ans: Answer, client: Client): unknown {
  if (ans.status === 204 || ans.body.length === 0) return undefined;
  let text = ans.body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text);
  } catch {
    const type = ans.headers['content-type'] ?? 'no content type';
    throw client.fail(
      'url',
      `${where(ans.url)} did not answer JSON (content type ${type}): ${excerpt(ans.body)}`,
    );
  }
}

function withParams(base: URL, params: Record<string, string>): URL {
  const u = new URL(base);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u;
}

/**
 * The records of an HTTP JSON API, one array per page. `input` is checked with httpInputSchema
 * (a box's `id` and `type` beside the parameters are ignored). Throws BoxError for anything the
 * user must fix (naming the parameter), and ctx.signal's reason, at once, when it aborts.
 */
export async function* httpRecords(
  input: HttpInput,
  cred: Credentials | null,
  ctx: ReadContext,
  limits?: Partial<HttpLimits>,
): AsyncGenerator<Record<string, unknown>[]> {
  const box = ctx.box;
  ctx.signal.throwIfAborted();
  // The box itself may be passed: its `id` and `type` sit beside the parameters.
  const { id: _id, type: _type, ...params } = input as HttpInput & { id?: unknown; type?: unknown };
  const parsed = httpInputSchema.safeParse(params);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length ? issue.path.map(String).join('.') : null;
    const msg =
      issue.code === 'unrecognized_keys'
        ? `unknown parameter ${issue.keys.map((k) => `"${k}"`).join(', ')}`
        : issue.code === 'invalid_type' && /received undefined$/.test(issue.message)
          ? 'is required'
          : issue.message;
    throw new BoxError(box, field, msg);
  }
  const inp: HttpInput = parsed.data;
  const lim: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...limits };
  const start = new URL(inp.url);
  const method = inp.method ?? 'GET';
  const body = inp.body === undefined ? undefined : Buffer.from(JSON.stringify(inp.body), 'utf8');
  const auth = authorizationOf(inp, cred, box);
  // Credentials that name their host go to that host only: whoever can edit a flow cannot
  // send a stored token to a server of their own.
  if (
    cred?.host &&
    cred.host.toLowerCase() !== start.hostname.toLowerCase().replace(/^\[|\]$/g, '')
  )
    throw new BoxError(
      box,
      'credentials',
      `credentials "${cred.ident}" are for host ${cred.host}, not ${start.hostname}`,
    );
  if (cred?.port !== undefined && cred.port !== portOf(start))
    throw new BoxError(
      box,
      'credentials',
      `credentials "${cred.ident}" are for port ${cred.port}, not ${portOf(start)}`,
    );
  const client = new Client(ctx, lim, start, inp.headers ?? {}, auth);
  const p = inp.pagination;
  const maxPages = inp.maxPages ?? MAX_PAGES_DEFAULT;
  try {
    let pages = 0;
    let page = p?.type === 'page' ? (p.start ?? 1) : 0;
    let offset = 0;
    let cursor: string | null = null;
    let next: URL = start;
    for (;;) {
      ctx.signal.throwIfAborted();
      let url: URL;
      if (p?.type === 'page') {
        const q: Record<string, string> = { [p.param]: String(page) };
        if (p.sizeParam && p.size !== undefined) q[p.sizeParam] = String(p.size);
        url = withParams(start, q);
      } else if (p?.type === 'offset') {
        url = withParams(start, { [p.param]: String(offset), [p.limitParam]: String(p.limit) });
      } else if (p?.type === 'cursor') {
        url = cursor === null ? start : withParams(start, { [p.param]: cursor });
      } else {
        url = next;
      }
      const ans = await client.fetch(url, method, body);
      const doc = parseJson(ans, client);
      const records = recordsOf(doc, inp.records, pages + 1, client);
      if (records.length === 0) return;
      if (pages >= maxPages) {
        throw client.fail(
          'maxPages',
          `the API has more than ${maxPages} pages; raise maxPages (at most ${MAX_PAGES_LIMIT}) ` +
            'or ask for fewer records (if every page is the same, the API may be ignoring the ' +
            'pagination parameter)',
        );
      }
      pages++;
      yield records;
      if (!p) return;
      if (p.type === 'page') page++;
      else if (p.type === 'offset') offset += records.length;
      else if (p.type === 'cursor') {
        const c = getJsonPointer(doc, p.path);
        if (c === undefined || c === null || c === '') return;
        if (typeof c !== 'string' && typeof c !== 'number') {
          throw client.fail('pagination.path', `the cursor at ${p.path} is ${kindOf(c)}`);
        }
        const s = String(c);
        if (s === cursor) {
          throw client.fail(
            'pagination.path',
            `the API returned the same cursor twice (${p.path})`,
          );
        }
        cursor = s;
      } else {
        const link = nextLink(ans.headers.link);
        if (!link) return;
        try {
          next = new URL(link, ans.url);
        } catch {
          throw client.fail('pagination', `the Link header's next URL is invalid`);
        }
      }
    }
  } finally {
    client.close();
  }
}
