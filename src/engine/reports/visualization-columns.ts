// A report's visualization (its type and the keys of each type) and which result columns it
// means: named by title (any case) or 1-based position, else the measures (numbers) and
// dimensions (the rest) of the result.
import { invalid } from '../errors.js';
import type { VISUALIZATION_TYPES } from '../model/defs.js';
import type { MapRegions } from '../../shared/chart/spec.js';
import type { ChartTable } from './chart.js';

export type VisualizationType = (typeof VISUALIZATION_TYPES)[number];

type Ref = string | number;
export interface Visualization {
  type: VisualizationType;
  x?: Ref;
  y?: Ref | Ref[];
  color?: Ref;
  stack?: 'normal' | 'percent';
  line?: Ref | Ref[];
  min?: number;
  max?: number;
  target?: number;
  map?: MapRegions;
  latitude?: Ref;
  longitude?: Ref;
  [styling: string]: unknown;
}

/** The title of the column a visualization names (by title, any case, or 1-based position). */
export function columnTitle(table: ChartTable, ref: string | number, role: string): string {
  const titles = table.columns.map((c) => c.title);
  if (typeof ref === 'number') {
    const t = titles[ref - 1];
    if (t === undefined)
      throw invalid(
        `the visualization's ${role} is column ${ref}, but the result has ${titles.length} column(s)`,
        { field: `visualization.${role}`, columns: titles },
      );
    return t;
  }
  const exact = titles.find((t) => t === ref);
  const folded = titles.filter((t) => t.toLowerCase() === ref.toLowerCase());
  const found = exact ?? (folded.length === 1 ? folded[0] : undefined);
  if (found === undefined)
    throw invalid(
      `the visualization's ${role} names column "${ref}", which the result does not have; its columns: ${titles.map((t) => `"${t}"`).join(', ')}`,
      { field: `visualization.${role}`, columns: titles },
    );
  return found;
}

export const measures = (t: ChartTable) =>
  t.columns.filter(
    (c) => c.kind === 'measure' || (!c.kind && /^(integer|number)$/.test(c.dataType)),
  );
export const dimensions = (t: ChartTable) => t.columns.filter((c) => !measures(t).includes(c));
