// The app's only way to the server: the public REST API (/api/v1), with the browser session.
// Errors keep the API's shape ({ statusCode, message, context }), so screens can show the
// message and point at a field.
import { API_PREFIX, projectPath } from '../contract/urls';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly context: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const API = API_PREFIX;

/** Where to sign in and come back to this page. */
export const signInUrl = (): string =>
  `/auth/login?next=${encodeURIComponent(location.pathname + location.search)}`;

export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const r = await fetch(path.startsWith('/api/') ? path : `${API}${path}`, {
    method,
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (r.status === 204) return undefined as T;
  const data = (await r.json().catch(() => ({}))) as {
    message?: string;
    context?: Record<string, unknown>;
  };
  if (!r.ok) throw new ApiError(r.status, data.message ?? r.statusText, data.context ?? {});
  return data as T;
}

export const get = <T>(path: string) => api<T>('GET', path);

/**
 * A file the API answers (a PDF, a CSV), saved by the browser under `name`; `accept` asks for
 * its type (the API answers errors as JSON whatever it is).
 */
export async function download(
  method: string,
  path: string,
  name: string,
  body?: unknown,
  accept?: string,
) {
  const r = await fetch(`${API}${path}`, {
    method,
    credentials: 'same-origin',
    headers: {
      ...(accept ? { accept } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!r.ok) {
    const data = (await r.json().catch(() => ({}))) as { message?: string };
    throw new ApiError(r.status, data.message ?? r.statusText);
  }
  const url = URL.createObjectURL(await r.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The API path of a project. */
export const projectApi = projectPath;
