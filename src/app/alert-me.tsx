// "Alert me…" (docs/delivery.md): a dialog that makes a data alert for the member through the
// public API (POST app/delivery) on a metric (its page in Model) or on a one-number question
// (Explore's result): a condition, when it is checked (daily at a time, after each load, or
// both), shown first as the API's own preview of whom it tells of what. Below, the member's
// alerts (every one for an MD Admin), to check now, pause, resume or delete.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, get, projectApi } from './api';
import { asApiError, DeliveryList, useActions, type Delivery } from './delivery-list';
import { useProject } from './project';
import { DialogButton, ErrorNote } from './ui';

const OPS = [
  ['>', 'is above'],
  ['>=', 'is at least'],
  ['<', 'is below'],
  ['<=', 'is at most'],
  ['change%', 'changes by more than (%)'],
  ['nodata', 'has no data'],
] as const;

/** What the alert watches: a metric by ident, or one measure as AQL. */
export type Watched = { metric: string; title: string } | { aql: string; title: string };

export function AlertMeButton({ watched }: { watched: Watched }) {
  return (
    <DialogButton
      label="Alert me…"
      dialog={(close) => <AlertDialog watched={watched} onClose={close} />}
    />
  );
}

function AlertDialog({ watched, onClose }: { watched: Watched; onClose: () => void }) {
  const project = useProject();
  const base = `${projectApi(project.id)}/app/delivery`;
  const ref = useRef<HTMLDialogElement>(null);
  const [me, setMe] = useState('');
  const [op, setOp] = useState<string>('>');
  const [value, setValue] = useState('');
  const [daily, setDaily] = useState(true);
  const [time, setTime] = useState('08:00');
  const [afterLoads, setAfterLoads] = useState(true);
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const [summary, setSummary] = useState('');
  const [done, setDone] = useState('');
  const strong = project.access.admin || project.access.mdadmin;
  const [alerts, setAlerts] = useState<Delivery[] | undefined>();
  const { busy, error, setError, note, act } = useActions(() => reload());
  const reload = () =>
    get<{ deliveries: Delivery[] }>(base).then(
      (r) =>
        setAlerts(r.deliveries.filter((d) => d.type === 'alert' && (strong || d.createdBy === me))),
      (e: unknown) => setError(asApiError(e)),
    );
  useEffect(() => {
    if (me) void reload();
  }, [base, me]);

  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    void get<{ id: string }>('/user').then((u) => setMe(u.id));
  }, []);

  const [h, m] = time.split(':').map(Number);
  const number = value.trim() === '' ? NaN : Number(value);
  // "has no data" compares with nothing.
  const valued = op !== 'nodata';
  const words = OPS.find(([o]) => o === op)?.[1] ?? op;
  const body = {
    type: 'alert',
    name: `${watched.title} ${words}${valued ? ` ${value}` : ''}`.slice(0, 255),
    def: {
      ...('metric' in watched ? { metric: watched.metric } : { aql: watched.aql }),
      condition: valued ? { op, value: number } : { op },
      ...(daily ? { schedule: { cron: `${m ?? 0} ${h ?? 8} * * *`, timezone: zone } } : {}),
      ...(afterLoads ? { afterLoads: true } : {}),
      email: [me],
    },
  };
  const key = JSON.stringify(body);
  // The server's own words for whom it would tell of what, whenever the choices change.
  useEffect(() => {
    if (!me || (valued && !Number.isFinite(number))) {
      setSummary('');
      return;
    }
    let live = true;
    api<{ summary: string }>('POST', base, body).then(
      (r) => live && (setSummary(r.summary), setError(undefined)),
      (e: unknown) => live && setError(asApiError(e)),
    );
    return () => {
      live = false;
    };
  }, [key]);

  const create = () =>
    act(async () => {
      await api('POST', base, { ...body, confirm: true });
      setDone('Alert created: you will get an e-mail when it fires.');
    });

  return (
    <dialog
      ref={ref}
      class="dash-dialog"
      aria-labelledby="alert-me-title"
      onClose={onClose}
      onCancel={(e) => {
        e.preventDefault();
        ref.current?.close();
      }}
    >
      <header class="dash-dialog-head">
        <h2 id="alert-me-title">Alert me: {watched.title}</h2>
        <button type="button" class="quiet" onClick={() => ref.current?.close()}>
          Close
        </button>
      </header>
      <form
        class="dash-subscribe"
        onSubmit={(e) => {
          e.preventDefault();
          void create();
        }}
      >
        <label>
          When it
          <select aria-label="Condition" value={op} onChange={(e) => setOp(e.currentTarget.value)}>
            {OPS.map(([o, t]) => (
              <option key={o} value={o}>
                {t}
              </option>
            ))}
          </select>
        </label>
        {valued && (
          <label>
            Value
            <input
              aria-label="Value"
              type="number"
              step="any"
              required
              value={value}
              onInput={(e) => setValue(e.currentTarget.value)}
            />
          </label>
        )}
        <label class="dash-subscribe-check">
          <input
            type="checkbox"
            checked={daily}
            onChange={(e) => setDaily(e.currentTarget.checked)}
          />
          Check every day at
          <input
            aria-label="Time"
            type="time"
            value={time}
            disabled={!daily}
            onInput={(e) => setTime(e.currentTarget.value)}
          />
          <span class="muted">{zone}</span>
        </label>
        <label class="dash-subscribe-check">
          <input
            type="checkbox"
            checked={afterLoads}
            onChange={(e) => setAfterLoads(e.currentTarget.checked)}
          />
          Check after each data load
        </label>
        <p class="dash-subscribe-summary" role="status">
          {summary || 'Enter a value to see what it would tell you.'}
        </p>
        <button type="submit" disabled={busy || !summary || done !== ''}>
          Create alert
        </button>
        <span role="status" class="muted">
          {done}
        </span>
      </form>
      <ErrorNote error={error} />
      {alerts && alerts.length > 0 && (
        <DeliveryList
          title={strong ? 'Alerts in this project' : 'Your alerts'}
          items={alerts}
          base={base}
          me={me}
          strong={strong}
          busy={busy}
          act={(f, said) => void act(f, said)}
        />
      )}
      <p role="status" class="muted">
        {note}
      </p>
    </dialog>
  );
}
