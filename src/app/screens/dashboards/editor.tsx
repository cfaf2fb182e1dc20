// Editing a dashboard in place (MD Admins and Admins): its title and description; items added
// (a saved report, or a text), retitled, removed, moved and resized on the 12-column grid with
// the mouse (drag the Move or Resize handle) or the keyboard (arrow keys on those handles,
// Shift+arrows resize); its filters added and removed with their default values and the items
// they narrow; its tabs (each a grid of its own) and automatic refresh; undo and redo. Saved
// as the whole object through the public API (PUT pmd/obj/{id}); the API's 400 is shown as it
// comes.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, get, projectApi } from '../../api';
import { useProject } from '../../project';
import { ErrorNote, Loading } from '../../ui';
import { EditGrid } from './edit-grid';
import { FilterEditor, RefreshField, TabsEditor, type Listed } from './edit-settings';
import { useHistory } from './history';
import {
  COLUMNS,
  bottom,
  compact,
  describeCell,
  fit,
  freeId,
  perTab,
  stackTabs,
  tabOf,
  withCells,
  type Cell,
  type DashboardDef,
  type DefFilter,
  type DefItem,
  type Tab,
} from './layout';
import { DashTabs } from './view-parts';
import type { DashboardRun } from '../../../contract/dashboards';
import type { ModelObject } from '../../../contract/model';

/** The dashboard object, its def read as a dashboard's. */
type DashboardObject = Omit<ModelObject, 'def'> & { def: DashboardDef };

/** The part of the definition undo and redo go through. */
interface Doc {
  items: DefItem[];
  layout: Cell[];
  filters: DefFilter[];
  tabs: Tab[];
  refresh?: number;
}

interface Props {
  id: string;
  run: DashboardRun;
  /** Leaves edit mode; `saved` when the dashboard changed. */
  onDone: (saved: boolean) => void;
}

export function DashboardEditor({ id, run, onDone }: Props) {
  const project = useProject();
  const path = `${projectApi(project.id)}/pmd/obj/${encodeURIComponent(id)}`;
  const [obj, setObj] = useState<DashboardObject | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  useEffect(() => {
    get<{ object: DashboardObject }>(path).then(
      (r) => setObj(r.object),
      (e: unknown) => setError(e instanceof ApiError ? e : new ApiError(0, String(e))),
    );
  }, [path]);
  if (!obj) return error ? <ErrorNote error={error} /> : <Loading what="the dashboard to edit" />;
  return <Editor obj={obj} path={path} run={run} onDone={onDone} />;
}

