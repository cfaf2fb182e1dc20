// One dashboard as the member sees it: its filters (kept in the address), its items on the
// layout grid, and its actions (PDF export, sharing).
import { useEffect, useRef, useState } from 'preact/hooks';
import { API, ApiError, projectApi } from '../../api';
import { useResource } from '../../data';
import { useProject } from '../../project';
import { appPath, Link, navigate, useLocation } from '../../router';
import { ErrorNote, Loading, Title } from '../../ui';
import { preloadCharts } from '../../chart/chart';
import { DashboardEditor } from './editor';
import { ExportButton } from './export';
import { FilterForm } from './filter-form';
import { dashboardRun, filterQuery, readPicks, type Picks } from './filters';
import { Grid } from './grid';
import { useModel } from '../explore/model';
import { ShareButton } from './share';
import { SubscribeButton } from './subscribe';
import { AutoRefresh, DashTabs, FullScreenButton } from './view-parts';
import type { DashboardRun } from '../../../contract/dashboards';

/** A 400 about the `filter` parameter: shown next to the filters, not instead of the page. */
export const isFilterError = (e: ApiError | undefined): e is ApiError =>
  e?.status === 400 && e.context.field === 'filter';

export function DashboardView({ id }: { id: string }) {
  const project = useProject();
  const loc = useLocation();
  const picks = readPicks(loc.query);
  const query = filterQuery(picks);
  const base = `${projectApi(project.id)}/app/dashboards/${encodeURIComponent(id)}`;
  const r = useResource<DashboardRun>(dashboardRun(project.id, id, loc.query));
  // The chart code loads while the dashboard is computed, not after it answers.
  useEffect(preloadCharts, []);
  // The model's objects: a chart's "Break out by…" offers its attributes.
  const model = useModel(project.id);
  // The last answer for this dashboard: its filters stay on screen while a bad filter is fixed.
  const last = useRef<DashboardRun | undefined>(undefined);
  if (r.value?.dashboard.ident === id) last.current = r.value;
  else if (last.current && last.current.dashboard.ident !== id) last.current = undefined;
  const filterError = isFilterError(r.error) ? r.error : undefined;
  // Opened at a bad filter: the dashboard without it, for the filters' definitions only.
  const plain = useResource<DashboardRun>(filterError && !last.current ? base : null);
  const run = r.value ?? (filterError ? (last.current ?? plain.value) : undefined);
  const here = appPath('p', project.id, 'dashboards', id);
  const go = (p: Picks) => navigate(here + filterQuery(p));
  // Editing writes the object (PUT pmd/obj): the MD Admin level, which Admins hold too.
  const mayEdit = project.access.mdadmin || project.access.admin;
  // A new dashboard opens in edit mode (`?edit=1`, from the list's "New dashboard").
  const [editing, setEditing] = useState(mayEdit && loc.query.get('edit') === '1');
  const [tab, setTab] = useState<string | undefined>();
  const page = useRef<HTMLElement>(null);
  if (editing && run)
    return (
      <article class="dash">
        <Title text={`Editing ${run.dashboard.name}`} />
        <DashboardEditor
          id={id}
          run={run}
          onDone={(saved) => {
            setEditing(false);
            if (loc.query.has('edit')) navigate(here + query, true);
            if (saved) r.reload();
          }}
        />
      </article>
    );

  const tabs = run?.tabs;
  const current = tabs?.find((t) => t.id === tab)?.id ?? tabs?.[0]?.id;
  const items = r.value?.items.filter((i) => !tabs || i.tab === current);
  const titles = new Map(r.value?.items.map((i) => [i.id, i.title || 'Text']) ?? []);
  const grid = r.value && (
    <Grid
      items={items ?? []}
      explore={{ project: project.id, filters: r.value.filters, objects: model.objects }}
      drill={(values) => {
        // The dashboard's filters on these columns' attributes (matched by title).
        const found = Object.entries(values).flatMap(([title, value]): [string, string[]][] => {
          const f = r.value?.filters.find((x) => x.title.toLowerCase() === title.toLowerCase());
          return f ? [[f.attribute, [value]]] : [];
        });
        return found.length ? () => go(new Map([...picks, ...found])) : undefined;
      }}
      data={(item, format) =>
        format === 'png'
          ? `${API}${base}/items/${encodeURIComponent(item.id)}/chart.png${query}`
          : `${API}${base}/items/${encodeURIComponent(item.id)}${query ? `${query}&` : '?'}format=${format}`
      }
    />
  );
  return (
    <article class="dash" aria-busy={r.loading} ref={page}>
      <p class="dash-back">
        <Link href={appPath('p', project.id, 'dashboards')}>← All dashboards</Link>
      </p>
      <header class="dash-head">
        <div>
          <Title text={run?.dashboard.name ?? 'Dashboard'} />
          {run?.dashboard.description && <p class="muted dash-desc">{run.dashboard.description}</p>}
        </div>
        {run && (
          <div class="dash-actions">
            {mayEdit && (
              <button type="button" onClick={() => setEditing(true)}>
                Edit
              </button>
            )}
            <FullScreenButton target={() => page.current} />
            <ExportButton project={project.id} id={id} name={run.dashboard.name} query={query} />
            <ShareButton id={id} name={run.dashboard.name} />
            <SubscribeButton id={id} name={run.dashboard.name} query={query} />
          </div>
        )}
      </header>
      {run && run.filters.length > 0 && (
        <FilterForm
          key={query + JSON.stringify(run.filters.map((f) => [f.attribute, f.values]))}
          filters={run.filters}
          picks={picks}
          error={filterError}
          onApply={go}
          onClear={() => go(new Map())}
          narrows={(f) =>
            f.items?.map((i) => titles.get(i)).filter((t): t is string => t !== undefined)
          }
        />
      )}
      {run?.dashboard.refresh && <AutoRefresh seconds={run.dashboard.refresh} reload={r.reload} />}
      {r.loading && !r.value && <Loading what="the dashboard" />}
      {r.error && !filterError && <ErrorNote error={r.error} />}
      {filterError && !run && <ErrorNote error={filterError} />}
      {filterError && run && (
        <p class="muted">The items are shown again once the filters are valid.</p>
      )}
      {r.value &&
        (tabs && current ? (
          <DashTabs tabs={tabs} current={current} onTab={setTab}>
            {grid}
          </DashTabs>
        ) : (
          grid
        ))}
    </article>
  );
}
