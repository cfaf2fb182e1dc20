// Members: the list, inviting (levels, roles, a row-level filter, the invitation e-mail),
// changing a member's levels, roles, filter and access, and removing a member or leaving.
// Only what the signed-in member may grant is offered; the API has the last word (a row
// filter that does not compile, the last Admin, a level the caller lacks) and its message is
// shown where it belongs.
import { useState } from 'preact/hooks';
import { api, projectApi, type ApiError } from '../../api';
import { useResource } from '../../data';
import { useProject } from '../../project';
import { appPath, navigate, useLocation } from '../../router';
import { Loading } from '../../ui';
import {
  asApiError,
  FieldError,
  fieldOf,
  offsetOf,
  Pager,
  Problem,
  When,
  withQuery,
  type Paging,
} from '../model/parts';
import type { ProjectMember as Member } from '../../../contract/users';

type Level = 'admin' | 'mdadmin' | 'useradmin';

const LEVELS: Array<{ key: Level; title: string; hint: string }> = [
  { key: 'admin', title: 'Admin', hint: 'everything, settings included' },
  { key: 'mdadmin', title: 'MD Admin', hint: 'the model, data, files and flows' },
  { key: 'useradmin', title: 'User Admin', hint: 'members and their access' },
];
const PAGE = 100;

const parseRoles = (text: string): string[] =>
  [...new Set(text.split(',').map((r) => r.trim()))].filter(Boolean);

/** The field an error is about among `fields`, else undefined (shown for the whole form). */
function errorField(error: ApiError | undefined, fields: string[], id?: string) {
  if (!error) return undefined;
  const f = fieldOf(error);
  if (f && fields.includes(f)) return f;
  // "… is not an e-mail address" names the value only.
  if (id !== undefined && error.status === 400 && error.context.value === id) return 'id';
  return undefined;
}

export function Members() {
  const p = useProject();
  const loc = useLocation();
  const offset = offsetOf(loc.query);
  const me = useResource<{ id: string }>('/user');
  const users = useResource<{ users: Member[]; paging: Paging }>(
    `${projectApi(p.id)}/users?limit=${PAGE}&offset=${offset}`,
  );
  const roleObjects = useResource<{ objects: Array<{ ident: string }> }>(
    `${projectApi(p.id)}/pmd/obj?rel=object.userrole&limit=1000`,
  );
  const known = [
    ...new Set([
      ...(roleObjects.value?.objects ?? []).map((o) => o.ident),
      ...(users.value?.users ?? []).flatMap((u) => u.roles),
    ]),
  ].sort();
  const list = users.value?.users;
  return (
    <>
      <Invite known={known} onInvited={users.reload} />
      <h2 id="members-h">
        Members{users.value && <span class="muted"> ({users.value.paging.total})</span>}
      </h2>
      <Problem error={users.error} />
      {!list && !users.error && <Loading what="the members" />}
      {list && (
        <ul class="members" aria-labelledby="members-h">
          {list.map((u, i) => (
            <MemberCard key={u.id} n={i} u={u} me={me.value?.id} onChanged={users.reload} />
          ))}
        </ul>
      )}
      <Pager
        paging={users.value?.paging}
        label="Member pages"
        href={(o) => withQuery(appPath('p', p.id, 'admin', 'members'), { offset: o })}
      />
    </>
  );
}

function KnownRoles({ known }: { known: string[] }) {
  return (
    <span class="hint">
      Separate roles with commas.
      {known.length > 0 && <> Roles in this project: {known.join(', ')}.</>}
    </span>
  );
}

