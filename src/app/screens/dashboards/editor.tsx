// Editing a dashboard in place (MD Admins and Admins): its title and description; items added
// (a saved report, or a text), retitled, removed, moved and resized on the 12-column grid with
// the mouse (drag the Move or Resize handle) or the keyboard (arrow keys on those handles,
// Shift+arrows resize); its filters added and removed with their default values. Saved as the
// whole object through the public API (PUT pmd/obj/{id}); the API's 400 is shown as it comes.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, get, projectApi } from '../../api';
import { useProject } from '../../project';
import { ErrorNote, Loading } from '../../ui';
import { textValues, valuesText } from './filters';
import { ItemBody } from './grid';
import { TextCard } from './text-card';
import {
  COLUMNS,
  bottom,
  describeCell,
  fit,
  freeId,
  nudge,
  place,
  withCells,
  type Cell,
  type DashboardDef,
  type DefItem,
} from './layout';
import type { DashboardItem, DashboardRun, ReportResult } from '../../../contract/dashboards';
import type { ModelObject } from '../../../contract/model';
import { FilterField } from './value-picker';

/** The dashboard object, its def read as a dashboard's. */
type DashboardObject = Omit<ModelObject, 'def'> & { def: DashboardDef };

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
  const [items, setItems] = useState<DefItem[]>(obj.def.items);
  const [layout, setLayout] = useState<Cell[]>(() => withCells(obj.def));
  const [filters, setFilters] = useState(obj.def.filters ?? []);
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
    setItems((list) => [...list, item]);
    setLayout((l) => [
      ...l,
      {
        item: item.id,
        x: 0,
        y: bottom(l),
        w: 'text' in item ? COLUMNS : kpi ? 3 : 6,
        h: 'text' in item ? 4 : kpi ? 2 : 5,
      },
    ]);
    setSaid(`Added ${titleOf(item)} at the bottom.`);
  };
  const remove = (id: string) => {
    const it = items.find((i) => i.id === id);
    setItems((list) => list.filter((i) => i.id !== id));
    setLayout((l) => l.filter((c) => c.item !== id));
    if (it) setSaid(`Removed ${titleOf(it)}.`);
  };
  const retitle = (id: string, title: string) =>
    setItems((list) => list.map((i) => (i.id === id ? { ...i, title: title || undefined } : i)));
  const rewrite = (id: string, text: string) =>
    setItems((list) => list.map((i) => (i.id === id && 'text' in i ? { ...i, text } : i)));
  const moved = (next: Cell[], id: string) => {
    setLayout(next);
    const c = next.find((x) => x.item === id);
    const it = items.find((i) => i.id === id);
    if (c && it) setSaid(`${titleOf(it)}: ${describeCell(c)}.`);
  };

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

interface GridProps {
  items: DefItem[];
  layout: Cell[];
  titleOf: (i: DefItem) => string;
  shown: Map<string, DashboardItem>;
  onLayout: (next: Cell[], id: string) => void;
  onRemove: (id: string) => void;
  onTitle: (id: string, title: string) => void;
  onText: (id: string, text: string) => void;
}

const KEYS: Record<string, [number, number]> = {
  ArrowLeft: [-1, 0],
  ArrowRight: [1, 0],
  ArrowUp: [0, -1],
  ArrowDown: [0, 1],
};

