// Settings, for Admins: the project's WebDAV token (set, replace, clear; never shown again
// once stored) and dashboard embedding (public shares allowed, and which sites may frame them).
import { useEffect, useState } from 'preact/hooks';
import { apiHref, webdavPath } from '../../../contract/urls';
import { api, projectApi, type ApiError } from '../../api';
import { useResource } from '../../data';
import { useProject, type ProjectDetails } from '../../project';
import { Loading } from '../../ui';
import { asApiError, FieldError, fieldOf, Problem } from '../model/parts';

type ProjectSettings = Pick<
  ProjectDetails,
  'webdavTokenSet' | 'dashboardEmbedding' | 'embedOrigins' | 'sqlPasswords'
>;

export function Settings() {
  const p = useProject();
  const r = useResource<{ project: ProjectSettings }>(projectApi(p.id));
  if (!r.value) return r.error ? <Problem error={r.error} /> : <Loading what="the settings" />;
  return (
    <>
      <WebdavToken set={r.value.project.webdavTokenSet} onSaved={r.reload} />
      <Embedding project={r.value.project} onSaved={r.reload} />
      <SqlPasswords allowed={r.value.project.sqlPasswords} onSaved={r.reload} />
    </>
  );
}

/** Whether members may create SQL API passwords (turning it off deletes theirs). */
function SqlPasswords({ allowed, onSaved }: { allowed: boolean; onSaved: () => void }) {
  const [on, setOn] = useState(allowed);
  useEffect(() => setOn(allowed), [allowed]);
  const s = useSave(onSaved);
  return (
    <section class="card admin-form" aria-labelledby="sqlpw-h">
      <h2 id="sqlpw-h">SQL passwords</h2>
      <p class="muted">
        Members connect SQL clients (BI tools, notebooks) with an API token as the password. Allow
        them to create a password of their own for this project, which a BI tool can keep. Turning
        this off deletes every member’s SQL password.
      </p>
      <label class="check">
        <input
          type="checkbox"
          checked={on}
          disabled={s.busy}
          onChange={(e) => {
            const next = e.currentTarget.checked;
            setOn(next);
            void s.save(
              { sqlPasswords: next },
              next
                ? 'Members may create SQL passwords.'
                : 'SQL passwords are off; members’ passwords were deleted.',
            );
          }}
        />
        Members may create SQL passwords
      </label>
      <Problem error={s.error} />
      {s.done && (
        <p class="ok" role="status">
          {s.done}
        </p>
      )}
    </section>
  );
}