function Invite({ known, onInvited }: { known: string[]; onInvited: () => void }) {
  const p = useProject();
  const offered = LEVELS.filter((l) => p.access[l.key]);
  const [id, setId] = useState('');
  const [roles, setRoles] = useState('');
  const [filter, setFilter] = useState('');
  const [levels, setLevels] = useState<Partial<Record<Level, boolean>>>({});
  const [sendemail, setSendemail] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const [done, setDone] = useState<string>();
  const field = errorField(error, ['id', 'roles', 'filter', 'levels'], id.trim());

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      const email = id.trim();
      const r = await api<{
        users: Array<{ id: string; status: string; emailSent?: boolean; emailError?: string }>;
      }>('POST', `${projectApi(p.id)}/users`, {
        id: email,
        // Inviting a member again updates them: only what was filled in or ticked is sent,
        // so an invitation never takes roles or levels away (Change does that).
        ...(parseRoles(roles).length ? { roles: parseRoles(roles) } : {}),
        ...(filter.trim() ? { filter: filter.trim() } : {}),
        ...Object.fromEntries(offered.filter((l) => levels[l.key]).map((l) => [l.key, true])),
        sendemail,
      });
      const u = r.users[0];
      setDone(
        (u?.status === 'updated'
          ? `${email} was already a member: their access was updated.`
          : `${email} was invited.`) +
          (u?.emailSent === false
            ? ` The invitation e-mail could not be sent${u.emailError ? `: ${u.emailError}` : ''}.`
            : u?.emailSent
              ? ' An invitation e-mail is on its way.'
              : ''),
      );
      setId('');
      setRoles('');
      setFilter('');
      setLevels({});
      onInvited();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card admin-form" onSubmit={submit} aria-labelledby="invite-h" noValidate>
      <h2 id="invite-h">Invite a member</h2>
      <div class="fields">
        <div class="field">
          <label>
            E-mail
            <input
              type="email"
              name="id"
              required
              autocomplete="off"
              value={id}
              onInput={(e) => setId(e.currentTarget.value)}
              aria-invalid={field === 'id' || undefined}
              aria-describedby={field === 'id' ? 'invite-id-error' : undefined}
            />
          </label>
          <FieldError id="invite-id-error" message={field === 'id' ? error?.message : undefined} />
        </div>
        <div class="field">
          <label>
            Roles
            <input
              name="roles"
              autocomplete="off"
              value={roles}
              placeholder="sales, emea"
              onInput={(e) => setRoles(e.currentTarget.value)}
              aria-invalid={field === 'roles' || undefined}
              aria-describedby={field === 'roles' ? 'invite-roles-error' : 'invite-roles-hint'}
            />
          </label>
          <span id="invite-roles-hint">
            <KnownRoles known={known} />
          </span>
          <FieldError
            id="invite-roles-error"
            message={field === 'roles' ? error?.message : undefined}
          />
        </div>
        <div class="field wide">
          <label>
            Row filter
            <input
              name="filter"
              autocomplete="off"
              spellcheck={false}
              value={filter}
              placeholder='[Origin Region] = "West"'
              onInput={(e) => setFilter(e.currentTarget.value)}
              aria-invalid={field === 'filter' || undefined}
              aria-describedby={field === 'filter' ? 'invite-filter-error' : 'invite-filter-hint'}
            />
          </label>
          <span class="hint" id="invite-filter-hint">
            An AQL condition: the member sees only the rows it selects. Empty: every row.
          </span>
          <FieldError
            id="invite-filter-error"
            message={field === 'filter' ? error?.message : undefined}
          />
        </div>
      </div>
      <fieldset
        class="levels"
        aria-invalid={field === 'levels' || undefined}
        aria-describedby={field === 'levels' ? 'invite-levels-error' : undefined}
      >
        <legend>Levels</legend>
        {offered.map((l) => (
          <label class="check" key={l.key}>
            <input
              type="checkbox"
              name={l.key}
              checked={Boolean(levels[l.key])}
              onChange={(e) => setLevels({ ...levels, [l.key]: e.currentTarget.checked })}
            />
            <span>
              {l.title} <span class="muted">— {l.hint}</span>
            </span>
          </label>
        ))}
        {!p.access.admin && (
          <span class="hint">You can grant only the levels you hold yourself.</span>
        )}
        <FieldError
          id="invite-levels-error"
          message={field === 'levels' ? error?.message : undefined}
        />
      </fieldset>
      <label class="check">
        <input
          type="checkbox"
          name="sendemail"
          checked={sendemail}
          onChange={(e) => setSendemail(e.currentTarget.checked)}
        />
        Send an invitation e-mail
      </label>
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Inviting…' : 'Invite'}
        </button>
      </div>
      {!field && <Problem error={error} />}
      {done && (
        <p class="ok" role="status">
          {done}
        </p>
      )}
    </form>
  );
}

