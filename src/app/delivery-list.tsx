// The subscriptions or alerts a dialog shows below its form (Subscribe…, Alert me…): what each
// sends to whom and when, and for its creator or an MD Admin the actions of the API —
// send or evaluate now, pause or resume, delete, and (where the dialog can) change.
import { useState } from 'preact/hooks';
import { ApiError, api } from './api';

/** Any failure as the ApiError an ErrorNote shows. */
export const asApiError = (e: unknown): ApiError =>
  e instanceof ApiError ? e : new ApiError(0, String(e));

/**
 * What a delivery dialog's actions share: one at a time (`busy`), the error of the last, and
 * a note saying what it did. `act` runs one, says `said` (when given), then `after` (the
 * dialog's reload of its list).
 */
export function useActions(after: () => Promise<unknown>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const [note, setNote] = useState('');
  const act = async (f: () => Promise<unknown>, said?: string) => {
    setBusy(true);
    setError(undefined);
    try {
      await f();
      if (said !== undefined) setNote(said);
      await after();
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, note, setNote, act };
}

export interface Delivery {
  ident: string;
  type: 'subscription' | 'alert';
  name: string;
  createdBy: string;
  dashboard?: string;
  paused: boolean;
  recipients: string[];
  summary: string;
}

export function DeliveryList(props: {
  title: string;
  items: Delivery[];
  /** `${projectApi}/app/delivery` */
  base: string;
  me: string;
  /** MD Admin or Admin: may act on every one. */
  strong: boolean;
  busy: boolean;
  /** Runs an action, then says `done` and reloads the list (the dialog's). */
  act: (f: () => Promise<unknown>, done: string) => void;
  onChange?: (d: Delivery) => void;
}) {
  const one = (d: Delivery) => `${props.base}/${encodeURIComponent(d.ident)}`;

  const id = `delivery-list-${props.items[0]?.type ?? 'none'}`;
  return (
    <section aria-labelledby={id}>
      <h3 id={id}>{props.title}</h3>
      <ul class="dash-subs">
        {props.items.map((d) => (
          <li key={d.ident}>
            <p>
              <strong>{d.name}</strong>
              {d.paused ? ' (paused)' : ''} — {d.summary}
            </p>
            {(props.strong || d.createdBy === props.me) && (
              <div class="dash-subs-actions">
                <Action
                  busy={props.busy}
                  label={d.type === 'alert' ? 'Check now' : 'Send now'}
                  onClick={() =>
                    props.act(
                      () => api('POST', `${one(d)}/run`),
                      d.type === 'alert' ? `Checking “${d.name}” now.` : `Sending “${d.name}” now.`,
                    )
                  }
                />
                {props.onChange && (
                  <Action busy={props.busy} label="Change…" onClick={() => props.onChange!(d)} />
                )}
                <Action
                  busy={props.busy}
                  label={d.paused ? 'Resume' : 'Pause'}
                  onClick={() =>
                    props.act(
                      () => api('POST', `${one(d)}/${d.paused ? 'resume' : 'pause'}`),
                      d.paused ? 'Resumed.' : 'Paused.',
                    )
                  }
                />
                <Action
                  busy={props.busy}
                  label="Delete"
                  onClick={() => props.act(() => api('DELETE', one(d)), 'Deleted.')}
                />
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Action(a: { label: string; busy: boolean; onClick: () => void }) {
  return (
    <button type="button" class="quiet" disabled={a.busy} onClick={a.onClick}>
      {a.label}
    </button>
  );
}
