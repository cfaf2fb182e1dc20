// The editor's settings beside the grid: the filters (their default values, and the items
// each narrows: every item, or those checked), the tabs (added, renamed, removed: their items
// go to the first tab left), and the automatic refresh.
import { useState } from 'preact/hooks';
import { textValues, valuesText } from './filters';
import type { DefFilter, DefItem, Tab } from './layout';
import { FilterField } from './value-picker';

export type Listed = {
  ident: string;
  name: string;
  type: string;
  def?: { dataType?: string; visualization?: { type?: string } };
};

export function FilterEditor(p: {
  filters: DefFilter[];
  attributes: Listed[];
  items: DefItem[];
  titleOf: (i: DefItem) => string;
  onChange: (f: DefFilter[], key?: string) => void;
  onSay: (s: string) => void;
}) {
  const [attribute, setAttribute] = useState('');
  const byIdent = new Map(p.attributes.map((a) => [a.ident, a]));
  const nameOf = (a: string) => byIdent.get(a)?.name ?? a;
  const used = new Set(p.filters.map((f) => f.attribute));
  return (
    <fieldset class="dash-add card">
      <legend>Filters</legend>
      {p.filters.length === 0 && <p class="muted">No filters yet.</p>}
      <ul class="dash-edit-filters">
        {p.filters.map((f, i) => (
          <li key={f.attribute}>
            <FilterField
              id={`dash-edit-filter-${i}`}
              attribute={f.attribute}
              title={`${nameOf(f.attribute)}: selected by default`}
              dataType={byIdent.get(f.attribute)?.def?.dataType ?? ''}
              text={valuesText(f.values ?? [])}
              onText={(t) =>
                p.onChange(
                  p.filters.map((x, j) => (j === i ? { ...x, values: textValues(t) } : x)),
                  `values ${f.attribute}`,
                )
              }
            />
            <Narrows
              filter={f}
              name={nameOf(f.attribute)}
              items={p.items}
              titleOf={p.titleOf}
              onItems={(items) =>
                p.onChange(
                  p.filters.map((x, j) => {
                    if (j !== i) return x;
                    const { items: _, ...rest } = x;
                    return items ? { ...rest, items } : rest;
                  }),
                )
              }
            />
            <button
              type="button"
              class="quiet"
              onClick={() => {
                p.onChange(p.filters.filter((_, j) => j !== i));
                p.onSay(`Removed the filter ${nameOf(f.attribute)}.`);
              }}
            >
              Remove<span class="sr-only"> the filter {nameOf(f.attribute)}</span>
            </button>
          </li>
        ))}
      </ul>
      <div class="dash-add-row">
        <label for="dash-add-filter">
          Filter by
          <select
            id="dash-add-filter"
            value={attribute}
            onChange={(e) => setAttribute(e.currentTarget.value)}
          >
            <option value="">Choose an attribute…</option>
            {p.attributes
              .filter((a) => !used.has(a.ident))
              .map((a) => (
                <option key={a.ident} value={a.ident}>
                  {a.name}
                </option>
              ))}
          </select>
        </label>
        <button
          type="button"
          disabled={!attribute}
          onClick={() => {
            p.onChange([...p.filters, { attribute }]);
            p.onSay(`Added the filter ${nameOf(attribute)}.`);
            setAttribute('');
          }}
        >
          Add filter
        </button>
      </div>
    </fieldset>
  );
}

/** Which items a filter narrows: every item (the default), or those checked. */
function Narrows(p: {
  filter: DefFilter;
  name: string;
  items: DefItem[];
  titleOf: (i: DefItem) => string;
  onItems: (items: string[] | undefined) => void;
}) {
  const chosen = p.filter.items;
  const on = (id: string) => !chosen || chosen.includes(id);
  const set = (id: string, checked: boolean) => {
    const next = p.items.filter((i) => (i.id === id ? checked : on(i.id))).map((i) => i.id);
    // All checked is every item, now and added later; none is not a choice.
    if (next.length === p.items.length) p.onItems(undefined);
    else if (next.length) p.onItems(next);
  };
  const summary = !chosen
    ? 'every item'
    : p.items
        .filter((i) => chosen.includes(i.id))
        .map(p.titleOf)
        .join(', ');
  return (
    <details class="dash-narrows-edit">
      <summary>
        Narrows {summary}
        <span class="sr-only"> (the filter {p.name})</span>
      </summary>
      <ul>
        {p.items.map((i) => (
          <li key={i.id}>
            <label class="dash-choice">
              <input
                type="checkbox"
                checked={on(i.id)}
                onChange={(e) => set(i.id, e.currentTarget.checked)}
              />
              {p.titleOf(i)}
            </label>
          </li>
        ))}
      </ul>
    </details>
  );
}

/** The tabs: renamed in place, removed, added at the end. */
export function TabsEditor(p: {
  tabs: Tab[];
  onTabs: (tabs: Tab[], key?: string) => void;
  onSay: (s: string) => void;
}) {
  const add = () => {
    const taken = new Set(p.tabs.map((t) => t.id));
    let n = p.tabs.length + 1;
    while (taken.has(`tab_${n}`)) n++;
    const title = `Tab ${n}`;
    p.onTabs([...p.tabs, { id: `tab_${n}`, title }]);
    p.onSay(
      p.tabs.length ? `Added the tab ${title}.` : `Added the tab ${title}: every item is on it.`,
    );
  };
  return (
    <fieldset class="dash-add card">
      <legend>Tabs</legend>
      {p.tabs.length === 0 && <p class="muted">One page: add a tab to split the items.</p>}
      <ul class="dash-edit-tabs">
        {p.tabs.map((t, i) => (
          <li key={t.id}>
            <label>
              Tab {i + 1} title
              <input
                value={t.title}
                maxLength={100}
                required
                onInput={(e) =>
                  p.onTabs(
                    p.tabs.map((x) => (x.id === t.id ? { ...x, title: e.currentTarget.value } : x)),
                    `tab ${t.id}`,
                  )
                }
              />
            </label>
            <button
              type="button"
              class="quiet"
              onClick={() => {
                p.onTabs(p.tabs.filter((x) => x.id !== t.id));
                p.onSay(`Removed the tab ${t.title}; its items are on the first tab.`);
              }}
            >
              Remove<span class="sr-only"> the tab {t.title}</span>
            </button>
          </li>
        ))}
      </ul>
      <button type="button" onClick={add}>
        Add tab
      </button>
    </fieldset>
  );
}

/** How often an open dashboard refreshes itself. */
export const REFRESHES: [seconds: number, label: string][] = [
  [0, 'Never'],
  [60, 'Every minute'],
  [300, 'Every 5 minutes'],
  [900, 'Every 15 minutes'],
  [1800, 'Every 30 minutes'],
  [3600, 'Every hour'],
];

export function RefreshField(p: { refresh?: number; onRefresh: (s: number | undefined) => void }) {
  const options = REFRESHES.some(([s]) => s === (p.refresh ?? 0))
    ? REFRESHES
    : [...REFRESHES, [p.refresh!, `Every ${p.refresh} seconds`] as [number, string]];
  return (
    <label for="dash-edit-refresh">
      Refresh automatically
      <select
        id="dash-edit-refresh"
        value={String(p.refresh ?? 0)}
        onChange={(e) => {
          const n = Number(e.currentTarget.value);
          p.onRefresh(n > 0 ? n : undefined);
        }}
      >
        {options.map(([s, label]) => (
          <option key={s} value={String(s)}>
            {label}
          </option>
        ))}
      </select>
    </label>
  );
}
