// The semantic model: objects by type with paging, search, and one object with its
// definition, access, dependencies and history (a revision opens as it was); MD Admins and
// Admins edit an object's title, description, tags, format and readers (edit.tsx), and a
// column's role, attribute or fact (role.tsx: its dataset loaded again). Addresses:
// /model?type=metric&offset=50, /model?q=distance, /model/{ident}, /model/{ident}/history/{n}.
import { AlertMeButton } from '../../alert-me';
import { useEffect, useState } from 'preact/hooks';
import { get, projectApi, type ApiError } from '../../api';
import { useResource } from '../../data';
import { useProject } from '../../project';
import { appPath, Link, navigate, useLocation } from '../../router';
import { Loading, Title } from '../../ui';
import type {
  ModelObject,
  ObjectSummary as ObjectRef,
  RevisionInfo,
  SearchHit as Hit,
} from '../../../contract/model';
import { Definition, objectHref, ObjLink } from './definition';
import { EDITABLE, EditObject } from './edit';
import { ColumnRole, hasRole } from './role';
import { offsetOf, Pager, Problem, When, withQuery, type Paging } from './parts';
import './model.css';

export const TYPES = [
  ['attribute', 'Attributes', 'Attribute'],
  ['label', 'Labels', 'Label'],
  ['fact', 'Facts', 'Fact'],
  ['metric', 'Metrics', 'Metric'],
  ['filter', 'Filters', 'Filter'],
  ['report', 'Reports', 'Report'],
  ['dashboard', 'Dashboards', 'Dashboard'],
  ['folder', 'Folders', 'Folder'],
  ['userrole', 'User roles', 'User role'],
  ['flow', 'Flows', 'Flow'],
  ['trigger', 'Triggers', 'Trigger'],
  ['credentials', 'Credentials', 'Credentials'],
  ['alert', 'Alerts', 'Alert'],
  ['subscription', 'Subscriptions', 'Subscription'],
] as const;

export const typeName = (type: string): string => TYPES.find((t) => t[0] === type)?.[2] ?? type;
const PAGE = 50;

export function Model({ rest }: { rest: string[] }) {
  const [ident, sub, revision, ...more] = rest;
  if (!ident) return <ObjectList />;
  if (!sub) return <ObjectPage key={ident} ident={ident} />;
  if (sub === 'history' && revision && !more.length)
    return <Revision key={`${ident}/${revision}`} ident={ident} revision={revision} />;
  return <p role="alert">There is no such screen in this project.</p>;
}

