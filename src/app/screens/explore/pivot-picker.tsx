// A pivot built in Explore without AQL: each breakdown of the question placed in the pivot's
// rows or columns, and the measures it shows ticked. The plan is the report's visualization
// keys (`rows`, `columns`, `y`, by the engine's titles: docs/api.md "pivot"); the engine computes the
// pivot and its totals (POST app/reports/execute), and saving keeps the same keys.
import type { ResultColumn } from './chart-data';

export interface PivotPlan {
  rows: string[];
  columns: string[];
  y: string[];
}

/** A plan as a saved report may hold it: titles or 1-based positions, some left out. */
export interface PlanInput {
  rows?: (string | number)[];
  columns?: (string | number)[];
  y?: (string | number)[];
}

/** A column as the engine titles it (`SUM([Passengers])`), which the plan names. */
const refOf = (c: ResultColumn) => c.aql ?? c.title;
const dimensionsOf = (columns: ResultColumn[]) =>
  columns.filter((c) => c.kind === 'dimension').map(refOf);
const measuresOf = (columns: ResultColumn[]) =>
  columns.filter((c) => c.kind === 'measure' && c.dataType !== 'nested').map(refOf);
/** What a column reads as in the page ("Sum of Passengers"). */
const shownAs = (columns: ResultColumn[], ref: string) =>
  columns.find((c) => refOf(c) === ref)?.title ?? ref;

/**
 * A plan for these columns: the placements still possible kept, a new breakdown in the rows
 * (the second of two or more in the columns when none is there yet, as the engine's default),
 * every measure when none picked is left.
 */
export function fitPlan(plan: PlanInput, columns: ResultColumn[]): PivotPlan {
  const dims = dimensionsOf(columns);
  const measures = measuresOf(columns);
  // A title as the engine has it (any case), or a 1-based position (a saved report's).
  const title = (r: string | number) => {
    if (typeof r === 'number') return columns[r - 1] && refOf(columns[r - 1]!);
    const c = columns.find((x) => refOf(x).toLowerCase() === r.toLowerCase());
    return c && refOf(c);
  };
  const keep = (list: (string | number)[] | undefined, from: string[]) =>
    (list ?? []).map(title).filter((t): t is string => t !== undefined && from.includes(t));
  let cols = keep(plan.columns, dims);
  let rows = keep(plan.rows, dims).filter((t) => !cols.includes(t));
  const placed = new Set([...rows, ...cols]);
  const fresh = dims.filter((t) => !placed.has(t));
  if (!plan.rows && !plan.columns && dims.length >= 2) {
    cols = [dims[1]!];
    rows = dims.filter((t) => t !== dims[1]);
  } else rows = [...rows, ...fresh];
  const y = keep(plan.y, measures);
  return { rows, columns: cols, y: y.length || plan.y?.length === 0 ? y : measures };
}

export function PivotPicker(props: {
  columns: ResultColumn[];
  plan: PivotPlan;
  onChange: (plan: PivotPlan) => void;
}) {
  const { plan } = props;
  const place = (title: string, to: 'rows' | 'columns') => {
    const rows = plan.rows.filter((t) => t !== title);
    const columns = plan.columns.filter((t) => t !== title);
    props.onChange(
      to === 'rows'
        ? { ...plan, rows: [...rows, title], columns }
        : { ...plan, rows, columns: [...columns, title] },
    );
  };
  const tick = (title: string, on: boolean) => {
    const measures = measuresOf(props.columns);
    const y = on ? [...plan.y, title] : plan.y.filter((t) => t !== title);
    props.onChange({ ...plan, y: measures.filter((t) => y.includes(t)) });
  };
  return (
    <fieldset class="pivot-picker">
      <legend>Pivot</legend>
      {dimensionsOf(props.columns).map((title, i) => (
        <div key={title} class="explore-field">
          <label for={`pivot-place-${i}`}>Place {shownAs(props.columns, title)} in</label>
          <select
            id={`pivot-place-${i}`}
            value={plan.columns.includes(title) ? 'columns' : 'rows'}
            onChange={(e) => place(title, e.currentTarget.value as 'rows' | 'columns')}
          >
            <option value="rows">Rows</option>
            <option value="columns">Columns</option>
          </select>
        </div>
      ))}
      <div class="pivot-measures" role="group" aria-label="Measures shown">
        {measuresOf(props.columns).map((title) => (
          <label key={title}>
            <input
              type="checkbox"
              checked={plan.y.includes(title)}
              onChange={(e) => tick(title, e.currentTarget.checked)}
            />
            {shownAs(props.columns, title)}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
