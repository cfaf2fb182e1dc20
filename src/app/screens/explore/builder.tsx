// The point-and-click builder beside the editor: measures, breakdowns and filters picked from
// the model write the AQL into the editor (and run it); a text of the builder's shape shows
// here, anything else says it was edited by hand. The text is the one source of truth; only
// filters not complete yet (no value ticked, a date missing) are kept here until they are.
import { useMemo, useState } from 'preact/hooks';
import {
  AGGREGATIONS,
  builderModel,
  dimensionTitle,
  EMPTY,
  filterReady,
  fromAql,
  isDate,
  measureTitle,
  PERIODS,
  toAql,
  type Agg,
  type Built,
  type BuilderModel,
  type Filter,
  type Period,
} from './builder-aql';
import type { ModelObject } from './complete';
import { ValuePicker } from './values';

const byName = (a: ModelObject, b: ModelObject) => a.name.localeCompare(b.name);

export function Builder(props: {
  project: string;
  objects: ModelObject[];
  text: string;
  onChange: (aql: string) => void;
}) {
  const m = useMemo(() => builderModel(props.objects), [props.objects]);
  const built = useMemo(() => fromAql(m, props.text), [m, props.text]);
  const [pending, setPending] = useState<Filter[]>([]);

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
  const addFilter = (ref: string) => {
    const o = m.byIdent.get(ref);
    const f: Filter = isDate(o) ? { ref, period: 'last30' } : { ref, values: [] };
    write(built, [...pending, f]);
  };

  return (
    <section class="card explore-builder" aria-labelledby="builder-h">
      <h2 id="builder-h">Build</h2>
      <fieldset>
        <legend>Measures</legend>
        <Chips
          items={built.measures.map((x) => measureTitle(m, x))}
          onRemove={(i) => write({ ...built, measures: built.measures.filter((_, j) => j !== i) })}
        />
        <AddSelect label="Add a measure" onPick={addMeasure}>
          {metrics.length > 0 && (
            <optgroup label="Metrics">
              {metrics.map((o) => (
                <option key={o.ident} value={`metric\u0000${o.ident}`}>
                  {o.name}
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
          {facts.length > 0 && (
            <optgroup label="Facts">
              {facts.flatMap((o) =>
                AGGREGATIONS.map(([agg, title]) => (
                  <option key={`${agg}${o.ident}`} value={`fact\u0000${agg}\u0000${o.ident}`}>
                    {title} of {o.name}
                  </option>
                )),
              )}
            </optgroup>
          )}
        </AddSelect>
      </fieldset>
      <fieldset>
        <legend>Break down by</legend>
        <Chips
          items={built.dims.map((d) => dimensionTitle(m, d))}
          onRemove={(i) => write({ ...built, dims: built.dims.filter((_, j) => j !== i) })}
        />
        <AddSelect label="Add a breakdown" onPick={addDimension}>
          {attrs.flatMap((o) => [
            <option key={o.ident} value={`\u0000${o.ident}`}>
              {o.name}
            </option>,
            ...(isDate(o)
              ? (['month', 'year'] as const).map((t) => (
                  <option key={`${t}${o.ident}`} value={`${t}\u0000${o.ident}`}>
                    {o.name} by {t}
                  </option>
                ))
              : []),
          ])}
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
          {attrs.map((o) => (
            <option key={o.ident} value={o.ident}>
              {o.name}
            </option>
          ))}
        </AddSelect>
      </fieldset>
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

function FilterRow(props: {
  project: string;
  m: BuilderModel;
  filter: Filter;
  onChange: (f: Filter | null) => void;
}) {
  const f = props.filter;
  const o = props.m.byIdent.get(f.ref);
  const title = o?.name ?? f.ref;
  const id = `filter-${f.ref.replace(/[^\w-]/g, '_')}`;
  return (
    <div class="filter-row" role="group" aria-label={`Filter on ${title}`}>
      <div class="filter-head">
        <strong>{title}</strong>
        <button
          type="button"
          class="quiet"
          aria-label={`Remove the filter on ${title}`}
          onClick={() => props.onChange(null)}
        >
          ×
        </button>
      </div>
      {'values' in f ? (
        <ValuePicker
          project={props.project}
          ident={f.ref}
          title={title}
          chosen={f.values}
          onChange={(values) => props.onChange({ ref: f.ref, values })}
        />
      ) : (
        <div class="filter-dates">
          <label for={`${id}-period`}>Period of {title}</label>
          <select
            id={`${id}-period`}
            value={f.period}
            onChange={(e) => {
              const period = e.currentTarget.value as Period;
              props.onChange(
                period === 'between'
                  ? { ref: f.ref, period, from: '', to: '' }
                  : { ref: f.ref, period },
              );
            }}
          >
            {PERIODS.map(([p, t]) => (
              <option key={p} value={p}>
                {t}
              </option>
            ))}
          </select>
          {f.period === 'between' && (
            <>
              <label for={`${id}-from`}>From</label>
              <input
                id={`${id}-from`}
                type="date"
                value={f.from}
                onChange={(e) => props.onChange({ ...f, from: e.currentTarget.value })}
              />
              <label for={`${id}-to`}>To</label>
              <input
                id={`${id}-to`}
                type="date"
                value={f.to}
                onChange={(e) => props.onChange({ ...f, to: e.currentTarget.value })}
              />
            </>
          )}
        </div>
      )}
    </div>
  );
}
