// The dashboards the member can open (by their roles or a share), as cards; MD Admins and
// Admins start a new one here (POST pmd/obj), which opens in edit mode.
import { useState } from 'preact/hooks';
import { ApiError, api, projectApi } from '../../api';
import { useResource } from '../../data';
import { useProject } from '../../project';
import { appPath, Link, navigate } from '../../router';
import { ErrorNote, Loading, Title } from '../../ui';
import type { DashboardSummary } from '../../../contract/dashboards';

export function DashboardList() {
  const project = useProject();
  const r = useResource<{ dashboards: DashboardSummary[] }>(
    `${projectApi(project.id)}/app/dashboards`,
  );
  const list = r.value?.dashboards;
  // Creating writes an object (POST pmd/obj): the MD Admin level, which Admins hold too.
  const mayCreate = project.access.mdadmin || project.access.admin;
  return (
    <>
      <div class="dash-list-head">
        <Title text="Dashboards" />
        {mayCreate && <NewDashboard project={project.id} />}
      </div>
      {!list ? (
        r.error ? (
          <ErrorNote error={r.error} />
        ) : (
          <Loading what="the dashboards" />
        )
      ) : list.length === 0 ? (
        <div class="card dash-empty">
          <h2>No dashboards yet</h2>
          <p class="muted">
            There is no dashboard you can open in this project.{' '}
            {mayCreate
              ? 'Start one with “New dashboard”.'
              : 'One you cannot see by your roles appears here once someone shares it with you.'}
          </p>
        </div>
      ) : (
        <ul class="cards" aria-label="Dashboards">
          {list.map((d) => (
            <li key={d.ident}>
              <Link class="card link-card" href={appPath('p', project.id, 'dashboards', d.ident)}>
                <strong>{d.name}</strong>
                {d.description && <span>{d.description}</span>}
                <span class="muted">
                  {d.items} {d.items === 1 ? 'item' : 'items'}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** "New dashboard": asks for a title, creates it empty and opens it in edit mode. */
function NewDashboard({ project }: { project: string }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  if (!open)
    return (
      <button type="button" onClick={() => setOpen(true)}>
        New dashboard
      </button>
    );
  const create = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const r = await api<{ objects: { ident: string }[] }>(
        'POST',
        `${projectApi(project)}/pmd/obj`,
        { type: 'dashboard', name: name.trim(), def: { items: [] } },
      );
      navigate(`${appPath('p', project, 'dashboards', r.objects[0]!.ident)}?edit=1`);
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, String(err)));
      setBusy(false);
    }
  };
  return (
    <form class="dash-new card" onSubmit={create} aria-label="New dashboard">
      <label for="dash-new-name">
        Title of the new dashboard
        <input
          id="dash-new-name"
          required
          maxLength={255}
          autoFocus
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      <div class="dash-edit-buttons">
        <button type="submit" disabled={busy || !name.trim()}>
          {busy ? 'Creating…' : 'Create'}
        </button>
        <button type="button" class="quiet" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
      <ErrorNote error={error} />
    </form>
  );
}