/** The list: a search box, the types with their counts, and the chosen type's objects. */
function ObjectList() {
  const p = useProject();
  const loc = useLocation();
  const q = loc.query.get('q')?.trim() ?? '';
  const type = loc.query.get('type') ?? 'attribute';
  const base = appPath('p', p.id, 'model');
  const counts = useTypeCounts(p.id);
  return (
    <section class="model">
      <Title text={q ? `“${q}” in the model` : 'Model'}>Model</Title>
      <SearchForm q={q} base={base} />
      <nav class="model-types" aria-label="Object types">
        <ul>
          {TYPES.map(([t, plural]) => (
            <li key={t} class={counts && !counts[t] ? 'empty' : undefined}>
              <Link
                href={withQuery(base, { type: t })}
                aria-current={!q && t === type ? 'page' : undefined}
              >
                {plural}
                {counts && <span class="count"> {counts[t] ?? 0}</span>}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {q ? (
        <SearchResults key={q} q={q} />
      ) : (
        <TypeList key={type} type={type} offset={offsetOf(loc.query)} base={base} />
      )}
    </section>
  );
}

/** How many objects of each type the member can read (one small request per type). */
function useTypeCounts(project: string): Record<string, number> | undefined {
  const [counts, setCounts] = useState<Record<string, number>>();
  useEffect(() => {
    let live = true;
    Promise.all(
      TYPES.map(([t]) =>
        get<{ paging: Paging }>(`${projectApi(project)}/pmd/obj?rel=object.${t}&limit=1`).then(
          (r) => [t, r.paging.total] as const,
          () => [t, 0] as const,
        ),
      ),
    ).then((all) => live && setCounts(Object.fromEntries(all)));
    return () => {
      live = false;
    };
  }, [project]);
  return counts;
}

function SearchForm({ q, base }: { q: string; base: string }) {
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  return (
    <form
      class="model-search"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        navigate(withQuery(base, { q: text.trim() }));
      }}
    >
      <label>
        Search the model
        <input
          type="search"
          name="q"
          value={text}
          placeholder="Name, identifier, tag or description"
          onInput={(e) => setText(e.currentTarget.value)}
        />
      </label>
      <button type="submit">Search</button>
      {q && (
        <Link class="button quiet" href={base}>
          Clear
        </Link>
      )}
    </form>
  );
}

function TypeList({ type, offset, base }: { type: string; offset: number; base: string }) {
  const p = useProject();
  const known = TYPES.find((t) => t[0] === type);
  const r = useResource<{ objects: ModelObject[]; paging: Paging }>(
    known ? `${projectApi(p.id)}/pmd/obj?rel=object.${type}&limit=${PAGE}&offset=${offset}` : null,
  );
  if (!known) return <p role="alert">There is no object type “{type}”.</p>;
  const objects = r.value?.objects;
  return (
    <>
      <h2>{known[1]}</h2>
      <Problem error={r.error} />
      {!objects && !r.error && <Loading what={known[1].toLowerCase()} />}
      {objects && objects.length === 0 && (
        <p class="muted">There are no {known[1].toLowerCase()} you can read in this project.</p>
      )}
      {objects && objects.length > 0 && (
        <div class="scroll">
          <table class="model-list" aria-label={known[1]}>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Identifier</th>
                <th scope="col">Description</th>
                <th scope="col">Changed</th>
              </tr>
            </thead>
            <tbody>
              {objects.map((o) => (
                <tr key={o.ident}>
                  <td>
                    <Link href={objectHref(p.id, o.ident)}>{o.name}</Link>
                  </td>
                  <td>
                    <code>{o.ident}</code>
                  </td>
                  <td class="desc">{o.description}</td>
                  <td>
                    <When iso={o.updated} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        paging={r.value?.paging}
        label={`${known[1]} pages`}
        href={(o) => withQuery(base, { type, offset: o })}
      />
    </>
  );
}

function SearchResults({ q }: { q: string }) {
  const p = useProject();
  const r = useResource<{ hits: Hit[]; total: number }>(
    `${projectApi(p.id)}/app/obj/search?query=${encodeURIComponent(q)}&limit=100`,
  );
  const hits = r.value?.hits;
  return (
    <>
      <h2>Search results</h2>
      <Problem error={r.error} />
      {!hits && !r.error && <Loading what="the results" />}
      {hits && (
        <p class="muted" role="status">
          {r.value!.total === 0
            ? `Nothing in the model matches “${q}”.`
            : `${r.value!.total} object${r.value!.total === 1 ? '' : 's'} match “${q}”${r.value!.total > hits.length ? `; the first ${hits.length} are shown` : ''}.`}
        </p>
      )}
      {hits && hits.length > 0 && (
        <div class="scroll">
          <table class="model-list" aria-label="Search results">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Identifier</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {hits.map((h) => (
                <tr key={h.ident}>
                  <td>
                    <Link href={objectHref(p.id, h.ident)}>{h.name}</Link>
                  </td>
                  <td>{typeName(h.type)}</td>
                  <td>
                    <code>{h.ident}</code>
                  </td>
                  <td class="desc">{h.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

interface Revisions {
  history: RevisionInfo[];
}

/** One object: what it is, its definition, who may read it, what it uses and what uses it. */
function ObjectPage({ ident }: { ident: string }) {
  const p = useProject();
  const path = `${projectApi(p.id)}/pmd/obj/${encodeURIComponent(ident)}`;
  const r = useResource<{
    object: ModelObject;
    predecessors: ObjectRef[];
    successors: ObjectRef[];
  }>(`${path}?predecessors=1&successors=1`);
  const h = useResource<Revisions>(`${path}/history`);
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  const o = r.value?.object?.ident === ident ? r.value.object : undefined;
  // MD Admins and Admins hold every position on every object: they may write any of them.
  const mayEdit = (p.access.mdadmin || p.access.admin) && o !== undefined && EDITABLE.has(o.type);
  if (!o)
    return (
      <section class="model">
        <Crumbs />
        {r.error ? (
          <>
            <Title text="Model" />
            <NotReadable ident={ident} error={r.error} />
          </>
        ) : (
          <Loading what={ident} />
        )}
      </section>
    );
  const names = new Map(
    [...(r.value!.predecessors ?? []), ...(r.value!.successors ?? [])].map((x) => [
      x.ident,
      x.name,
    ]),
  );
  return (
    <article class="model">
      <Crumbs type={o.type} />
      <Title text={o.name} />
      <Facts o={o} />
      {o.description && <p class="model-desc">{o.description}</p>}
      {o.type === 'metric' && (
        <p class="model-edit-open">
          <AlertMeButton watched={{ metric: o.ident, title: o.name }} />
        </p>
      )}
      {mayEdit && !editing && (
        <p class="model-edit-open">
          <button
            type="button"
            onClick={() => {
              setEditing(true);
              setSaved(false);
            }}
          >
            Edit
          </button>
          {saved && (
            <span class="muted" role="status">
              {' '}
              Saved as revision {o.revision}.
            </span>
          )}
        </p>
      )}
      {mayEdit && editing && (
        <EditObject
          key={o.revision}
          project={p.id}
          o={o}
          onCancel={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            setSaved(true);
            r.reload();
            h.reload();
          }}
        />
      )}
      {mayEdit && hasRole(o) && <ColumnRole key={o.ident} project={p.id} o={o} />}
      <h2>Definition</h2>
      <Definition o={o} names={names} />
      <h2>Access</h2>
      <Access o={o} />
      <h2>Dependencies</h2>
      <div class="model-deps">
        <section aria-labelledby="uses">
          <h3 id="uses">Uses</h3>
          <RefList refs={r.value!.predecessors} none="Nothing: it depends on no other object." />
        </section>
        <section aria-labelledby="used-by">
          <h3 id="used-by">Used by</h3>
          <RefList refs={r.value!.successors} none="Nothing you can read uses it." />
        </section>
      </div>
      <h2>History</h2>
      <History ident={ident} h={h.value} error={h.error} current={o.revision} />
    </article>
  );
}

function NotReadable({ ident, error }: { ident: string; error: ApiError }) {
  if (error.status === 404)
    return (
      <p role="alert">
        There is no object <code>{ident}</code> in this project, or you may not read it.
      </p>
    );
  return <Problem error={error} />;
}

function Crumbs({ type }: { type?: string }) {
  const p = useProject();
  const base = appPath('p', p.id, 'model');
  const t = TYPES.find((x) => x[0] === type);
  return (
    <nav class="crumbs" aria-label="Breadcrumb">
      <Link href={base}>Model</Link>
      {t && (
        <>
          {' › '}
          <Link href={withQuery(base, { type: t[0] })}>{t[1]}</Link>
        </>
      )}
    </nav>
  );
}

/** The object's type, identifier, tags and last change. */
function Facts({ o }: { o: ModelObject }) {
  return (
    <dl class="model-facts">
      <div>
        <dt>Type</dt>
        <dd>{typeName(o.type)}</dd>
      </div>
      <div>
        <dt>Identifier</dt>
        <dd>
          <code>{o.ident}</code>
        </dd>
      </div>
      <div>
        <dt>Revision</dt>
        <dd>{o.revision}</dd>
      </div>
      <div>
        <dt>Changed</dt>
        <dd>
          <When iso={o.updated} /> {o.updatedBy && <>by {o.updatedBy}</>}
        </dd>
      </div>
      {o.tag && o.tag.length > 0 && (
        <div>
          <dt>Tags</dt>
          <dd>
            {o.tag.map((t) => (
              <span key={t} class="tag">
                {t}
              </span>
            ))}
          </dd>
        </div>
      )}
    </dl>
  );
}

const POSITIONS = ['read', 'write', 'delete', 'share', 'administer the access'];

function Access({ o }: { o: ModelObject }) {
  const acl = o.acl ?? [];
  if (!acl.length) return <p>Every member of the project may read it.</p>;
  return (
    <ul class="model-acl">
      {acl.map((e) => (
        <li key={e.userrole}>
          <code>{e.userrole}</code> may{' '}
          {[...e.acl]
            .map((c, i) => (c !== '-' ? POSITIONS[i] : null))
            .filter(Boolean)
            .join(', ') || 'nothing'}{' '}
          <span class="muted">({e.acl})</span>
        </li>
      ))}
    </ul>
  );
}

function RefList({ refs, none }: { refs: ObjectRef[] | undefined; none: string }) {
  if (!refs?.length) return <p class="muted">{none}</p>;
  return (
    <ul class="model-refs">
      {refs.map((x) => (
        <li key={x.ident}>
          <ObjLink ident={x.ident} name={x.name} /> <span class="muted">{typeName(x.type)}</span>
        </li>
      ))}
    </ul>
  );
}

function History(props: {
  ident: string;
  h: Revisions | undefined;
  error: ApiError | undefined;
  current?: number;
}) {
  const p = useProject();
  if (props.error) return <Problem error={props.error} />;
  if (!props.h) return <Loading what="the history" />;
  return (
    <div class="scroll">
      <table aria-label="History">
        <thead>
          <tr>
            <th scope="col">Revision</th>
            <th scope="col">When</th>
            <th scope="col">By</th>
          </tr>
        </thead>
        <tbody>
          {props.h.history.map((v) => (
            <tr key={v.revision}>
              <td>
                <Link
                  href={appPath('p', p.id, 'model', props.ident, 'history', String(v.revision))}
                >
                  Revision {v.revision}
                </Link>
                {v.revision === props.current && <span class="muted"> (current)</span>}
              </td>
              <td>
                <When iso={v.time} />
              </td>
              <td>{v.user}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The object as it was at one revision. */
function Revision({ ident, revision }: { ident: string; revision: string }) {
  const p = useProject();
  const r = useResource<{ object: ModelObject }>(
    `${projectApi(p.id)}/pmd/obj/${encodeURIComponent(ident)}/history/${encodeURIComponent(revision)}`,
  );
  const o = r.value?.object;
  return (
    <article class="model">
      <Crumbs type={o?.type} />
      {!o ? (
        r.error ? (
          <>
            <Title text="Model" />
            <NotReadable ident={`${ident} (revision ${revision})`} error={r.error} />
          </>
        ) : (
          <Loading what={`revision ${revision}`} />
        )
      ) : (
        <>
          <Title text={`${o.name} · revision ${o.revision}`}>
            {o.name} <span class="muted">· revision {o.revision}</span>
          </Title>
          <p class="announcement" role="note">
            This is the object as it was at revision {o.revision}.{' '}
            <Link href={objectHref(p.id, ident)}>See it as it is now</Link>.
          </p>
          <Facts o={o} />
          {o.description && <p class="model-desc">{o.description}</p>}
          <h2>Definition</h2>
          <Definition o={o} names={new Map()} />
          <h2>Access</h2>
          <Access o={o} />
        </>
      )}
    </article>
  );
}
