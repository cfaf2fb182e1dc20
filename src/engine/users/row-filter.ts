// Row-level filters are AQL conditions. Until the AQL compiler registers a full validator,
// this structural check refuses what can never be a condition (unbalanced brackets,
// unterminated strings, no object reference), so nothing obviously broken is stored.
import { invalid } from '../errors.js';

export type RowFilterValidator = (filter: string, projectId: string) => void | Promise<void>;

/**
 * How a filter is stored and shown: references resolving to an object stored as identifiers,
 * with the positions written by title shown as current titles (aql/ref-rewrite.ts).
 */
export interface FilterRefs {
  store(filter: string, projectId: string): Promise<{ filter: string; byTitle: number[] }>;
  show(filter: string, byTitle: number[] | null, projectId: string): Promise<string>;
}

/** Until the AQL compiler plugs in: stored and shown as written. */
export const verbatimFilterRefs: FilterRefs = {
  store: async (filter) => ({ filter, byTitle: [] }),
  show: async (filter) => filter,
};

export function structuralFilterCheck(filter: string): void {
  const fail = (why: string, column?: number) =>
    invalid(`invalid row-level filter: ${why}`, {
      field: 'filter',
      value: filter,
      ...(column ? { line: 1, column } : {}),
    });
  if (filter.trim() === '') throw fail('it is empty; use null to remove a filter');
  if (filter.length > 4000) throw fail('it is longer than 4000 characters');
  const stack: { ch: string; at: number }[] = [];
  let quote: { ch: string; at: number } | null = null;
  for (let i = 0; i < filter.length; i++) {
    const ch = filter[i]!;
    if (quote) {
      if (ch === quote.ch) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") quote = { ch, at: i + 1 };
    else if (ch === '[' || ch === '(') stack.push({ ch, at: i + 1 });
    else if (ch === ']' || ch === ')') {
      const open = stack.pop();
      if (!open || (open.ch === '[') !== (ch === ']')) throw fail(`unexpected "${ch}"`, i + 1);
    }
  }
  if (quote) throw fail(`unterminated string starting at column ${quote.at}`, quote.at);
  const open = stack.pop();
  if (open) throw fail(`"${open.ch}" at column ${open.at} is never closed`, open.at);
  if (!/\[[^\]]+\]/.test(filter))
    throw fail('it names no model object; write e.g. [Region] = "EU"');
}