/** PUTs `body` to the project; the error, or undefined when it was saved. */
function useSave(onSaved: () => void) {
  const p = useProject();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const [done, setDone] = useState<string>();
  const save = async (body: Record<string, unknown>, message: string): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      await api('PUT', projectApi(p.id), body);
      setDone(message);
      onSaved();
      return true;
    } catch (err) {
      setError(asApiError(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, done, save };
}

/** 24 random bytes, base64url: a token nobody has to invent. */
function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

function WebdavToken({ set, onSaved }: { set: boolean; onSaved: () => void }) {
  const p = useProject();
  const me = useResource<{ id: string }>('/user');
  const [token, setToken] = useState('');
  const [shown, setShown] = useState(false);
  const s = useSave(onSaved);
  const field = fieldOf(s.error) === 'webdavToken';
  const dav = `${location.origin}${apiHref(webdavPath(p.id))}/`;
  return (
    <form
      class="card admin-form"
      aria-labelledby="webdav-h"
      noValidate
      onSubmit={async (e) => {
        e.preventDefault();
        if (await s.save({ webdavToken: token }, 'The WebDAV token was set.')) {
          setToken('');
          setShown(false);
        }
      }}
    >
      <h2 id="webdav-h">WebDAV token</h2>
      <p>
        MD Admins and Admins reach the project’s files with a WebDAV client at <code>{dav}</code>,
        signing in with their e-mail{me.value && <> (yours: {me.value.id})</>} and this token.
      </p>
      <p role="status">
        <strong>{set ? 'A token is set.' : 'No token is set: WebDAV is off.'}</strong>{' '}
        {set && <span class="muted">It is stored hashed and cannot be shown again.</span>}
      </p>
      <div class="fields">
        <div class="field wide">
          <label>
            {set ? 'New token' : 'Token'} (at least 12 characters)
            <input
              type={shown ? 'text' : 'password'}
              autocomplete="new-password"
              spellcheck={false}
              minLength={12}
              required
              value={token}
              onInput={(e) => setToken(e.currentTarget.value)}
              aria-invalid={field || undefined}
              aria-describedby={field ? 'webdav-error' : undefined}
            />
          </label>
          <FieldError id="webdav-error" message={field ? s.error?.message : undefined} />
        </div>
      </div>
      <div class="actions">
        <button
          type="button"
          class="quiet"
          onClick={() => {
            setToken(randomToken());
            setShown(true);
          }}
        >
          Generate one
        </button>
        <button type="submit" disabled={s.busy || token.length === 0}>
          {set ? 'Replace the token' : 'Set the token'}
        </button>
        {set && (
          <button
            type="button"
            class="quiet"
            disabled={s.busy}
            onClick={() => s.save({ webdavToken: null }, 'The WebDAV token was cleared.')}
          >
            Clear the token
          </button>
        )}
      </div>
      {shown && token && <p class="hint">Copy the token now: once set it is never shown again.</p>}
      {!field && <Problem error={s.error} />}
      {s.done && (
        <p class="ok" role="status">
          {s.done}
        </p>
      )}
    </form>
  );
}

function Embedding({ project, onSaved }: { project: ProjectSettings; onSaved: () => void }) {
  const [enabled, setEnabled] = useState(project.dashboardEmbedding);
  const [origins, setOrigins] = useState(project.embedOrigins.join('\n'));
  useEffect(() => {
    setEnabled(project.dashboardEmbedding);
    setOrigins(project.embedOrigins.join('\n'));
  }, [project]);
  const s = useSave(onSaved);
  const field = fieldOf(s.error) === 'embedOrigins';
  return (
    <form
      class="card admin-form"
      aria-labelledby="embedding-h"
      onSubmit={(e) => {
        e.preventDefault();
        const list = origins
          .split(/[\s,]+/)
          .map((o) => o.trim())
          .filter(Boolean);
        void s.save(
          { dashboardEmbedding: enabled, embedOrigins: list.length ? list : null },
          'Embedding settings saved.',
        );
      }}
    >
      <h2 id="embedding-h">Dashboard embedding</h2>
      <label class="check">
        <input
          type="checkbox"
          checked={enabled}
          onChange={(e) => setEnabled(e.currentTarget.checked)}
        />
        Allow public dashboard shares (anyone with the link sees the dashboard)
      </label>
      <div class="fields">
        <div class="field wide">
          <label>
            Sites that may embed public shares
            <textarea
              rows={3}
              spellcheck={false}
              value={origins}
              placeholder="https://intranet.example.com"
              onInput={(e) => setOrigins(e.currentTarget.value)}
              aria-invalid={field || undefined}
              aria-describedby={field ? 'origins-error' : 'origins-hint'}
            />
          </label>
          <span class="hint" id="origins-hint">
            One origin a line, <code>https://host</code> or <code>http://host:port</code>, no path;
            at most 50. Empty: any site may.
          </span>
          <FieldError
            id="origins-error"
            message={
              field
                ? `${s.error?.message} (each line: http or https, a host and perhaps a port, no path)`
                : undefined
            }
          />
        </div>
      </div>
      <div class="actions">
        <button type="submit" disabled={s.busy}>
          Save
        </button>
      </div>
      {!field && <Problem error={s.error} />}
      {s.done && (
        <p class="ok" role="status">
          {s.done}
        </p>
      )}
    </form>
  );
}
