// Sharing, changing or stopping a dashboard's share, by the rules of docs/sharing.md:
// private names members by e-mail (non-members are invited, by Admins and User Admins);
// public is offered to Admins without a row filter only and needs the project's
// dashboardEmbedding (which an Admin turns on here, with the embed origins); a public share
// is changed or stopped by an Admin only. The API's 400/403/409 messages are shown.
import { useRef, useState } from 'preact/hooks';
import { ApiError, api, projectApi } from '../../api';
import { useProject } from '../../project';
import { EmbeddingSwitch, type Embedding } from './share-embedding';
import type { Share, ShareChange, ShareType } from '../../../contract/dashboards';

interface Props {
  id: string;
  share: Share | null;
  onChange: (share: Share | null) => void;
  /** Someone else shared it meanwhile (409): read it again. */
  onConflict: () => void;
  /** Embedding was turned on here: the project's new settings. */
  onEmbedding: (e: Embedding) => void;
}

const emails = (text: string) =>
  text
    .split(/[\s,;]+/)
    .map((s) => s.trim())
    .filter(Boolean);

export function ShareForm({ id, share, onChange, onConflict, onEmbedding }: Props) {
  const project = useProject();
  const admin = project.access.admin;
  // A public share computes without row filter: only an unfiltered Admin makes one.
  const publisher = admin && !project.access.filter;
  const [type, setType] = useState<ShareType>(share?.type ?? 'private');
  const [users, setUsers] = useState((share?.users ?? []).join('\n'));
  const [emailNotif, setEmailNotif] = useState(share?.emailNotif ?? false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const [note, setNote] = useState('');
  const [confirmStop, setConfirmStop] = useState(false);
  // The project's setting as read with the project, until it is turned on here.
  const [embedding, setEmbedding] = useState(project.dashboardEmbedding !== false);
  const usersRef = useRef<HTMLTextAreaElement>(null);
  const path = `${projectApi(project.id)}/pmd/share`;
  const one = `${path}/${encodeURIComponent(id)}`;
  // A public share is changed or stopped by an Admin only.
  const locked = share?.type === 'public' && !admin;

  const call = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    setNote('');
    try {
      await work();
    } catch (e) {
      const err = e instanceof ApiError ? e : new ApiError(0, String(e));
      setError(err);
      if (err.status === 409) onConflict();
      if (err.status === 400 && String(issuePath(err)).startsWith('users'))
        usersRef.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  const save = (e: Event) => {
    e.preventDefault();
    const list = emails(users);
    if (type === 'private' && !list.length) {
      setError(
        new ApiError(400, 'A private share names at least one member: add an e-mail address.'),
      );
      usersRef.current?.focus();
      return;
    }
    void call(async () => {
      const body = { type, users: list, emailNotif };
      const r = share
        ? await api<ShareChange>('PUT', one, body)
        : await api<ShareChange>('POST', path, { ...body, object: id });
      onChange(r.share);
      setNote(summary(r, Boolean(share)));
    });
  };

  const stop = () =>
    call(async () => {
      await api('DELETE', one);
      setConfirmStop(false);
      onChange(null);
      setNote('Sharing stopped.');
    });

  if (locked)
    return <p class="muted">Only an Admin of the project changes or stops a public share.</p>;

  const turning =
    share && share.type !== type
      ? type === 'private'
        ? 'Making it private ends its public address: the address stops working.'
        : 'Making it public gives it a new address.'
      : '';

  return (
    <form class="dash-share-form" onSubmit={save} aria-describedby="dash-share-result">
      <fieldset>
        <legend>Who may open it</legend>
        <label class="dash-choice">
          <input
            type="radio"
            name="type"
            value="private"
            checked={type === 'private'}
            onChange={() => setType('private')}
          />
          <span>
            <strong>Private</strong>: the members named below (each still sees only the rows their
            own filter allows)
          </span>
        </label>
        {(publisher || type === 'public') && (
          <label class="dash-choice">
            <input
              type="radio"
              name="type"
              value="public"
              checked={type === 'public'}
              onChange={() => setType('public')}
            />
            <span>
              <strong>Public</strong>: anyone with its address, without signing in, and web pages
              that frame it; computed with your rights (every item, no row filter)
            </span>
          </label>
        )}
        {publisher && type === 'public' && !embedding && (
          <EmbeddingSwitch
            project={project.id}
            onOn={(e) => {
              setEmbedding(true);
              setError(undefined);
              setNote('Dashboard embedding is on: share it publicly now.');
              onEmbedding(e);
            }}
          />
        )}
        {turning && <p class="dash-hint">{turning}</p>}
      </fieldset>
      <label for="dash-share-users">
        {type === 'private' ? 'Members’ e-mail addresses' : 'Also name members (optional)'}
        <textarea
          id="dash-share-users"
          ref={usersRef}
          rows={3}
          value={users}
          aria-describedby="dash-share-users-hint"
          aria-invalid={String(issuePath(error)).startsWith('users') || undefined}
          onInput={(e) => setUsers(e.currentTarget.value)}
        />
      </label>
      <p id="dash-share-users-hint" class="muted dash-hint">
        One per line or separated by commas. Someone who is not a member of the project is invited
        as a plain member{project.access.useradmin ? '' : ' (only Admins and User Admins may)'}.
      </p>
      <label class="dash-choice">
        <input
          type="checkbox"
          checked={emailNotif}
          onChange={(e) => setEmailNotif(e.currentTarget.checked)}
        />
        <span>
          E-mail them a link to the dashboard{share ? ' (only those this change adds)' : ''}
        </span>
      </label>
      <div class="dash-share-buttons">
        <button type="submit" disabled={busy}>
          {share ? 'Save changes' : 'Share'}
        </button>
        {share && !confirmStop && (
          <button type="button" class="quiet" disabled={busy} onClick={() => setConfirmStop(true)}>
            Stop sharing
          </button>
        )}
      </div>
      {share && confirmStop && (
        <div class="dash-confirm" role="group" aria-label="Stop sharing">
          <p>
            {share.type === 'public'
              ? 'Stop sharing? The public address stops working at once.'
              : 'Stop sharing? The named members lose access unless their roles open it.'}
          </p>
          <button type="button" disabled={busy} onClick={() => void stop()}>
            Yes, stop sharing
          </button>{' '}
          <button type="button" class="quiet" onClick={() => setConfirmStop(false)}>
            Keep it
          </button>
        </div>
      )}
      <div id="dash-share-result">
        {busy && (
          <p class="muted" role="status">
            Saving…
          </p>
        )}
        {note && (
          <p role="status" class="dash-share-note">
            {note}
          </p>
        )}
        {error && <ShareError error={error} />}
      </div>
    </form>
  );
}

/** The field a 400 names (`context.issues[0].path`), if any. */
function issuePath(e: ApiError | undefined): string {
  const issues = e?.context.issues;
  if (!Array.isArray(issues)) return '';
  const first = issues[0] as { path?: unknown } | undefined;
  return typeof first?.path === 'string' ? first.path : '';
}

function ShareError({ error }: { error: ApiError }) {
  let more = '';
  if (error.status === 403 && error.context.setting === 'dashboardEmbedding')
    more = 'Public shares need dashboard embedding turned on for the project by an Admin.';
  else if (error.status === 409)
    more = 'Someone shared it meanwhile: the dialog now shows their share; change that one.';
  else if (error.status === 402)
    more = 'The plan’s limit on members was reached: nobody was invited.';
  return (
    <div class="error" role="alert">
      <p>{error.message}</p>
      {more && <p>{more}</p>}
    </div>
  );
}

/** What a share or change did: who was invited and e-mailed. */
function summary(r: ShareChange, changed: boolean): string {
  const parts = [changed ? 'Saved.' : r.share.type === 'public' ? 'Shared publicly.' : 'Shared.'];
  if (r.invited?.length)
    parts.push(`Invited to the project: ${r.invited.map((u) => u.id).join(', ')}.`);
  const sent = r.notified?.filter((n) => n.emailSent) ?? [];
  const failed = r.notified?.filter((n) => !n.emailSent) ?? [];
  if (sent.length) parts.push(`E-mailed: ${sent.map((n) => n.id).join(', ')}.`);
  if (failed.length)
    parts.push(
      `Not e-mailed: ${failed.map((n) => `${n.id}${n.emailError ? ` (${n.emailError})` : ''}`).join(', ')}.`,
    );
  return parts.join(' ');
}
