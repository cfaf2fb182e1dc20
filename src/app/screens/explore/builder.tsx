// The point-and-click builder beside the editor: measures, breakdowns, filters, the sort and a
// top N picked from the model write the AQL into the editor (and run it); a text of the
// builder's shape shows here, anything else says it was edited by hand. The text is the one
// source of truth; only filters not complete yet (no value ticked, a number missing) are kept
// here until they are. Fields are offered grouped by their dataset.
import { useMemo, useState } from 'preact/hooks';
import {
  AGGREGATIONS,
  builderModel,
  columnTitles,
  dimensionTitle,
  EMPTY,
  filterReady,
  fromAql,
  isDate,
  measureTitle,
  toAql,
  withoutColumn,
  type Agg,
  type Built,
  type Filter,
} from './builder-aql';
import { useCombinable } from './builder-combine';
import { FilterRow, newFilter } from './builder-filters';
import { FormulaForm } from './builder-formula';
import { DraftInput } from './draft-input';
import type { ModelObject } from './complete';
import type { Model } from './model';

const byName = (a: ModelObject, b: ModelObject) => a.name.localeCompare(b.name);

/** Objects by their dataset (those of none last, under `other`), each group sorted by name. */
function byDataset(objects: ModelObject[], other: string): [string, ModelObject[]][] {
  const groups = new Map<string, ModelObject[]>();
  for (const o of [...objects].sort(byName)) {
    const k = o.def?.dataset ?? '';
    groups.set(k, [...(groups.get(k) ?? []), o]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b)))
    .map(([k, list]) => [k || other, list]);
}

