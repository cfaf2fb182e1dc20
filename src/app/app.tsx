// The application's frame: who is signed in, the project and its sections, and the screen the
// address names. Everything shown comes from the API as the member sees it.
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { signInUrl } from './api';
import { useResource } from './data';
import { ProjectContext, type ProjectDetails } from './project';
import { appPath, Link, useLocation } from './router';
import { Docs } from './screens/docs/docs';
import { Home } from './screens/home/home';
import { Projects } from './screens/projects/projects';
import { GlobalSearch } from './search';
import { SECTIONS } from './sections';
import { ErrorNote, Loading } from './ui';

export function App() {
  const user = useResource<{ id: string }>('/user');
  const loc = useLocation();
  const [kind, project, section, ...rest] = loc.parts;
  useEffect(() => {
    if (user.error?.status === 401) location.assign(signInUrl());
  }, [user.error]);
  if (!user.value)
    return (
      <main class="wrap">
        {user.error ? <ErrorNote error={user.error} /> : <Loading what="your account" />}
      </main>
    );
  if (kind === 'docs' && project)
    return (
      <Frame user={user.value.id}>
        <Docs name={project} />
      </Frame>
    );
  return kind === 'p' && project ? (
    <ProjectFrame user={user.value.id} project={project} section={section} rest={rest} />
  ) : (
    <Frame user={user.value.id}>
      <Projects />
    </Frame>
  );
}

function Frame(props: {
  user: string;
  project?: ProjectDetails;
  section?: string;
  children: ComponentChildren;
}) {
  const p = props.project;
  return (
    <>
      <a class="skip" href="#main">
        Skip to the content
      </a>
      <header class="top">
        <div class="wrap bar">
          <Link class="brand" href={appPath()}>
            Ursa
          </Link>
          {p && (
            <Link class="project" href={appPath('p', p.id)} title="Project home">
              {p.label}
            </Link>
          )}
          {p && (
            <nav aria-label="Project">
              <ul>
                {SECTIONS.filter((s) => s.allowed(p)).map((s) => (
                  <li key={s.path}>
                    <Link
                      href={appPath('p', p.id, s.path)}
                      aria-current={props.section === s.path ? 'page' : undefined}
                    >
                      {s.title}
                    </Link>
                  </li>
                ))}
              </ul>
            </nav>
          )}
          {p && <GlobalSearch key={p.id} project={p} />}
          <form class="who" method="post" action="/auth/logout">
            <span class="muted" title="Signed in as">
              {props.user}
            </span>
            <button type="submit" class="quiet">
              Sign out
            </button>
          </form>
        </div>
      </header>
      <main id="main" class="wrap">
        {props.children}
      </main>
    </>
  );
}

function ProjectFrame(props: { user: string; project: string; section?: string; rest: string[] }) {
  const r = useResource<{ project: ProjectDetails }>(
    `/projects/${encodeURIComponent(props.project)}`,
  );
  const details = r.value?.project;
  const section = SECTIONS.find((s) => s.path === props.section);
  let body;
  if (!details) body = r.error ? <ErrorNote error={r.error} /> : <Loading what="the project" />;
  else if (!props.section) body = <Home />;
  else if (!section || !section.allowed(details))
    body = <p role="alert">There is no such screen in this project.</p>;
  else body = <section.screen rest={props.rest} />;
  return (
    <Frame user={props.user} project={details} section={props.section}>
      {details ? <ProjectContext.Provider value={details}>{body}</ProjectContext.Provider> : body}
    </Frame>
  );
}
