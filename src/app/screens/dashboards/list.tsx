// The dashboards the member can open (by their roles or a share), as cards.
import { projectApi } from '../../api';
import { useResource } from '../../data';
import { useProject } from '../../project';
import { appPath, Link } from '../../router';
import { ErrorNote, Loading, Title } from '../../ui';
import type { DashboardSummary } from '../../../contract/dashboards';

export function DashboardList() {
  const project = useProject();
  const r = useResource<{ dashboards: DashboardSummary[] }>(
    `${projectApi(project.id)}/app/dashboards`,
  );
  const list = r.value?.dashboards;
  return (
    <>
      <Title text="Dashboards" />
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
            There is no dashboard you can open in this project. Dashboards are saved in the
            project’s model (objects of type <code>dashboard</code>); one you cannot see by your
            roles appears here once someone shares it with you.
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