function MemberCard(props: {
  n: number;
  u: Member;
  me: string | undefined;
  onChanged: () => void;
}) {
  const { u, n } = props;
  const p = useProject();
  const [mode, setMode] = useState<'view' | 'edit' | 'remove'>('view');
  const [saved, setSaved] = useState(false);
  const self = u.id === props.me;
  const lacking = LEVELS.filter((l) => u[l.key] && !p.access[l.key]);
  const manageable = lacking.length === 0;
  const held = LEVELS.filter((l) => u[l.key]);
  return (
    <li class="card member" aria-labelledby={`member-${n}`}>
      <div class="member-head">
        <strong id={`member-${n}`} class="member-id">
          {u.id}
        </strong>
        {self && <span class="badge">you</span>}
        {held.map((l) => (
          <span key={l.key} class="badge level">
            {l.title}
          </span>
        ))}
        {!u.active && <span class="badge off">access revoked</span>}
      </div>
      {mode === 'edit' ? (
        <EditMember
          n={n}
          u={u}
          onCancel={() => setMode('view')}
          onSaved={() => {
            setMode('view');
            setSaved(true);
            props.onChanged();
          }}
        />
      ) : (
        <>
          <dl class="member-facts">
            <div>
              <dt>Roles</dt>
              <dd>{u.roles.length ? u.roles.join(', ') : <span class="muted">none</span>}</dd>
            </div>
            <div>
              <dt>Row filter</dt>
              <dd>
                {u.filter ? <code>{u.filter}</code> : <span class="muted">none: every row</span>}
              </dd>
            </div>
            <div>
              <dt>Invited</dt>
              <dd>
                <When iso={u.created} />
                {u.invitedBy && <> by {u.invitedBy}</>}
              </dd>
            </div>
          </dl>
          {saved && (
            <p class="ok" role="status">
              Changes saved.
            </p>
          )}
          {props.me === undefined ? null : mode === 'remove' ? (
            <Remove
              u={u}
              self={self}
              onCancel={() => setMode('view')}
              onRemoved={() => (self ? navigate(appPath()) : props.onChanged())}
            />
          ) : (
            <div class="actions">
              {manageable && !self && (
                <button
                  type="button"
                  class="quiet"
                  onClick={() => {
                    setSaved(false);
                    setMode('edit');
                  }}
                  aria-describedby={`member-${n}`}
                >
                  Change
                </button>
              )}
              {(manageable || self) && (
                <button
                  type="button"
                  class="quiet"
                  onClick={() => {
                    setSaved(false);
                    setMode('remove');
                  }}
                  aria-describedby={`member-${n}`}
                >
                  {self ? 'Leave the project' : 'Remove'}
                </button>
              )}
              {self && (
                <span class="hint">Another Admin or User Admin changes your own access.</span>
              )}
              {!manageable && !self && (
                <span class="hint">
                  Holds {lacking.map((l) => l.title).join(' and ')}, which you do not: only an Admin
                  can change them.
                </span>
              )}
            </div>
          )}
        </>
      )}
    </li>
  );
}

