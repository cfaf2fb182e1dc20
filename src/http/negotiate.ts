// Content negotiation: `?format=` wins over `Accept`. When no JSON is asked for, a GET
// answers a browsable HTML page (API-DECISIONS "Formats"); other methods default to JSON.
import { EngineError, invalid } from '../engine/errors.js';

export type Format = 'json' | 'yaml' | 'csv' | 'tsv' | 'xlsx' | 'html' | 'pdf';

const MIME: Record<Format, string> = {
  json: 'application/json',
  yaml: 'text/yaml',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  html: 'text/html',
  pdf: 'application/pdf',
};

const ALIASES: Record<string, Format> = {
  json: 'json',
  'application/json': 'json',
  yaml: 'yaml',
  yml: 'yaml',
  'text/yaml': 'yaml',
  'application/yaml': 'yaml',
  'application/x-yaml': 'yaml',
  'text/x-yaml': 'yaml',
  csv: 'csv',
  'text/csv': 'csv',
  tsv: 'tsv',
  'text/tab-separated-values': 'tsv',
  xlsx: 'xlsx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  html: 'html',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  pdf: 'pdf',
  'application/pdf': 'pdf',
};

export const mimeOf = (f: Format): string => MIME[f];

interface AcceptEntry {
  type: string;
  q: number;
  order: number;
}

function parseAccept(header: string): AcceptEntry[] {
  return header
    .split(',')
    .map((part, order) => {
      const [type = '', ...params] = part.trim().split(';');
      const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const q = qParam ? Number(qParam.slice(2)) : 1;
      return { type: type.trim().toLowerCase(), q: Number.isFinite(q) ? q : 0, order };
    })
    .filter((e) => e.type && e.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order);
}

export interface NegotiationInput {
  method: string;
  accept: string | undefined;
  formatParam: unknown;
}

/**
 * The representation to answer with, among those the resource offers (`offered[0]` is the
 * resource's preferred machine format, usually json).
 */
export function negotiate(input: NegotiationInput, offered: readonly Format[]): Format {
  const isRead = input.method === 'GET' || input.method === 'HEAD';
  const fallback: Format = isRead && offered.includes('html') ? 'html' : offered[0]!;
  if (input.formatParam !== undefined && input.formatParam !== '') {
    const raw = String(input.formatParam).toLowerCase();
    const f = ALIASES[raw];
    if (!f) throw invalid(`unknown format "${raw}"`, { field: 'format', allowed: [...offered] });
    if (!offered.includes(f)) throw notAcceptable(f, offered);
    return f;
  }
  if (!input.accept) return fallback;
  const entries = parseAccept(input.accept);
  for (const e of entries) {
    if (e.type === '*/*' || e.type === 'text/*' || e.type === 'application/*') {
      // A wildcard only ever asks for "anything": the resource's default answers it.
      return e.type === 'application/*' && offered.includes('json') ? 'json' : fallback;
    }
    const f = ALIASES[e.type];
    if (f && offered.includes(f)) return f;
  }
  throw notAcceptable(entries[0]?.type ?? input.accept, offered);
}

function notAcceptable(asked: string, offered: readonly Format[]): EngineError {
  return new EngineError(
    'unsupported',
    `this resource is not available as ${asked}; available: ${offered.join(', ')}`,
    {
      asked,
      available: offered.map((f) => MIME[f]),
    },
  );
}
