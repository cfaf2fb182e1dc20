// "No rows" explained: a text value compared in WHERE that matches no member of its attribute
// (`[Carrier Name] = "delta"`) is the usual reason, so a 0-row answer names the closest
// members — among those the reader may see (their row-level filter applies to the lookup).
import type { QueryWarning } from '../../contract/dashboards.js';
import type { ProjectActor } from '../access/actor.js';
import type { ValueCheck } from './query-resolve.js';
import { closest } from './suggest.js';

export type Warning = QueryWarning;

/** How many members are compared with a value (an attribute with more is sampled). */
const MAX_MEMBERS = 20_000;

const quote = (s: string) => `"${s.replaceAll('"', '""')}"`;

export async function memberHints(
  reader: ProjectActor,
  checks: ValueCheck[],
  run: (a: ProjectActor, aql: string) => Promise<string[][]>,
): Promise<Warning[]> {
  const out: Warning[] = [];
  const members = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const c of checks.slice(0, 10)) {
    const ident = c.col.obj.ident;
    if (seen.has(`${ident}\u0000${c.value}`)) continue;
    seen.add(`${ident}\u0000${c.value}`);
    let values = members.get(ident);
    if (!values) {
      try {
        values = (await run(reader, `SELECT [${ident}] LIMIT ${MAX_MEMBERS}`))
          .map((r) => r[0]!)
          .filter((v) => v !== '');
      } catch {
        values = []; // the attribute is no longer readable: nothing to suggest
      }
      members.set(ident, values);
    }
    if (values.includes(c.value)) continue;
    const same = values.filter((v) => v.toLowerCase() === c.value.toLowerCase());
    // A member differing only in case is the one meant; otherwise the closest few.
    const suggestions = same.length ? same.slice(0, 3) : closest(c.value, values, 3);
    out.push({
      message: `[${c.col.obj.name}] has no member ${quote(c.value)}${
        suggestions.length
          ? `; closest members: ${suggestions.map(quote).join(', ')}`
          : values.length
            ? `; members are e.g. ${values.slice(0, 3).map(quote).join(', ')}`
            : ''
      }`,
      line: c.pos.line,
      column: c.pos.column,
      found: c.pos.text,
      suggestions,
    });
  }
  return out;
}