function EditMember(props: { n: number; u: Member; onCancel: () => void; onSaved: () => void }) {
  const { u, n } = props;
  const p = useProject();
  const [levels, setLevels] = useState<Record<Level, boolean>>({
    admin: u.admin,
    mdadmin: u.mdadmin,
    useradmin: u.useradmin,
  });
  const [active, setActive] = useState(u.active);
  const [roles, setRoles] = useState(u.roles.join(', '));
  const [filter, setFilter] = useState(u.filter ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const field = errorField(error, ['roles', 'filter', 'levels', 'active']);
  const id = (f: string) => `m${n}-${f}`;

  const save = async (e: Event) => {
    e.preventDefault();
    // Only what changed is sent: a User Admin may not even restate a level they lack.
    const body: Record<string, unknown> = {};
    for (const l of LEVELS) if (levels[l.key] !== u[l.key]) body[l.key] = levels[l.key];
    if (active !== u.active) body.active = active;
    const r = parseRoles(roles);
    if (r.join('\n') !== u.roles.join('\n')) body.roles = r;
    const f = filter.trim() || null;
    if (f !== u.filter) body.filter = f;
    if (!Object.keys(body).length) return props.onCancel();
    setBusy(true);
    setError(undefined);
    try {
      await api('PUT', `${projectApi(p.id)}/users/${encodeURIComponent(u.id)}`, body);
      props.onSaved();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="admin-form" onSubmit={save} aria-label={`Change ${u.id}`}>
      <fieldset
        class="levels"
        aria-invalid={field === 'levels' || undefined}
        aria-describedby={field === 'levels' ? id('levels-error') : undefined}
      >
        <legend>Levels</legend>
        {LEVELS.map((l) => (
          <label class="check" key={l.key}>
            <input
              type="checkbox"
              checked={levels[l.key]}
              disabled={!p.access[l.key]}
              onChange={(e) => setLevels({ ...levels, [l.key]: e.currentTarget.checked })}
            />
            {l.title}
          </label>
        ))}
        <FieldError
          id={id('levels-error')}
          message={field === 'levels' ? error?.message : undefined}
        />
      </fieldset>
      <label class="check">
        <input
          type="checkbox"
          checked={active}
          onChange={(e) => setActive(e.currentTarget.checked)}
        />
        Active: may use the project (unticked, access is revoked but the member stays listed)
      </label>
      <div class="fields">
        <div class="field">
          <label>
            Roles
            <input
              value={roles}
              autocomplete="off"
              onInput={(e) => setRoles(e.currentTarget.value)}
              aria-invalid={field === 'roles' || undefined}
              aria-describedby={field === 'roles' ? id('roles-error') : undefined}
            />
          </label>
          <FieldError
            id={id('roles-error')}
            message={field === 'roles' ? error?.message : undefined}
          />
        </div>
        <div class="field wide">
          <label>
            Row filter
            <input
              value={filter}
              autocomplete="off"
              spellcheck={false}
              placeholder="none: every row"
              onInput={(e) => setFilter(e.currentTarget.value)}
              aria-invalid={field === 'filter' || undefined}
              aria-describedby={field === 'filter' ? id('filter-error') : undefined}
            />
          </label>
          <FieldError
            id={id('filter-error')}
            message={field === 'filter' ? error?.message : undefined}
          />
        </div>
      </div>
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save changes'}
        </button>
        <button type="button" class="quiet" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
      {!field && <Problem error={error} />}
    </form>
  );
}

function Remove(props: { u: Member; self: boolean; onCancel: () => void; onRemoved: () => void }) {
  const p = useProject();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const remove = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await api('DELETE', `${projectApi(p.id)}/users/${encodeURIComponent(props.u.id)}`);
      props.onRemoved();
    } catch (err) {
      setError(asApiError(err));
      setBusy(false);
    }
  };
  return (
    <div class="confirm" role="group" aria-label="Confirm">
      <p>
        {props.self
          ? 'Leave this project? You lose access to it at once.'
          : `Remove ${props.u.id} from the project? They lose access at once; what they made stays.`}
      </p>
      <div class="actions">
        <button type="button" class="danger" disabled={busy} onClick={remove}>
          {props.self ? 'Leave' : 'Remove'}
        </button>
        <button type="button" class="quiet" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
      <Problem error={error} />
    </div>
  );
}
