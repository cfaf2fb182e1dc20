// Editing a dashboard in place (MD Admins and Admins): its title and description; items added
// (a saved report, or a text), retitled, removed, moved and resized on the 12-column grid with
// the mouse (drag the Move or Resize handle) or the keyboard (arrow keys on those handles,
// Shift+arrows resize); its filters added and removed with their default values. Saved as the
// whole object through the public API (PUT pmd/obj/{id}); the API's 400 is shown as it comes.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, get, projectApi } from '../../api';
import { useProject } from '../../project';
import { ErrorNote, Loading } from '../../ui';
import { textValues, valuesText } from './filters';
import { EditGrid } from './edit-grid';
import { useHistory } from './history';
import {
  COLUMNS,
  bottom,
  compact,
  describeCell,
  fit,
  freeId,
  withCells,
  type Cell,
  type DashboardDef,
  type DefFilter,
  type DefItem,
} from './layout';
import type { DashboardRun } from '../../../contract/dashboards';
import type { ModelObject } from '../../../contract/model';
import { FilterField } from './value-picker';

/** The dashboard object, its def read as a dashboard's. */
type DashboardObject = Omit<ModelObject, 'def'> & { def: DashboardDef };

/** The part of the definition undo and redo go through. */
interface Doc {
  items: DefItem[];
  layout: Cell[];
  filters: DefFilter[];
}

type Listed = {
  ident: string;
  name: string;
  type: string;
  def?: { dataType?: string; visualization?: { type?: string } };
};

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
  }));
  const { items, layout, filters } = doc.value;
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
    change((d) => ({
      ...d,
      items: [...d.items, item],
      layout: [
        ...d.layout,
        {
          item: item.id,
          x: 0,
          y: bottom(d.layout),
          w: 'text' in item ? COLUMNS : kpi ? 3 : 6,
          h: 'text' in item ? 4 : kpi ? 2 : 5,
        },
      ],
    }));
    setSaid(`Added ${titleOf(item)} at the bottom.`);
  };
  const remove = (id: string) => {
    const it = items.find((i) => i.id === id);
    // What was below rises into its place.
    change((d) => ({
      ...d,
      items: d.items.filter((i) => i.id !== id),
      layout: compact(d.layout.filter((c) => c.item !== id)),
    }));
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
    change((d) => ({ ...d, layout: next }), key);
    const c = next.find((x) => x.item === id);
    const it = items.find((i) => i.id === id);
    if (c && it) setSaid(`${titleOf(it)}: ${describeCell(c)}.`);
  };
  const setFilters = (f: DefFilter[], key?: string) => change((d) => ({ ...d, filters: f }), key);
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
      const def = { ...obj.def, items, layout: layout.map(fit), filters };
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
        onChange={setFilters}
        onSay={setSaid}
      />
      <p class="sr-only" role="status" aria-live="polite">
        {said}
      </p>
      <EditGrid
        items={items}
        layout={layout}
        titleOf={titleOf}
        shown={shown}
        onLayout={moved}
        onRemove={remove}
        onTitle={retitle}
        onText={rewrite}
      />
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

function FilterEditor(p: {
  filters: NonNullable<DashboardDef['filters']>;
  attributes: Listed[];
  onChange: (f: NonNullable<DashboardDef['filters']>) => void;
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
                p.onChange(p.filters.map((x, j) => (j === i ? { ...x, values: textValues(t) } : x)))
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
