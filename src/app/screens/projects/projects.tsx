// The projects the member was invited to; one click opens a project. Opening the app (a page
// load at /app) with one project goes straight into it; the list stays one click away (Ursa).
import { useEffect } from 'preact/hooks';
import { useResource } from '../../data';
import { appPath, BASE, Link, navigate } from '../../router';
import { ErrorNote, Loading, Title } from '../../ui';
import type { ProjectListEntry } from '../../../contract/projects';

/** Whether this page was loaded at the list: only then may it skip it (once). */
let openedAtList = location.pathname.replace(/\/+$/, '') === BASE;

export function Projects() {
  const r = useResource<{ projects: Record<string, ProjectListEntry> }>('/projects');
  const list = Object.values(r.value?.projects ?? {}).filter((p) => p.hasAccess);
  const only = r.value && list.length === 1 ? list[0]!.id : undefined;
  useEffect(() => {
    if (!r.value) return;
    const skip = openedAtList && only;
    openedAtList = false;
    if (skip) navigate(appPath('p', only), true);
  }, [r.value, only]);
  return (
    <section>
      <Title text="Your projects" />
      <ErrorNote error={r.error} />
      {r.loading && !r.value && <Loading what="projects" />}
      {r.value && list.length === 0 && (
        <p>You have not been invited to a project yet. Ask a project Admin to invite you.</p>
      )}
      <ul class="cards">
        {list.map((p) => (
          <li key={p.id}>
            <Link class="card link-card" href={appPath('p', p.id)}>
              <strong>{p.label}</strong>
              <span class="muted">
                {p.id}
                {p.isAdmin ? ' · Admin' : p.isMdAdmin ? ' · MD Admin' : ''}
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
