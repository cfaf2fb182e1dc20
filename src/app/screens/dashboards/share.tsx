// Sharing a dashboard (docs/sharing.md): a button opening a modal dialog with the current
// share, and, for members who may share it, the form to share, change or stop. Focus goes
// into the dialog when it opens (Escape closes it) and back to the button when it closes.
import { formatDateTime } from '../../format';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, get, projectApi } from '../../api';
import { useProject } from '../../project';
import { DialogButton, ErrorNote, Loading } from '../../ui';
import { ShareForm } from './share-form';
import { PublicAddress } from './share-public';
import type { Share } from '../../../contract/dashboards';

/** The dashboard's share: null when it is not shared, undefined while it loads. */
function useShare(id: string, open: boolean) {
  const project = useProject();
  const [share, setShare] = useState<Share | null | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>();
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!open) return;
    let live = true;
    // Read again (after a 409): the dialog keeps showing the old share until the new one comes.
    setError(undefined);
    get<{ share: Share }>(`${projectApi(project.id)}/pmd/share/${encodeURIComponent(id)}`).then(
      (r) => live && setShare(r.share),
      (e: unknown) => {
        if (!live) return;
        if (e instanceof ApiError && e.status === 404) setShare(null);
        else setError(e instanceof ApiError ? e : new ApiError(0, String(e)));
      },
    );
    return () => {
      live = false;
    };
  }, [project.id, id, open, tick]);
  return { share, setShare, error, reload: () => setTick((t) => t + 1) };
}

/** What the member may do with the dashboard's share. */
interface Rights {
  /** Reads the dashboard by their roles (not only through a share): sees its share. */
  reads: boolean;
  /** Holds `s` on it: shares, changes and stops. */
  shares: boolean;
}

/**
 * Admins and MD Admins read and share every dashboard; others read it when their roles do,
 * and share it when an entry of one of their roles holds `s` in its ACL. undefined while
 * that is being read.
 */
function useRights(id: string): Rights | undefined {
  const p = useProject();
  const strong = p.access.admin || p.access.mdadmin;
  const [rights, setRights] = useState<Rights | undefined>();
  useEffect(() => {
    if (strong) return;
    let live = true;
    // bulkobj lists an object the member cannot read by their roles as missing (no 404).
    get<{ objects: { ident: string; acl?: { userrole: string; acl: string }[] }[] }>(
      `${projectApi(p.id)}/pmd/bulkobj?idents=${encodeURIComponent(id)}&keys=acl`,
    ).then(
      (r) => {
        const o = r.objects.find((x) => x.ident === id);
        const shares = (o?.acl ?? []).some(
          (e) => p.access.roles.includes(e.userrole) && e.acl[3] === 's',
        );
        if (live) setRights({ reads: Boolean(o), shares });
      },
      () => live && setRights({ reads: false, shares: false }),
    );
    return () => {
      live = false;
    };
  }, [p.id, p.access.roles, id, strong]);
  return strong ? { reads: true, shares: true } : rights;
}

export function ShareButton({ id, name }: { id: string; name: string }) {
  return (
    <DialogButton
      label="Share…"
      dialog={(close) => <ShareDialog id={id} name={name} onClose={close} />}
    />
  );
}

function ShareDialog({ id, name, onClose }: { id: string; name: string; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const s = useShare(id, true);
  const rights = useRights(id);
  // Embed origins set in this dialog (the project's details were read before).
  const [origins, setOrigins] = useState<string[] | undefined>();
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      class="dash-dialog"
      aria-labelledby="dash-share-title"
      onClose={onClose}
      onCancel={(e) => {
        e.preventDefault();
        ref.current?.close();
      }}
    >
      <header class="dash-dialog-head">
        <h2 id="dash-share-title">Share “{name}”</h2>
        <button type="button" class="quiet" onClick={() => ref.current?.close()}>
          Close
        </button>
      </header>
      {s.error ? (
        <ErrorNote error={s.error} />
      ) : s.share === undefined || rights === undefined ? (
        <Loading what="how it is shared" />
      ) : (
        <>
          <ShareStatus share={s.share} reads={rights.reads} />
          {s.share?.url && <PublicAddress url={s.share.url} name={name} origins={origins} />}
          {rights.shares ? (
            <ShareForm
              id={id}
              share={s.share}
              onChange={s.setShare}
              onConflict={s.reload}
              onEmbedding={(e) => setOrigins(e.embedOrigins)}
            />
          ) : (
            <p class="muted">
              Sharing this dashboard needs the share (s) right on it; ask an Admin of the project.
            </p>
          )}
        </>
      )}
    </dialog>
  );
}

function ShareStatus({ share, reads }: { share: Share | null; reads: boolean }) {
  // A member who reads the dashboard only through a share is not shown the share (404).
  if (!share)
    return (
      <p class="dash-share-status">
        {reads
          ? 'This dashboard is not shared: only members whose roles open it can see it.'
          : 'It was shared with you; how it is shared is shown to members whose roles open it.'}
      </p>
    );
  const who = share.users.length ? share.users.join(', ') : 'nobody by name';
  return (
    <div class="dash-share-status">
      <p>
        {share.type === 'public' ? (
          <>
            <strong>Public:</strong> anyone with its address can open it, without signing in
            {share.users.length ? `; also shared with ${who}` : ''}.
          </>
        ) : (
          <>
            <strong>Shared privately</strong> with {who}.
          </>
        )}
      </p>
      <p class="muted">
        Last changed by {share.updatedBy} on {formatDateTime(share.updated)}.
      </p>
    </div>
  );
}