export function Builder(props: {
  project: string;
  objects: ModelObject[];
  model: Model;
  text: string;
  onChange: (aql: string) => void;
}) {
  const m = useMemo(() => builderModel(props.objects), [props.objects]);
  const built = useMemo(() => fromAql(m, props.text), [m, props.text]);
  const [pending, setPending] = useState<Filter[]>([]);
  const comb = useCombinable(props.project, built);

  if (!built)
    return (
      <section class="card explore-builder" aria-labelledby="builder-h">
        <h2 id="builder-h">Build</h2>
        <p role="status">
          Edited by hand: this query has more than the builder shows (it stays as written).
        </p>
        <button type="button" class="quiet" onClick={() => props.onChange('')}>
          Start over with the builder
        </button>
      </section>
    );

  const write = (next: Built, waiting: Filter[] = pending) => {
    const all = [...next.filters, ...waiting];
    setPending(all.filter((f) => !filterReady(f)));
    props.onChange(toAql(m, { ...next, filters: all.filter(filterReady) }));
  };
  const filters = [...built.filters, ...pending];
  const setFilter = (i: number, f: Filter | null) => {
    const next = filters.flatMap((x, j) => (j !== i ? [x] : f ? [f] : []));
    write({ ...built, filters: [] }, next);
  };

  const attrs = props.objects
    .filter((o) => o.type === 'attribute' || o.type === 'label')
    .sort(byName);
  const metrics = props.objects.filter((o) => o.type === 'metric').sort(byName);
  const facts = props.objects.filter((o) => o.type === 'fact').sort(byName);

  const addMeasure = (v: string) => {
    const [kind, a, b] = v.split('\u0000');
    const x =
      kind === 'metric'
        ? { kind: 'metric' as const, ref: a! }
        : kind === 'count'
          ? { kind: 'count' as const, dataset: a! }
          : { kind: 'fact' as const, agg: a as Agg, ref: b! };
    write({ ...built, measures: [...built.measures, x] });
  };
  const addDimension = (v: string) => {
    const [trunc, ref] = v.split('\u0000');
    const d = trunc ? { ref: ref!, trunc: trunc as 'month' | 'year' } : { ref: ref! };
    write({ ...built, dims: [...built.dims, d] });
  };
  const addFilter = (ref: string) =>
    write(built, [...pending, newFilter(m, ref, isDate(m.byIdent.get(ref)))]);
  const columns = columnTitles(m, built);
  // A field that cannot join the question (no path between their datasets) is shown so.
  const off = (o: ModelObject) => {
    const set = o.type === 'fact' || o.type === 'metric' ? comb.measures : comb.dims;
    return !!set && !set.has(o.ident);
  };
  const CANNOT = ' (cannot combine)';
  const removeColumn = (col: number) => write(withoutColumn(built, col));

  return (
    <section class="card explore-builder" aria-labelledby="builder-h">
      <h2 id="builder-h">Build</h2>
      <fieldset>
        <legend>Measures</legend>
        <Chips
          items={built.measures.map((x) => measureTitle(m, x))}
          onRemove={(i) => removeColumn(built.dims.length + i + 1)}
        />
        <AddSelect label="Add a measure" onPick={addMeasure}>
          {metrics.length > 0 && (
            <optgroup label="Metrics">
              {metrics.map((o) => (
                <option key={o.ident} value={`metric\u0000${o.ident}`} disabled={off(o)}>
                  {o.name}
                  {off(o) && CANNOT}
                </option>
              ))}
            </optgroup>
          )}
          <optgroup label="Counts">
            {m.datasets.map((d) => (
              <option key={d} value={`count\u0000${d}`}>
                Count of {d}
              </option>
            ))}
          </optgroup>
          {byDataset(facts, 'Other facts').map(([ds, list]) => (
            <optgroup key={ds} label={`Facts of ${ds}`}>
              {list.flatMap((o) =>
                AGGREGATIONS.map(([agg, title]) => (
                  <option
                    key={`${agg}${o.ident}`}
                    value={`fact\u0000${agg}\u0000${o.ident}`}
                    disabled={off(o)}
                  >
                    {title} of {o.name}
                    {off(o) && CANNOT}
                  </option>
                )),
              )}
            </optgroup>
          ))}
        </AddSelect>
        <FormulaForm
          model={props.model}
          onAdd={(aql, alias) =>
            write({ ...built, measures: [...built.measures, { kind: 'formula', aql, alias }] })
          }
        />
      </fieldset>
      <fieldset>
        <legend>Break down by</legend>
        <Chips
          items={built.dims.map((d) => dimensionTitle(m, d))}
          onRemove={(i) => removeColumn(i + 1)}
        />
        <AddSelect label="Add a breakdown" onPick={addDimension}>
          {byDataset(attrs, 'Other').map(([ds, list]) => (
            <optgroup key={ds} label={ds}>
              {list.flatMap((o) => [
                <option key={o.ident} value={`\u0000${o.ident}`} disabled={off(o)}>
                  {o.name}
                  {off(o) && CANNOT}
                </option>,
                ...(isDate(o)
                  ? (['month', 'year'] as const).map((t) => (
                      <option
                        key={`${t}${o.ident}`}
                        value={`${t}\u0000${o.ident}`}
                        disabled={off(o)}
                      >
                        {o.name} by {t}
                        {off(o) && CANNOT}
                      </option>
                    ))
                  : []),
              ])}
            </optgroup>
          ))}
        </AddSelect>
      </fieldset>
      <fieldset>
        <legend>Filters</legend>
        {filters.map((f, i) => (
          <FilterRow
            key={`${i}${f.ref}`}
            project={props.project}
            m={m}
            filter={f}
            onChange={(next) => setFilter(i, next)}
          />
        ))}
        <AddSelect label="Add a filter on" onPick={addFilter}>
          {byDataset([...attrs, ...facts], 'Other').map(([ds, list]) => (
            <optgroup key={ds} label={ds}>
              {list.map((o) => (
                <option key={o.ident} value={o.ident} disabled={off(o)}>
                  {o.name}
                  {off(o) && CANNOT}
                </option>
              ))}
            </optgroup>
          ))}
        </AddSelect>
      </fieldset>
      {columns.length > 0 && (
        <fieldset class="builder-sort">
          <legend>Sort and top</legend>
          <label for="builder-sort">Sort by</label>
          <select
            id="builder-sort"
            value={built.sort ? `${built.sort.col}:${built.sort.desc ? 'desc' : 'asc'}` : ''}
            onChange={(e) => {
              const [col, dir] = e.currentTarget.value.split(':');
              write({
                ...built,
                sort: col ? { col: Number(col), desc: dir === 'desc' } : undefined,
              });
            }}
          >
            <option value="">As the data comes</option>
            {columns.flatMap((t, i) => [
              <option key={`${i}d`} value={`${i + 1}:desc`}>
                {t}, largest first
              </option>,
              <option key={`${i}a`} value={`${i + 1}:asc`}>
                {t}, smallest first
              </option>,
            ])}
          </select>
          <label for="builder-limit">Show only the first N rows</label>
          <DraftInput
            id="builder-limit"
            type="number"
            min={1}
            step={1}
            placeholder="All rows"
            value={String(built.limit ?? '')}
            onCommit={(v) => {
              const n = Number(v);
              write({ ...built, limit: Number.isInteger(n) && n > 0 ? n : undefined });
            }}
          />
        </fieldset>
      )}
      {built === EMPTY && !pending.length && (
        <p class="muted small">Pick a measure to see it; the query appears in the editor.</p>
      )}
    </section>
  );
}

/** A select whose choice is an action: it adds, then shows its prompt again. */
function AddSelect(props: { label: string; onPick: (v: string) => void; children: unknown }) {
  return (
    <select
      aria-label={props.label}
      value=""
      onChange={(e) => {
        const v = e.currentTarget.value;
        e.currentTarget.value = '';
        if (v) props.onPick(v);
      }}
    >
      <option value="">{props.label}…</option>
      {props.children as preact.ComponentChildren}
    </select>
  );
}

function Chips(props: { items: string[]; onRemove: (i: number) => void }) {
  if (!props.items.length) return null;
  return (
    <ul class="chips">
      {props.items.map((t, i) => (
        <li key={`${i}${t}`}>
          {t}
          <button
            type="button"
            class="quiet"
            aria-label={`Remove ${t}`}
            onClick={() => props.onRemove(i)}
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
