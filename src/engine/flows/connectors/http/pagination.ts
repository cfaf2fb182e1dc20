// input.http's records: each page's JSON, the records in it, and the next page (page, offset,
// cursor or Link header) until an empty one.
import { BoxError } from '../../errors.js';
import type { Credentials, ReadContext } from '../types.js';
import { authorizationOf, portOf } from './auth.js';
import { Client, excerpt, where, withParams, type Answer } from './client.js';
import {
  DEFAULT_HTTP_LIMITS,
  httpInputSchema,
  MAX_PAGES_DEFAULT,
  MAX_PAGES_LIMIT,
  type HttpInput,
  type HttpLimits,
} from './input.js';

// ---------------------------------------------------------------------------------------
// Records and pages

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
