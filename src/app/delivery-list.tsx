// The subscriptions or alerts a dialog shows below its form (Subscribe…, Alert me…): what each
// sends to whom and when, and for its creator or an MD Admin the actions of the API —
// send or evaluate now, pause or resume, delete, and (where the dialog can) change.
import { api } from './api';

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
                <button
                  type="button"
                  class="quiet"
                  disabled={props.busy}
                  onClick={() =>
                    props.act(
                      () => api('POST', `${one(d)}/run`),
                      d.type === 'alert' ? `Checking “${d.name}” now.` : `Sending “${d.name}” now.`,
                    )
                  }
                >
                  {d.type === 'alert' ? 'Check now' : 'Send now'}
                </button>
                {props.onChange && (
                  <button
                    type="button"
                    class="quiet"
                    disabled={props.busy}
                    onClick={() => props.onChange!(d)}
                  >
                    Change…
                  </button>
                )}
                <button
                  type="button"
                  class="quiet"
                  disabled={props.busy}
                  onClick={() =>
                    props.act(
                      () => api('POST', `${one(d)}/${d.paused ? 'resume' : 'pause'}`),
                      d.paused ? 'Resumed.' : 'Paused.',
                    )
                  }
                >
                  {d.paused ? 'Resume' : 'Pause'}
                </button>
                <button
                  type="button"
                  class="quiet"
                  disabled={props.busy}
                  onClick={() => props.act(() => api('DELETE', one(d)), 'Deleted.')}
                >
                  Delete
                </button>
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
