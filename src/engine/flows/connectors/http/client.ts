// The HTTP client of one input.http read: keep-alive agents, the network guard on every hop,
// timeouts, size limits while the body streams in, retries with backoff and Retry-After.
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';
import { BoxError } from '../../errors.js';
import { checkLiteralHost, guardedLookup, type GuardContext } from '../net-guard.js';
import type { ReadContext } from '../types.js';
import type { Authorization } from './auth.js';
import type { HttpLimits } from './input.js';

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

export function excerpt(body: Buffer, max = 200): string {
  const text = body
    .toString('utf8', 0, Math.min(body.length, max * 4))
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Where a URL points, for messages: no query string (it may carry an API key). */
export const where = (u: URL) => `${u.origin}${u.pathname}`;

export interface Answer {
  status: number;
  statusText: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  url: URL;
}

const MAX_REDIRECTS = 5;
/** How much of an error response is read (for the excerpt in the message). */
const ERROR_BODY_BYTES = 16 * 1024;

export function withParams(base: URL, params: Record<string, string>): URL {
  const u = new URL(base);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u;
}

// ---------------------------------------------------------------------------------------
// The client of one read: keep-alive agents, the guard, the limits, the redaction.

export class Client {
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