function Editor({
  obj,
  path,
  run,
  onDone,
}: {
  obj: DashboardObject;
  path: string;
  run: DashboardRun;
  onDone: Props['onDone'];
}) {
  const project = useProject();
  const [name, setName] = useState(obj.name);
  const [description, setDescription] = useState(obj.description ?? '');
  // What undo and redo go through: the items, their cells and the filters.
  const doc = useHistory<Doc>(() => ({
    items: obj.def.items,
    layout: withCells(obj.def),
    filters: obj.def.filters ?? [],
    tabs: obj.def.tabs ?? [],
    refresh: obj.def.refresh,
  }));
  const { items, layout, filters, tabs, refresh } = doc.value;
  // The tab shown (each tab is a grid of its own); new items go on it.
  const [tab, setTab] = useState<string | undefined>();
  const current = tabs.find((t) => t.id === tab)?.id ?? tabs[0]?.id;
  const onCurrent = (i: DefItem, d: Doc = doc.value) => tabOf(i, d.tabs) === current;
  const shownItems = items.filter((i) => onCurrent(i));
  const shownIds = new Set(shownItems.map((i) => i.id));
  const change = (fn: (d: Doc) => Doc, key?: string) => doc.set(fn, key);
  const [said, setSaid] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const objects = useObjects(project.id);

  const titleOf = (i: DefItem) =>
    i.title || ('report' in i ? (objects.byIdent.get(i.report)?.name ?? i.report) : 'Text') || i.id;
  const shown = new Map(run.items.map((i) => [i.id, i]));

  const add = (item: DefItem) => {
    // A number (KPI) gets a small cell, a chart or table half the width, text a full row.
    const kpi =
      'report' in item && objects.byIdent.get(item.report)?.def?.visualization?.type === 'kpi';
    const on = current === undefined ? item : { ...item, tab: current };
    change((d) => ({
      ...d,
      items: [...d.items, on],
      layout: [
        ...d.layout,
        {
          item: item.id,
          x: 0,
          y: bottom(d.layout.filter((c) => shownIds.has(c.item))),
          w: 'text' in item ? COLUMNS : kpi ? 3 : 6,
          h: 'text' in item ? 4 : kpi ? 2 : 5,
        },
      ],
    }));
    setSaid(`Added ${titleOf(item)} at the bottom.`);
  };
  const remove = (id: string) => {
    const it = items.find((i) => i.id === id);
    // What was below rises into its place; the filters wired to it no longer name it.
    change((d) => {
      const rest = d.items.filter((i) => i.id !== id);
      return {
        ...d,
        items: rest,
        layout: perTab(
          d.layout.filter((c) => c.item !== id),
          rest,
          d.tabs,
          (cells) => compact(cells),
        ),
        filters: d.filters.map((f) => {
          if (!f.items?.includes(id)) return f;
          const { items: wired, ...other } = f;
          const left = wired.filter((x) => x !== id);
          return left.length ? { ...other, items: left } : other;
        }),
      };
    });
    if (it) setSaid(`Removed ${titleOf(it)}.`);
  };
  const retitle = (id: string, title: string) =>
    change(
      (d) => ({
        ...d,
        items: d.items.map((i) => (i.id === id ? { ...i, title: title || undefined } : i)),
      }),
      `title ${id}`,
    );
  const rewrite = (id: string, text: string) =>
    change(
      (d) => ({
        ...d,
        items: d.items.map((i) => (i.id === id && 'text' in i ? { ...i, text } : i)),
      }),
      `text ${id}`,
    );
  const moved = (next: Cell[], id: string, key?: string) => {
    // `next` is the shown tab's cells: the other tabs' stay as they are.
    const at = new Map(next.map((c) => [c.item, c]));
    change((d) => ({ ...d, layout: d.layout.map((c) => at.get(c.item) ?? c) }), key);
    const c = next.find((x) => x.item === id);
    const it = items.find((i) => i.id === id);
    if (c && it) setSaid(`${titleOf(it)}: ${describeCell(c)}.`);
  };
  const setFilters = (f: DefFilter[], key?: string) => change((d) => ({ ...d, filters: f }), key);
  const setTabs = (next: Tab[], key?: string) =>
    change((d) => {
      const ids = new Set(next.map((t) => t.id));
      // Items of a removed tab go to the first tab left (none left: one page again).
      const items = d.items.map((i) => {
        if (i.tab === undefined || ids.has(i.tab)) return i;
        const { tab: _, ...rest } = i;
        return next.length ? { ...rest, tab: next[0]!.id } : (rest as DefItem);
      });
      const layout = next.length
        ? placeBelow(d.layout, d.items, items, d.tabs, next)
        : stackTabs(d.layout, d.items, d.tabs);
      return { ...d, tabs: next, items, layout };
    }, key);
  const toTab = (id: string, to: string) => {
    const it = items.find((i) => i.id === id);
    if (!it) return;
    change((d) => {
      const moved = d.items.map((i) => (i.id === id ? { ...i, tab: to } : i));
      const dest = d.layout.filter(
        (c) =>
          c.item !== id &&
          tabOf(
            moved.find((i) => i.id === c.item)!,
            d.tabs,
          ) === to,
      );
      const layout = d.layout.map((c) => (c.item === id ? { ...c, y: bottom(dest) } : c));
      return { ...d, items: moved, layout: perTab(layout, moved, d.tabs, (c) => compact(c)) };
    });
    setSaid(`Moved ${titleOf(it)} to the tab ${tabs.find((t) => t.id === to)?.title ?? to}.`);
  };
  const undo = () => {
    doc.undo();
    setSaid('Undone.');
  };
  const redo = () => {
    doc.redo();
    setSaid('Redone.');
  };
  // Ctrl+Z / Ctrl+Shift+Z (Ctrl+Y; ⌘ on a Mac) outside text fields, whose own undo is the
  // text's.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
      const t = e.target as HTMLElement | null;
      if (t?.closest('input, textarea, select, [contenteditable="true"]')) return;
      const k = e.key.toLowerCase();
      if (k === 'z' && !e.shiftKey) undo();
      else if ((k === 'z' && e.shiftKey) || k === 'y') redo();
      else return;
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  });

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const def: DashboardDef = { ...obj.def, items, layout: layout.map(fit), filters };
      // Left out when there are none: one page, no refresh.
      if (tabs.length) def.tabs = tabs;
      else delete def.tabs;
      if (refresh) def.refresh = refresh;
      else delete def.refresh;
      await api('PUT', path, { name, description, tag: obj.tag ?? [], def });
      onDone(true);
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, String(err)));
      setBusy(false);
    }
  };

  return (
    <form class="dash-editor" onSubmit={save} aria-label="Edit dashboard">
      <div class="dash-edit-head card">
        <label for="dash-edit-name">
          Dashboard title
          <input
            id="dash-edit-name"
            required
            maxLength={255}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <label for="dash-edit-description">
          Description
          <input
            id="dash-edit-description"
            value={description}
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
        </label>
        <div class="dash-edit-buttons">
          <button type="button" class="quiet" disabled={!doc.canUndo} onClick={undo}>
            Undo
          </button>
          <button type="button" class="quiet" disabled={!doc.canRedo} onClick={redo}>
            Redo
          </button>
          <button type="submit" disabled={busy}>
            {busy ? 'Saving…' : 'Save'}
          </button>
          <button type="button" class="quiet" onClick={() => onDone(false)}>
            Cancel
          </button>
        </div>
        <ErrorNote error={error} />
      </div>
      <AddItems objects={objects.reports} items={items} onAdd={add} />
      <FilterEditor
        filters={filters}
        attributes={objects.attributes}
        items={items}
        titleOf={titleOf}
        onChange={setFilters}
        onSay={setSaid}
      />
      <div class="dash-edit-pair">
        <TabsEditor tabs={tabs} onTabs={setTabs} onSay={setSaid} />
        <fieldset class="dash-add card">
          <legend>Refresh</legend>
          <RefreshField
            refresh={refresh}
            onRefresh={(s) => change((d) => ({ ...d, refresh: s }))}
          />
        </fieldset>
      </div>
      <p class="sr-only" role="status" aria-live="polite">
        {said}
      </p>
      {(() => {
        const grid = (
          <EditGrid
            items={shownItems}
            layout={layout.filter((c) => shownIds.has(c.item))}
            titleOf={titleOf}
            shown={shown}
            tabs={tabs.length > 1 ? tabs : undefined}
            tabOf={(i) => tabOf(i, tabs)}
            onTab={toTab}
            onLayout={moved}
            onRemove={remove}
            onTitle={retitle}
            onText={rewrite}
          />
        );
        return current ? (
          <DashTabs tabs={tabs} current={current} onTab={setTab}>
            {grid}
          </DashTabs>
        ) : (
          grid
        );
      })()}
    </form>
  );
}

