// Small pieces the Model and Admin screens share: API problems in words, dates, paging through
// a list whose page is kept in the address, and reading an error's field.
import { ApiError } from '../../api';
import { formatDateTime } from '../../format';
import { Link } from '../../router';
import './parts.css';
import type { Paging } from '../../../contract/links';

/** An API error as a sentence; a 403 (a level too low, maintenance) says it is not allowed. */
export function Problem({ error }: { error: ApiError | undefined }) {
  if (!error) return null;
  const text =
    error.status === 403
      ? `Not allowed: ${error.message}`
      : error.status === 0
        ? `The server could not be reached: ${error.message}`
        : error.message;
  return (
    <p class="error" role="alert">
      {text}
    </p>
  );
}

/** A date and time in the reader's locale, the ISO value in the element. */
export function When({ iso }: { iso: string | undefined | null }) {
  if (!iso) return null;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return <>{iso}</>;
  return <time dateTime={iso}>{formatDateTime(d)}</time>;
}

export type { Paging };

/** Previous/next links for a list answered with `paging`; `href(offset)` names the page. */
export function Pager({
  paging,
  href,
  label,
}: {
  paging: Paging | undefined;
  href: (offset: number) => string;
  label: string;
}) {
  if (!paging || paging.total <= paging.limit) return null;
  const { total, limit, offset } = paging;
  const last = Math.min(offset + limit, total);
  return (
    <nav class="pager" aria-label={label}>
      <span class="muted">
        {total === 0 ? 0 : offset + 1}–{last} of {total}
      </span>
      {offset > 0 ? (
        <Link class="button quiet" href={href(Math.max(0, offset - limit))}>
          Previous
        </Link>
      ) : null}
      {last < total ? (
        <Link class="button quiet" href={href(offset + limit)}>
          Next
        </Link>
      ) : null}
    </nav>
  );
}

/** A path with query parameters; empty values are left out. */
export function withQuery(path: string, params: Record<string, string | number | undefined>) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== '' && v !== 0) q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/** The offset a list page's address asks for (a non-negative integer, else 0). */
export function offsetOf(query: URLSearchParams): number {
  const n = Number(query.get('offset'));
  return Number.isInteger(n) && n > 0 ? n : 0;
}

/**
 * The form field an API 400/403 is about: `context.field`, the first of `context.issues`, or
 * `levels` when it names permission levels; undefined when it is about the request as a whole.
 */
export function fieldOf(error: ApiError | undefined): string | undefined {
  if (!error) return undefined;
  const c = error.context;
  if (typeof c.field === 'string') return c.field;
  if (Array.isArray(c.levels)) return 'levels';
  const issues = c.issues as Array<{ path?: unknown }> | undefined;
  const path = issues?.[0]?.path;
  if (typeof path === 'string' && path !== '(body)') return path.split('.')[0];
  return undefined;
}

/** The error under a form field, which the field names with aria-describedby. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <span id={id} class="field-error error" role="alert">
      {message}
    </span>
  );
}

/** Whatever a request threw, as an ApiError (status 0: no answer from the server). */
export const asApiError = (e: unknown): ApiError =>
  e instanceof ApiError ? e : new ApiError(0, e instanceof Error ? e.message : String(e));
