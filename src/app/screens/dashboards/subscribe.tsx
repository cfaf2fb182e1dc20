// "Subscribe…" on a dashboard (docs/delivery.md): a dialog that makes a subscription through
// the public API (POST app/delivery): how often and when, the attachment, the filters shown
// now or the dashboard's own, and — for an MD Admin — other members. What it will send to
// whom is the server's own preview (no confirm), shown before the member confirms. Below,
// the subscriptions to this dashboard the member sees, to send now, change (the same form,
// previewed and saved with PUT app/delivery/{id}), pause or delete.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, get, projectApi } from '../../api';
import { useProject } from '../../project';
import { asApiError, DeliveryList, useActions, type Delivery } from '../../delivery-list';
import { DialogButton, ErrorNote } from '../../ui';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** The five-field cron of the choices: daily, weekly on a day, or monthly on the 1st. */
export function cronOf(every: string, day: number, time: string): string {
  const [h, m] = time.split(':').map((x) => Number(x));
  const at = `${m ?? 0} ${h ?? 8}`;
  if (every === 'daily') return `${at} * * *`;
  if (every === 'monthly') return `${at} 1 * *`;
  return `${at} * * ${day}`;
}

/** The form's choices for a cron it makes; null for another cron (kept as it is). */
export function choicesOf(cron: string): { every: string; day: number; time: string } | null {
  const m = /^(\d{1,2}) (\d{1,2}) (\*|1) \* (\*|[0-6])$/.exec(cron.trim());
  if (!m || (m[3] === '1' && m[4] !== '*')) return null;
  const time = `${m[2]!.padStart(2, '0')}:${m[1]!.padStart(2, '0')}`;
  if (m[3] === '1') return { every: 'monthly', day: 1, time };
  if (m[4] === '*') return { every: 'daily', day: 1, time };
  return { every: 'weekly', day: Number(m[4]), time };
}

const emails = (text: string) =>
  text
    .split(/[\s,;]+/)
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);

/** A subscription being changed: its stored object, and what the form keeps of it. */
interface Editing {
  object: Record<string, unknown> & { ident: string; name: string };
  /** A cron the form's choices do not make, kept unless "Every" is changed. */
  cron: string | null;
  filters: string[];
}

/** The `filter=attribute:value` pairs of the address's query. */
const filtersOf = (query: string) => new URLSearchParams(query).getAll('filter');

export function SubscribeButton(props: { id: string; name: string; query: string }) {
  return (
    <DialogButton
      label="Subscribe…"
      dialog={(close) => <SubscribeDialog {...props} onClose={close} />}
    />
  );
}

