// The projects the member was invited to; one click opens a project.

import { useResource } from '../../data';
import { appPath, Link } from '../../router';
import { ErrorNote, Loading, Title } from '../../ui';

interface Entry {
  id: string;
  label: string;
  hasAccess: boolean;
  isAdmin: boolean;
  isMdAdmin: boolean;
}

export function Projects() {
  const r = useResource<{ projects: Record<string, Entry> }>('/projects');
  const list = Object.values(r.value?.projects ?? {}).filter((p) => p.hasAccess);
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
