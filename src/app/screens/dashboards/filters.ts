// Dashboard filters in the address: `?filter=<attribute>:<value>`, repeatable (any of the
// values), as the API takes them, so a filtered dashboard can be bookmarked and exported.
import { projectApi } from '../../api';

/** Each attribute's picked values, in the order the address gives them. */
export type Picks = Map<string, string[]>;

export function readPicks(query: URLSearchParams): Picks {
  const picks: Picks = new Map();
  for (const f of query.getAll('filter')) {
    const at = f.indexOf(':');
    if (at < 0) continue;
    const attribute = f.slice(0, at);
    const list = picks.get(attribute) ?? [];
    if (f.slice(at + 1) !== '') list.push(f.slice(at + 1));
    picks.set(attribute, list);
  }
  return picks;
}

/**
 * The query for `picks` ('' when none): `filter=attr:value` for each value; an attribute
 * with none gets `filter=attr:` (all of it, overriding the dashboard's own selection).
 */
export function filterQuery(picks: Picks): string {
  const parts: string[] = [];
  const enc = (s: string) => encodeURIComponent(s).replace(/%3A/gi, ':');
  for (const [attribute, values] of picks) {
    if (!values.length) parts.push(`filter=${enc(attribute)}:`);
    for (const v of values) parts.push(`filter=${enc(attribute)}:${enc(v)}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

/** The text a filter's input shows for values: comma separated. */
export const valuesText = (values: string[]): string => values.join(', ');

/** An input's text back to values (commas separate; blanks dropped). */
export const textValues = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * The API path of a dashboard computed with the address's filters (`filter=attribute:value`),
 * its charts without the server's SVG (`svg=false`): the app draws them live, and drawing them
 * on the server was most of the answer's time and size.
 */
export function dashboardRun(project: string, id: string, query: URLSearchParams): string {
  const filters = filterQuery(readPicks(query));
  return `${projectApi(project)}/app/dashboards/${encodeURIComponent(id)}${filters ? `${filters}&` : '?'}svg=false`;
}