function SubscribeDialog(props: { id: string; name: string; query: string; onClose: () => void }) {
  const project = useProject();
  const base = `${projectApi(project.id)}/app/delivery`;
  const ref = useRef<HTMLDialogElement>(null);
  const strong = project.access.admin || project.access.mdadmin;
  const [me, setMe] = useState('');
  const [every, setEvery] = useState('weekly');
  const [day, setDay] = useState(1);
  const [time, setTime] = useState('08:00');
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const [format, setFormat] = useState('pdf');
  const shown = filtersOf(props.query);
  const [withFilters, setWithFilters] = useState(shown.length > 0);
  const [others, setOthers] = useState('');
  const [summary, setSummary] = useState('');
  const [mine, setMine] = useState<Delivery[] | undefined>();
  const [editing, setEditing] = useState<Editing | null>(null);
  const [sendTo, setSendTo] = useState('');

  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    void get<{ id: string }>('/user').then((u) => setMe(u.id));
  }, []);
  // `reload` is called by each action, after it: defined below, read when an action ends.
  const { busy, error, setError, note, setNote, act } = useActions(() => reload());
  const reload = () =>
    get<{ deliveries: Delivery[] }>(base).then(
      (r) => setMine(r.deliveries.filter((d) => d.dashboard === props.id)),
      (e: unknown) => setError(asApiError(e)),
    );
  useEffect(() => void reload(), [base]);

  const editDef = (editing?.object.def ?? {}) as Record<string, unknown>;
  const recipients = editing
    ? strong
      ? emails(sendTo)
      : ((editDef.recipients as string[] | undefined) ?? [me])
    : [me, ...emails(others).filter((e) => e !== me)].filter(Boolean);
  const filters = editing ? editing.filters : shown;
  const schedule = editDef.schedule as { timezone?: string } | undefined;
  const body = {
    type: 'subscription',
    name: editing ? editing.object.name : `${props.name} (${every})`,
    def: {
      ...(editing ? editDef : {}),
      dashboard: props.id,
      recipients,
      schedule: {
        cron: editing?.cron ?? cronOf(every, day, time),
        timezone: editing && editing.cron ? (schedule?.timezone ?? zone) : zone,
      },
      format,
      filters: withFilters && filters.length ? filters : undefined,
    },
  };
  const key = JSON.stringify(body);
  // The server's own words for what this would send, whenever the choices change.
  useEffect(() => {
    if (!me) return;
    let live = true;
    setSummary('');
    const preview = editing
      ? api<{ summary: string }>('PUT', `${base}/${encodeURIComponent(editing.object.ident)}`, {
          def: body.def,
        })
      : api<{ summary: string }>('POST', base, body);
    preview.then(
      (r) => live && (setSummary(r.summary), setError(undefined)),
      (e: unknown) => live && setError(asApiError(e)),
    );
    return () => {
      live = false;
    };
  }, [key, me]);

  const objectUrl = (ident: string) =>
    `${projectApi(project.id)}/pmd/obj/${encodeURIComponent(ident)}`;

  /** The form shows a subscription of the list, to change it. */
  const change = async (d: Delivery) => {
    setError(undefined);
    setNote('');
    try {
      const { object } = await get<{ object: Editing['object'] }>(objectUrl(d.ident));
      const def = (object.def ?? {}) as Record<string, unknown>;
      const cron = String((def.schedule as { cron?: string } | undefined)?.cron ?? '');
      const choices = choicesOf(cron);
      if (choices) {
        setEvery(choices.every);
        setDay(choices.day);
        setTime(choices.time);
      }
      const kept = Array.isArray(def.filters) ? def.filters.map(String) : [];
      setFormat(typeof def.format === 'string' ? def.format : 'pdf');
      setWithFilters(kept.length > 0);
      setSendTo(Array.isArray(def.recipients) ? def.recipients.join(', ') : '');
      setEditing({ object, cron: choices ? null : cron, filters: kept });
    } catch (e) {
      setError(asApiError(e));
    }
  };
  const save = () =>
    act(async () => {
      const url = `${base}/${encodeURIComponent(editing!.object.ident)}`;
      await api('PUT', url, { def: body.def, confirm: true });
      setEditing(null);
    }, 'Changed.');
  /** A choice of the schedule made: a kept cron gives way to the choices. */
  const chose = (set: () => void) => {
    set();
    if (editing?.cron) setEditing({ ...editing, cron: null });
  };

  return (
    <dialog
      ref={ref}
      class="dash-dialog"
      aria-labelledby="dash-subscribe-title"
      onClose={props.onClose}
      onCancel={(e) => {
        e.preventDefault();
        ref.current?.close();
      }}
    >
      <header class="dash-dialog-head">
        <h2 id="dash-subscribe-title">Subscribe to “{props.name}”</h2>
        <button type="button" class="quiet" onClick={() => ref.current?.close()}>
          Close
        </button>
      </header>
      <form
        class="dash-subscribe"
        onSubmit={(e) => {
          e.preventDefault();
          if (editing) void save();
          else void act(() => api('POST', base, { ...body, confirm: true }), 'Subscribed.');
        }}
      >
        {editing && (
          <p class="dash-subscribe-editing">
            Changing “{editing.object.name}”
            {editing.cron && <span class="muted"> (its schedule: {editing.cron})</span>}
          </p>
        )}
        <label>
          Every
          <select
            aria-label="Every"
            value={every}
            onChange={(e) => {
              const v = e.currentTarget.value;
              chose(() => setEvery(v));
            }}
          >
            <option value="daily">day</option>
            <option value="weekly">week</option>
            <option value="monthly">month (on the 1st)</option>
          </select>
        </label>
        {every === 'weekly' && (
          <label>
            On
            <select
              aria-label="Day of the week"
              value={day}
              onChange={(e) => {
                const v = Number(e.currentTarget.value);
                chose(() => setDay(v));
              }}
            >
              {DAYS.map((d, i) => (
                <option key={d} value={i}>
                  {d}
                </option>
              ))}
            </select>
          </label>
        )}
        <label>
          At
          <input
            type="time"
            aria-label="At"
            value={time}
            required
            onInput={(e) => {
              const v = e.currentTarget.value;
              chose(() => setTime(v));
            }}
          />
          <span class="muted">{zone}</span>
        </label>
        <label>
          Attach
          <select
            aria-label="Attach"
            value={format}
            onChange={(e) => setFormat(e.currentTarget.value)}
          >
            <option value="pdf">the dashboard as PDF</option>
            <option value="xlsx">each item as XLSX</option>
            <option value="csv">each item as CSV</option>
          </select>
        </label>
        {filters.length > 0 && (
          <label class="dash-subscribe-check">
            <input
              type="checkbox"
              checked={withFilters}
              onChange={(e) => setWithFilters(e.currentTarget.checked)}
            />
            {editing ? 'With its filters' : 'With the filters shown now'} ({filters.join('; ')})
          </label>
        )}
        {strong && editing && (
          <label>
            Send to (members' e-mails)
            <input
              type="text"
              aria-label="Send to"
              value={sendTo}
              onInput={(e) => setSendTo(e.currentTarget.value)}
            />
          </label>
        )}
        {strong && !editing && (
          <label>
            Also send to (members' e-mails)
            <input
              type="text"
              aria-label="Also send to"
              value={others}
              placeholder="analyst@example.com, …"
              onInput={(e) => setOthers(e.currentTarget.value)}
            />
          </label>
        )}
        <p class="dash-subscribe-summary" role="status">
          {summary || 'Checking what it would send…'}
        </p>
        <button type="submit" disabled={busy || !summary}>
          {editing ? 'Save changes' : 'Subscribe'}
        </button>
        {editing && (
          <button
            type="button"
            class="quiet dash-subscribe-cancel"
            onClick={() => setEditing(null)}
          >
            Cancel the change
          </button>
        )}
        <span role="status" class="muted">
          {note}
        </span>
      </form>
      <ErrorNote error={error} />
      {mine && mine.length > 0 && (
        <DeliveryList
          title="Subscriptions to this dashboard"
          items={mine}
          base={base}
          me={me}
          strong={strong}
          busy={busy}
          act={(f, done) => void act(f, done)}
          onChange={(d) => void change(d)}
        />
      )}
    </dialog>
  );
}
