// The header's search: datasets, metrics, reports and dashboards of the project whose name (or
// identifier, tags, description) holds the text, from the engine's search (GET app/obj/search
// with datasets=true: only what the member may read), grouped by kind, each linking to its
// screen. "/" anywhere but in a text field focuses it; Escape closes the results.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { SearchHit } from '../contract/model';
import { ApiError, get, projectApi } from './api';
import type { ProjectDetails } from './project';
import { appPath, Link, useLocation } from './router';
import './search.css';

const KINDS = [
  ['dataset', 'Datasets'],
  ['metric', 'Metrics'],
  ['report', 'Reports'],
  ['dashboard', 'Dashboards'],
] as const;
const WAIT_MS = 200;

/** Where a hit opens: a dataset's page (Data), else Explore counting it; a metric's in the Model. */
export function hitHref(p: ProjectDetails, h: SearchHit): string {
  const name = h.ident.replace(/^dataset\./, '');
  switch (h.type) {
    case 'dataset':
      return p.access.mdadmin || p.access.admin
        ? appPath('p', p.id, 'data', 'datasets', name)
        : `${appPath('p', p.id, 'explore')}?${new URLSearchParams({
            aql: `SELECT COUNT([${h.ident}]) AS "Count of ${name}"`,
          })}`;
    case 'report':
      return `${appPath('p', p.id, 'explore')}?${new URLSearchParams({ report: h.ident })}`;
    case 'dashboard':
      return appPath('p', p.id, 'dashboards', h.ident);
    default:
      return appPath('p', p.id, 'model', h.ident);
  }
}

/** Typing in a field: "/" is a character there, not the shortcut. */
const typing = (t: EventTarget | null) =>
  t instanceof HTMLElement &&
  (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));

export function GlobalSearch({ project }: { project: ProjectDetails }) {
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  const [hits, setHits] = useState<{ q: string; hits: SearchHit[] } | null>(null);
  const [error, setError] = useState<ApiError>();
  const input = useRef<HTMLInputElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const loc = useLocation();
  const q = text.trim();

  // Before the first paint (not after it, as useEffect): "/" works as soon as the box shows.
  useLayoutEffect(() => {
    const key = (e: KeyboardEvent) => {
      if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
      e.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    const outside = (e: MouseEvent) => {
      if (!box.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('keydown', key);
    document.addEventListener('mousedown', outside);
    return () => {
      document.removeEventListener('keydown', key);
      document.removeEventListener('mousedown', outside);
    };
  }, []);
  // A result followed (or any other move): the results close with the screen it leads to (a
  // layout effect: no frame shows the new screen under the old results).
  useLayoutEffect(() => setOpen(false), [loc]);

  useEffect(() => {
    if (q.length < 2) return;
    let live = true;
    const timer = setTimeout(() => {
      get<{ hits: SearchHit[] }>(
        `${projectApi(project.id)}/app/obj/search?${new URLSearchParams({ query: q, datasets: 'true', limit: '200' })}`,
      ).then(
        (r) => {
          if (!live) return;
          setHits({ q, hits: r.hits });
          setError(undefined);
        },
        (e: unknown) => live && setError(e instanceof ApiError ? e : new ApiError(0, String(e))),
      );
    }, WAIT_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [q, project.id]);

  const shown = hits && hits.q === q ? hits.hits : null;
  const groups = KINDS.map(([type, title]) => ({
    type,
    title,
    hits: (shown ?? []).filter((h) => h.type === type).slice(0, 8),
  })).filter((g) => g.hits.length > 0);
  const count = groups.reduce((n, g) => n + g.hits.length, 0);
  const first = groups[0]?.hits[0];
  return (
    <div class="gsearch" ref={box}>
      <form
        role="search"
        aria-label="Project"
        onSubmit={(e) => {
          e.preventDefault();
          if (first) {
            const a = box.current?.querySelector<HTMLAnchorElement>('.gsearch-panel a');
            a?.click();
          }
        }}
      >
        <label for="gsearch-input" class="sr-only">
          Search datasets, metrics, reports and dashboards
        </label>
        <input
          id="gsearch-input"
          ref={input}
          type="search"
          value={text}
          placeholder="Search  /"
          autocomplete="off"
          aria-controls={open && q.length >= 2 ? 'gsearch-panel' : undefined}
          aria-keyshortcuts="/"
          onInput={(e) => {
            setText(e.currentTarget.value);
            setOpen(true);
          }}
          onFocus={() => setOpen(true)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') setOpen(false);
            if (e.key === 'ArrowDown') {
              e.preventDefault();
              box.current?.querySelector<HTMLAnchorElement>('.gsearch-panel a')?.focus();
            }
          }}
        />
      </form>
      {open && q.length >= 2 && (
        <div
          id="gsearch-panel"
          class="gsearch-panel"
          role="region"
          aria-label="Search results"
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              setOpen(false);
              input.current?.focus();
            }
          }}
        >
          <p class="muted" role="status">
            {error
              ? error.message
              : !shown
                ? 'Searching…'
                : count === 0
                  ? `Nothing matches “${q}”.`
                  : `${count} result${count === 1 ? '' : 's'} for “${q}”.`}
          </p>
          {groups.map((g) => (
            <section key={g.type} aria-labelledby={`gsearch-${g.type}`}>
              <h2 id={`gsearch-${g.type}`}>{g.title}</h2>
              <ul>
                {g.hits.map((h) => (
                  <li key={h.ident}>
                    <Link href={hitHref(project, h)}>{h.name}</Link>
                    {h.description && <span class="muted"> {h.description}</span>}
                  </li>
                ))}
              </ul>
            </section>
          ))}
        </div>
      )}
    </div>
  );
}
