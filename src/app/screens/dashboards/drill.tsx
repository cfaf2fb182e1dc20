// A dashboard chart's drill into Explore: "See the rows behind it" (a listing of the report's
// fact dataset, the dataset its measures are computed on, as app/aql/explain names it) and
// "Break out by…" (the report's question with an attribute picked here as one more
// breakdown), both narrowed to the mark's values and the dashboard's filters (src/app/chart/drill.ts).
import { useState } from 'preact/hooks';
import { api, ApiError, get, projectApi } from '../../api';
import {
  breakOutAql,
  rowsAql,
  type DrillFilter,
  type DrillObject,
  type DrillSource,
} from '../../chart/drill';
import { appPath, navigate } from '../../router';
import { ErrorNote } from '../../ui';
import type { ComputedItem } from './table';

/** What a dashboard gives its charts to drill into Explore with. */
export interface ExploreDrill {
  project: string;
  filters: DrillFilter[];
  /** The model's attributes, labels and facts (GET pmd/obj). */
  objects: DrillObject[];
}

const openExplore = (project: string, aql: string) =>
  navigate(`${appPath('p', project, 'explore')}?${new URLSearchParams({ aql })}`);

/** What a drill starts from: a dashboard item (its report's AQL is read) or Explore's question. */
export type DrillItem = Pick<ComputedItem, 'id' | 'columns' | 'report'> & { aql?: string };

async function source(x: ExploreDrill, item: DrillItem, values: Record<string, string>) {
  const read = async (report: string) => {
    const path = `${projectApi(x.project)}/pmd/obj/${encodeURIComponent(report)}`;
    return (await get<{ object: { def: { aql: string } } }>(path)).object.def.aql;
  };
  const aql = item.aql ?? (await read(item.report!));
  const src: DrillSource = {
    aql,
    columns: item.columns,
    values,
    filters: x.filters,
    item: item.id,
  };
  return src;
}

/** Opens Explore with the rows behind a mark. */
export async function seeRows(x: ExploreDrill, item: DrillItem, values: Record<string, string>) {
  const src = await source(x, item, values);
  const { explain } = await api<{ explain: { leaves: { anchor: string }[] } }>(
    'POST',
    `${projectApi(x.project)}/app/aql/explain`,
    { aql: src.aql },
  );
  const dataset = explain.leaves[0]?.anchor;
  if (!dataset) throw new ApiError(0, 'this report has no measure computed on a dataset');
  openExplore(x.project, rowsAql(src, dataset, x.objects));
}

/** The attribute picker of "Break out by…", under the chart. */
export function BreakOut(p: {
  drill: ExploreDrill;
  item: DrillItem;
  values: Record<string, string>;
  label: string;
  onClose: () => void;
}) {
  const shown = new Set(p.item.columns.map((c) => c.title.toLowerCase()));
  const choices = p.drill.objects
    .filter(
      (o) => (o.type === 'attribute' || o.type === 'label') && !shown.has(o.name.toLowerCase()),
    )
    .sort((a, b) => a.name.localeCompare(b.name));
  const [pick, setPick] = useState(choices[0]?.ident ?? '');
  const [error, setError] = useState<ApiError>();
  const id = `breakout-${p.item.id}`;
  return (
    <form
      class="dash-breakout"
      aria-label={`Break out ${p.label}`}
      onSubmit={(e) => {
        e.preventDefault();
        const attr = choices.find((o) => o.ident === pick);
        if (!attr) return;
        source(p.drill, p.item, p.values)
          .then((src) => openExplore(p.drill.project, breakOutAql(src, attr)))
          .catch((err: unknown) =>
            setError(err instanceof ApiError ? err : new ApiError(0, String(err))),
          );
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape') p.onClose();
      }}
    >
      <label for={id}>Break out {p.label} by</label>
      <select id={id} value={pick} onChange={(e) => setPick(e.currentTarget.value)} autoFocus>
        {choices.map((o) => (
          <option key={o.ident} value={o.ident}>
            {o.name}
          </option>
        ))}
      </select>
      <button type="submit">Break out</button>
      <button type="button" class="quiet" onClick={p.onClose}>
        Cancel
      </button>
      <ErrorNote error={error} />
    </form>
  );
}