function EditGrid(p: GridProps) {
  const grid = useRef<HTMLDivElement>(null);
  // A drag: the handle's kind, where the pointer and the layout were when it started.
  const drag = useRef<{ id: string; resize: boolean; x: number; y: number; base: Cell[] } | null>(
    null,
  );
  const cells = new Map(p.layout.map((c) => [c.item, c]));
  const ordered = [...p.items].sort((a, b) => {
    const ca = cells.get(a.id)!;
    const cb = cells.get(b.id)!;
    return ca.y - cb.y || ca.x - cb.x;
  });

  /** One column and one row of the grid in pixels (null when it is one column: a phone). */
  const steps = () => {
    const g = grid.current;
    if (!g) return null;
    const cs = getComputedStyle(g);
    if (cs.gridTemplateColumns.split(' ').length < COLUMNS) return null;
    const gap = parseFloat(cs.columnGap) || 0;
    const col = (g.clientWidth - gap * (COLUMNS - 1)) / COLUMNS + gap;
    const row = parseFloat(cs.gridAutoRows) + (parseFloat(cs.rowGap) || 0);
    return { col, row };
  };

  const start = (e: PointerEvent, id: string, resize: boolean) => {
    if (e.button !== 0 || !steps()) return;
    (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
    drag.current = { id, resize, x: e.clientX, y: e.clientY, base: p.layout };
  };
  const move = (e: PointerEvent) => {
    const d = drag.current;
    const s = steps();
    if (!d || !s) return;
    const dx = Math.round((e.clientX - d.x) / s.col);
    const dy = Math.round((e.clientY - d.y) / s.row);
    const c = d.base.find((x) => x.item === d.id)!;
    const want = fit(
      d.resize ? { ...c, w: c.w + dx, h: c.h + dy } : { ...c, x: c.x + dx, y: c.y + dy },
    );
    const now = cells.get(d.id)!;
    // Only a change of cell re-lays the grid: most pointer moves cost nothing.
    if (want.x !== now.x || want.y !== now.y || want.w !== now.w || want.h !== now.h)
      p.onLayout(place(d.base, want), d.id);
  };
  const end = () => {
    drag.current = null;
  };
  const key = (e: KeyboardEvent, id: string, resize: boolean) => {
    const k = KEYS[e.key];
    if (!k) return;
    e.preventDefault();
    p.onLayout(nudge(p.layout, id, k[0], k[1], resize || e.shiftKey), id);
  };

  if (!p.items.length) return <p class="muted">No items: add a report or a text above.</p>;
  return (
    <div class="dash-grid editing" ref={grid}>
      <p id="dash-handle-hint" class="sr-only">
        Arrow keys move the item by a column or a row; Shift with the arrow keys, or the arrow keys
        on Resize, make it wider, narrower, taller or shorter.
      </p>
      {ordered.map((it) => {
        const c = cells.get(it.id)!;
        const title = p.titleOf(it);
        const live = p.shown.get(it.id);
        return (
          <section
            key={it.id}
            class="dash-item card dash-edit-item"
            aria-label={title}
            data-item={it.id}
            style={{
              '--x': String(c.x + 1),
              '--y': String(c.y + 1),
              '--w': String(c.w),
              '--h': String(c.h),
            }}
          >
            <div class="dash-edit-bar">
              <button
                type="button"
                class="quiet dash-handle"
                aria-label={`Move ${title}`}
                aria-describedby="dash-handle-hint"
                onPointerDown={(e) => start(e, it.id, false)}
                onPointerMove={move}
                onPointerUp={end}
                onPointerCancel={end}
                onKeyDown={(e) => key(e, it.id, false)}
              >
                ✥ Move
              </button>
              <label class="dash-edit-title">
                <span class="sr-only">Title</span>
                <input
                  value={it.title ?? ''}
                  placeholder={'report' in it ? title : 'No title'}
                  maxLength={255}
                  onInput={(e) => p.onTitle(it.id, e.currentTarget.value)}
                />
              </label>
              <span class="muted dash-cell">
                {c.w}×{c.h}
              </span>
              <button type="button" class="quiet" onClick={() => p.onRemove(it.id)}>
                Remove<span class="sr-only"> {title}</span>
              </button>
            </div>
            {'text' in it ? (
              <>
                <label>
                  Text (Markdown)
                  <textarea
                    rows={3}
                    value={it.text}
                    onInput={(e) => p.onText(it.id, e.currentTarget.value)}
                  />
                </label>
                <div class="dash-edit-preview" aria-label={`${title}: preview`} role="region">
                  <TextCard text={it.text} />
                </div>
              </>
            ) : live && live.report === it.report ? (
              <div class="dash-edit-preview">
                <ItemBody item={live} />
              </div>
            ) : (
              <ReportPreview id={it.id} report={it.report} title={title} />
            )}
            <button
              type="button"
              class="quiet dash-resize"
              aria-label={`Resize ${title}`}
              aria-describedby="dash-handle-hint"
              onPointerDown={(e) => start(e, it.id, true)}
              onPointerMove={move}
              onPointerUp={end}
              onPointerCancel={end}
              onKeyDown={(e) => key(e, it.id, true)}
            >
              ⇲
            </button>
          </section>
        );
      })}
    </div>
  );
}

/**
 * A report added since the dashboard was opened, computed as the editor sees it
 * (GET app/reports/{id}), so the item shows what it will show once saved.
 */
function ReportPreview(p: { id: string; report: string; title: string }) {
  const project = useProject();
  const [item, setItem] = useState<DashboardItem | undefined>();
  const [failed, setFailed] = useState('');
  useEffect(() => {
    let live = true;
    get<ReportResult>(`${projectApi(project.id)}/app/reports/${encodeURIComponent(p.report)}`).then(
      (r) =>
        live &&
        setItem({
          ...r,
          id: p.id,
          title: p.title,
          report: p.report,
          layout: { x: 0, y: 0, w: 1, h: 1 },
        }),
      (e: unknown) => live && setFailed(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [project.id, p.report, p.id, p.title]);
  if (failed) return <p class="error dash-item-error">This item could not be shown: {failed}</p>;
  if (!item) return <p class="muted">Computing the preview…</p>;
  return (
    <div class="dash-edit-preview">
      <ItemBody item={item} />
    </div>
  );
}
