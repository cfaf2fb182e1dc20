// Usage: each limit of the project's plan as a bar, how much is used of how much is allowed.
// A value the reader may not know (dataset rows under a row-level filter) is shown as hidden.
import { projectApi } from '../../api';
import { useResource } from '../../data';
import { formatNumber } from '../../format';
import { useProject } from '../../project';
import { Loading } from '../../ui';
import { Problem } from '../model/parts';
import type { Adherence } from '../../../contract/projects';

/** Any limit by name: a limit this screen does not know yet is shown by its name. */
type ByName = Partial<Record<string, Adherence['datasetRows']>>;

const LIMITS: Record<string, { title: string; hint: string; bytes?: boolean }> = {
  storageBytes: { title: 'Storage', hint: 'files, uploads and data', bytes: true },
  datasetRows: { title: 'Dataset rows', hint: 'rows in every loaded dataset' },
  users: { title: 'Members', hint: 'active members of the project' },
  flows: { title: 'Flows', hint: 'flows in the model' },
  aiMessagesPerDay: { title: 'AI messages today', hint: 'questions to the AI chat, per day' },
  projects: { title: 'Projects', hint: 'projects of the organization' },
  deliveries: { title: 'Subscriptions and alerts', hint: 'subscriptions and alerts in the model' },
  emailsPerDay: { title: 'E-mails today', hint: 'subscription and alert e-mails, per day' },
};

function bytes(n: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 }).format(v)} ${units[i]}`;
}

export function Usage() {
  const p = useProject();
  const r = useResource<Adherence>(`${projectApi(p.id)}/limitadherence`);
  if (!r.value) return r.error ? <Problem error={r.error} /> : <Loading what="the usage" />;
  const usage: ByName = r.value;
  const names = [
    ...Object.keys(LIMITS).filter((k) => usage[k]),
    ...Object.keys(usage).filter((k) => !LIMITS[k]),
  ];
  return (
    <>
      <h2>Usage of the plan’s limits</h2>
      <ul class="usage">
        {names.map((k) => (
          <Bar key={k} name={k} {...usage[k]!} />
        ))}
      </ul>
    </>
  );
}

function Bar({ name, limit, value }: { name: string; limit: number; value: number | null }) {
  const info = LIMITS[name] ?? { title: name, hint: '' };
  const fmt = (n: number) => (info.bytes ? bytes(n) : formatNumber(n));
  const share = value === null ? 0 : limit > 0 ? value / limit : value > 0 ? 1 : 0;
  const pct = Math.min(100, share * 100);
  const pctText = share > 0 && share < 0.01 ? '< 1%' : `${Math.round(share * 100)}%`;
  const text =
    value === null
      ? `hidden: your row-level filter keeps the total from you; the limit is ${fmt(limit)}`
      : `${fmt(value)} of ${fmt(limit)} (${pctText})`;
  const state = value === null ? 'hidden' : share >= 1 ? 'full' : share >= 0.8 ? 'high' : 'ok';
  const id = `usage-${name}`;
  return (
    <li class={`usage-item usage-${state}`}>
      <div class="usage-head">
        <span id={id} class="usage-title">
          {info.title}
        </span>
        <span class="usage-value">{text}</span>
      </div>
      <div
        class="usage-bar"
        role="meter"
        aria-labelledby={id}
        aria-valuemin={0}
        aria-valuemax={limit}
        aria-valuenow={value ?? undefined}
        aria-valuetext={text}
      >
        {pct > 0 && <span class="usage-fill" style={{ width: `${pct}%` }} />}
      </div>
      {info.hint && <span class="hint">{info.hint}</span>}
    </li>
  );
}
