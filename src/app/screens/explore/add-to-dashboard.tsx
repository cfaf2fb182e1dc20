// Adding a saved report to a dashboard (MD Admins): the dashboard's object is read
// (GET pmd/obj/{id}), the report appended to def.items with a grid cell below the others,
// and the object written back (PUT). Or a new dashboard holding just the report (POST).
import { useState } from 'preact/hooks';
import { api, ApiError, get, projectApi } from '../../api';
import { useResource } from '../../data';
import { appPath, Link } from '../../router';
import { ErrorNote } from '../../ui';
import { Field } from './field';
import { withReport, type DashboardDef } from './dashboard';
import type { Saved } from './save';
import type { DashboardSummary } from '../../../contract/dashboards';

interface DashboardList {
  dashboards: DashboardSummary[];
}

const NEW = '';

export function AddToDashboard({ project, report }: { project: string; report: Saved }) {
  const list = useResource<DashboardList>(`${projectApi(project)}/app/dashboards`);
  const dashboards = list.value?.dashboards ?? [];
  const [pick, setPick] = useState<string>();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const [added, setAdded] = useState<Saved>();
  const chosen = pick ?? dashboards[0]?.ident ?? NEW;

  const onSubmit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      let target: Saved;
      if (chosen === NEW) {
        const r = await api<{ objects: Saved[] }>('POST', `${projectApi(project)}/pmd/obj`, {
          type: 'dashboard',
          name: name.trim(),
          def: withReport({ items: [] }, report.ident, { kpi: report.kpi }),
        });
        target = r.objects[0]!;
        setPick(target.ident);
        setName('');
      } else {
        const path = `${projectApi(project)}/pmd/obj/${encodeURIComponent(chosen)}`;
        const { object } = await get<{ object: Saved & { def: DashboardDef } }>(path);
        await api('PUT', path, {
          ...object,
          def: withReport(object.def, report.ident, { kpi: report.kpi }),
        });
        target = object;
      }
      setAdded(target);
      list.reload();
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, String(err)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="explore-add" onSubmit={onSubmit} aria-labelledby="explore-add-h">
      <h4 id="explore-add-h">Add to a dashboard</h4>
      <div class="explore-bar">
        <Field id="dashboard-pick" label="Dashboard">
          <select
            id="dashboard-pick"
            value={chosen}
            onChange={(e) => setPick(e.currentTarget.value)}
          >
            {dashboards.map((d) => (
              <option key={d.ident} value={d.ident}>
                {d.name} ({d.items === 1 ? '1 item' : `${d.items} items`})
              </option>
            ))}
            <option value={NEW}>A new dashboard…</option>
          </select>
        </Field>
        {chosen === NEW && (
          <Field id="dashboard-name" label="New dashboard name">
            <input
              id="dashboard-name"
              value={name}
              required
              maxLength={255}
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </Field>
        )}
        <button type="submit" disabled={busy || !list.value}>
          Add to dashboard
        </button>
      </div>
      <ErrorNote error={error ?? list.error} />
      {added && (
        <p role="status">
          Added to <Link href={appPath('p', project, 'dashboards', added.ident)}>{added.name}</Link>
          .
        </p>
      )}
    </form>
  );
}
