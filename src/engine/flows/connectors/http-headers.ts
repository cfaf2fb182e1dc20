// What an HTTP header may be, for input.http's `headers` and for an http credentials object's
// `apiKey` (model/defs.ts): one definition, so both refuse the same names and values.

/** RFC 9110 token characters. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** No line breaks or other control characters (tab allowed). */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Headers the connector sets itself (framing, connection, host): nobody else may. */
export const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-connection',
]);
