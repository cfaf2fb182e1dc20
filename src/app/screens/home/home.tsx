// A project's front page: its announcement and where to go from here.
import { useProject } from '../../project';
import { appPath, Link } from '../../router';
import { Title } from '../../ui';
import { SECTIONS } from '../../sections';
import { SqlConnection } from './sql-connection';

export function Home() {
  const p = useProject();
  const a = p.announcement;
  return (
    <section>
      <Title text={p.label} />
      {p.desc && <p class="muted">{p.desc}</p>}
      {a?.current && (
        <aside class="announcement" role="note">
          {a.title && <strong>{a.title}</strong>}
          {a.message && <p>{a.message}</p>}
        </aside>
      )}
      <ul class="cards">
        {SECTIONS.filter((s) => s.allowed(p)).map((s) => (
          <li key={s.path}>
            <Link class="card link-card" href={appPath('p', p.id, s.path)}>
              <strong>{s.title}</strong>
              <span class="muted">{s.blurb}</span>
            </Link>
          </li>
        ))}
      </ul>
      <SqlConnection />
    </section>
  );
}
