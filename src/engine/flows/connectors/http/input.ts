// input.http's parameters: what a box may ask for (URL, auth, pagination, limits), validated.
import { z } from 'zod';
import { REDACTED, redactedSpots } from '../../redact.js';
import { HEADER_NAME, HEADER_VALUE, RESERVED_HEADERS } from '../http-headers.js';

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
