// Values of a flow def that may hold a secret, hidden from members below MD Admin (FLOWS.md,
// docs/flows.md "Who sees what"): an input.http box's URL query values and fragment, header
// values and body values. MD Admins, the only ones who may write flows, see them as saved. A
// def sent back with the mark in one of those places is refused on save (redactedSpots), so
// a copy of a redacted def never overwrites the real values with the mark.

/** What a hidden value is shown as. */
export const REDACTED = '***';

type Def = Record<string, unknown>;

/** A flow def as members below MD Admin see it. */
export function redactFlowDef(def: Def): Def {
  if (!Array.isArray(def.boxes)) return def;
  return { ...def, boxes: def.boxes.map((b) => (isHttpBox(b) ? redactHttpBox(b) : b)) };
}

/**
 * Where an input.http box's parameters hold the mark instead of a value: field paths such as
 * `url`, `headers.X-Api-Key`, `body.auth.token`.
 */
export function redactedSpots(params: Def): string[] {
  const spots: string[] = [];
  if (typeof params.url === 'string') {
    const { query, fragment } = splitUrl(params.url);
    const values = (query ?? '')
      .split('&')
      .map((part) => (part.includes('=') ? part.slice(part.indexOf('=') + 1) : part));
    if ([...values, fragment].some((v) => v !== undefined && isMark(decoded(v)))) spots.push('url');
  }
  if (isRecord(params.headers))
    for (const [k, v] of Object.entries(params.headers))
      if (v === REDACTED) spots.push(`headers.${k}`);
  const walk = (v: unknown, at: string) => {
    if (v === REDACTED) spots.push(at);
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}.${i}`));
    else if (isRecord(v)) for (const [k, x] of Object.entries(v)) walk(x, `${at}.${k}`);
  };
  walk(params.body, 'body');
  return spots;
}

/** The URL with every query value, a bare query word and the fragment replaced by the mark. */
export function redactUrl(url: string): string {
  const { base, query, fragment } = splitUrl(url);
  const q =
    query === undefined
      ? ''
      : `?${query
          .split('&')
          .map((part) =>
            part === ''
              ? part
              : part.includes('=')
                ? `${part.slice(0, part.indexOf('=') + 1)}${REDACTED}`
                : REDACTED,
          )
          .join('&')}`;
  return `${base}${q}${fragment === undefined ? '' : `#${REDACTED}`}`;
}

function redactHttpBox(b: Def): Def {
  const out: Def = { ...b };
  if (typeof b.url === 'string') out.url = redactUrl(b.url);
  if (isRecord(b.headers))
    out.headers = Object.fromEntries(Object.keys(b.headers).map((k) => [k, REDACTED]));
  if (b.body !== undefined) out.body = redactValues(b.body);
  return out;
}

/** Keys and structure kept, every string and number hidden. */
function redactValues(v: unknown): unknown {
  if (typeof v === 'string' || typeof v === 'number') return REDACTED;
  if (Array.isArray(v)) return v.map(redactValues);
  if (isRecord(v))
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, redactValues(x)]));
  return v;
}

function splitUrl(url: string): { base: string; query?: string; fragment?: string } {
  const hash = url.indexOf('#');
  const beforeHash = hash < 0 ? url : url.slice(0, hash);
  const fragment = hash < 0 ? undefined : url.slice(hash + 1);
  const q = beforeHash.indexOf('?');
  return {
    base: q < 0 ? beforeHash : beforeHash.slice(0, q),
    ...(q < 0 ? {} : { query: beforeHash.slice(q + 1) }),
    ...(fragment === undefined ? {} : { fragment }),
  };
}

const isMark = (v: string) => v === REDACTED;

function decoded(v: string): string {
  try {
    return decodeURIComponent(v.replace(/\+/g, ' '));
  } catch {
    return v;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

const isHttpBox = (b: unknown): b is Def => isRecord(b) && b.type === 'input.http';
