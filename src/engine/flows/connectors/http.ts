// input.http: records from a JSON HTTP API, page after page. Every connection goes through the
// network guard (guardedLookup for names, checkLiteralHost for literal addresses, on every
// redirect hop too); every request has a timeout and a response-size limit enforced while the
// body streams in (after decompression as well); 429, 408, 5xx and network errors are retried
// with exponential backoff honouring Retry-After; every wait stops at once on ctx.signal.
// Errors the user must fix are BoxErrors naming the parameter, and never contain the secret.
// The parts: http/input.ts (parameters), http/client.ts (requests), http/auth.ts
// (credentials), http/pagination.ts (records and pages).
export { apiKeyAuthConflict } from './http/auth.js';
export { retryAfterMs } from './http/client.js';
export {
  DEFAULT_HTTP_LIMITS,
  httpInputSchema,
  httpPaginationSchema,
  MAX_PAGES_DEFAULT,
  MAX_PAGES_LIMIT,
  type HttpInput,
  type HttpLimits,
  type HttpPagination,
} from './http/input.js';
export { getJsonPointer, httpRecords, nextLink } from './http/pagination.js';