/** The project's reports (to add) and attributes and labels (to filter by). */
function useObjects(project: string) {
  const [list, setList] = useState<Listed[]>([]);
  useEffect(() => {
    get<{ objects: Listed[] }>(
      `${projectApi(project)}/pmd/obj?rel=object.report,object.attribute,object.label&limit=1000`,
    ).then(
      (r) => setList(r.objects),
      () => setList([]),
    );
  }, [project]);
  const byName = (a: Listed, b: Listed) => a.name.localeCompare(b.name);
  return {
    byIdent: new Map(list.map((o) => [o.ident, o])),
    reports: list.filter((o) => o.type === 'report').sort(byName),
    attributes: list.filter((o) => o.type !== 'report').sort(byName),
  };
}

function AddItems(p: { objects: Listed[]; items: DefItem[]; onAdd: (i: DefItem) => void }) {
  const [report, setReport] = useState('');
  const [text, setText] = useState('');
  return (
    <fieldset class="dash-add card">
      <legend>Add to the dashboard</legend>
      <div class="dash-add-row">
        <label for="dash-add-report">
          A saved report
          <select
            id="dash-add-report"
            value={report}
            onChange={(e) => setReport(e.currentTarget.value)}
          >
            <option value="">Choose a report…</option>
            {p.objects.map((o) => (
              <option key={o.ident} value={o.ident}>
                {o.name}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          disabled={!report}
          onClick={() => {
            p.onAdd({ id: freeId(p.items, report.replace(/^report\./, '')), report });
            setReport('');
          }}
        >
          Add report
        </button>
      </div>
      <div class="dash-add-row">
        <label for="dash-add-text">
          A text (a heading or a note)
          <textarea
            id="dash-add-text"
            rows={2}
            maxLength={10000}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
        </label>
        <button
          type="button"
          disabled={!text.trim()}
          onClick={() => {
            p.onAdd({ id: freeId(p.items, 'text'), text: text.trim() });
            setText('');
          }}
        >
          Add text
        </button>
      </div>
    </fieldset>
  );
}

/**
 * The cells once the tabs change: each tab compacted, and the items that change tab (those of
 * a removed one) below the items their new tab has, in the order they had.
 */
function placeBelow(
  layout: Cell[],
  before: DefItem[],
  items: DefItem[],
  oldTabs: Tab[],
  tabs: Tab[],
): Cell[] {
  // Without tabs before, every item is on the first tab now: none moves.
  const arriving = new Set(
    oldTabs.length
      ? items.filter((i, n) => tabOf(i, tabs) !== tabOf(before[n]!, oldTabs)).map((i) => i.id)
      : [],
  );
  const tab = new Map(items.map((i) => [i.id, tabOf(i, tabs)]));
  const next = layout.map((c) => {
    if (!arriving.has(c.item)) return c;
    const own = layout.filter((o) => !arriving.has(o.item) && tab.get(o.item) === tab.get(c.item));
    return { ...c, y: bottom(own) + c.y };
  });
  return perTab(next, items, tabs, (cells) => compact(cells));
}
