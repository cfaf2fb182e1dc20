// Subscriptions and alerts as a member manages their own (REST app/delivery, the MCP tools):
// what one would send to whom, in words, before it is made (`confirm`); making it through the
// model (pmd/obj: history, ACLs; below MD Admin only one's own, model/own-delivery.ts); the
// ones a member sees; removing one. Plan limits: `deliveries` per project.
import { Cron } from 'croner';
import type { ProjectActor } from '../access/actor.js';
import { hasLevel } from '../access/actor.js';
import { invalid, notFound } from '../errors.js';
import type { ModelObjects } from '../model/objects.js';
import { conditionText } from './alert-message.js';
import type { AlertCondition } from './types.js';
import type { ObjectView } from '../model/object-view.js';

export interface DeliveryInput {
  type: 'subscription' | 'alert';
  name: string;
  def: Record<string, unknown>;
  ident?: string;
}

export interface DeliverySummary {
  ident: string;
  type: 'subscription' | 'alert';
  name: string;
  createdBy: string;
  paused: boolean;
  /** A subscription's dashboard. */
  dashboard?: string;
  /** Who gets it: e-mails (and "webhook"). */
  recipients: string[];
  /** In words: what, when, to whom. */
  summary: string;
}

/** What a subscription or alert will send to whom, as a sentence, with its next times. */
export function describeDelivery(
  input: { type: string; name: string; def: Record<string, unknown> },
  names: (ident: string) => string | undefined,
): string {
  const d = input.def;
  const who = recipientsOf(input.type, d);
  const to = who.length ? who.join(', ') : 'nobody';
  const when = scheduleText(d.schedule);
  if (input.type === 'subscription') {
    const dash = String(d.dashboard);
    const format = String(d.format ?? 'pdf');
    const what =
      format === 'pdf'
        ? 'as an image with a PDF attached'
        : `as an image with ${format.toUpperCase()} files of ${Array.isArray(d.items) ? `items ${d.items.join(', ')}` : 'every item'}`;
    const filters =
      Array.isArray(d.filters) && d.filters.length ? `, filtered by ${d.filters.join('; ')}` : '';
    return `Mails the dashboard "${names(dash) ?? dash}" ${what}${filters} ${when} to ${to}, each computed with that member's own rows and access.${d.paused ? ' Paused.' : ''}`;
  }
  const c = (d.condition ?? { op: '>' }) as AlertCondition;
  const watched = d.metric
    ? `the metric "${names(String(d.metric)) ?? String(d.metric)}"`
    : `${String(d.aql)}`;
  const cond = conditionText(c).replace(/^changed/, 'changes');
  const checks = [d.schedule ? when : '', d.afterLoads ? 'after each data load' : '']
    .filter(Boolean)
    .join(' and ');
  return `Tells ${to} once when ${watched} ${cond} (each evaluated with their own rows), checked ${checks || 'only when run'}.${d.paused ? ' Paused.' : ''}`;
}

function recipientsOf(type: string, d: Record<string, unknown>): string[] {
  const list = (type === 'subscription' ? d.recipients : d.email) as string[] | undefined;
  return [...(list ?? []), ...(type === 'alert' && d.webhook ? ['webhook'] : [])];
}

function scheduleText(s: unknown): string {
  const sched = s as { cron?: string; timezone?: string } | undefined;
  if (!sched?.cron) return '';
  const tz = sched.timezone ?? 'UTC';
  try {
    const next = new Cron(sched.cron, { mode: '5-part', timezone: tz }).nextRuns(2);
    const fmt = (t: Date) =>
      t.toLocaleString('en-GB', {
        timeZone: tz,
        weekday: 'short',
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
      });
    return `on cron "${sched.cron}" (${tz}; next ${next.map(fmt).join(', then ')})`;
  } catch {
    return `on cron "${sched.cron}" (${tz})`;
  }
}

export class DeliveryObjects {
  constructor(private readonly objects: ModelObjects) {}

  /**
   * Makes one (confirm) or says what it would do (no confirm: nothing is written). Below MD
   * Admin, addressed to oneself only; checked by the model as any object is.
   */
  async create(
    a: ProjectActor,
    input: DeliveryInput,
    confirm: boolean,
  ): Promise<{ created: boolean; summary: string; object?: ObjectView }> {
    if (input.type !== 'subscription' && input.type !== 'alert')
      throw invalid('type must be "subscription" or "alert"', { field: 'type' });
    const s = await this.objects.scope(a);
    const summary = describeDelivery(input, (i) => s.get(i)?.name);
    if (!confirm) return { created: false, summary };
    const [object] = await this.objects.create(a, {
      type: input.type,
      name: input.name,
      def: input.def,
      ...(input.ident ? { ident: input.ident } : {}),
    });
    return { created: true, summary, object };
  }

  /** Those an MD Admin sees (all), or a member's: made by them or sent to them. */
  async list(a: ProjectActor): Promise<DeliverySummary[]> {
    const s = await this.objects.scope(a);
    const all = hasLevel(a, 'mdadmin');
    const names = (i: string) => s.get(i)?.name;
    return s.index.rows
      .filter((r) => (r.type === 'subscription' || r.type === 'alert') && s.visible(r))
      .map((r) => ({ r, recipients: recipientsOf(r.type, r.def) }))
      .filter(({ r, recipients }) => all || r.createdBy === a.email || recipients.includes(a.email))
      .map(({ r, recipients }) => ({
        ident: r.ident,
        type: r.type as 'subscription' | 'alert',
        name: r.name,
        createdBy: r.createdBy,
        ...(r.type === 'subscription' ? { dashboard: String(r.def.dashboard) } : {}),
        paused: r.def.paused === true,
        recipients,
        summary: describeDelivery(r, names),
      }));
  }

  /** Deletes one (below MD Admin: one's own, model/own-delivery.ts). */
  async remove(a: ProjectActor, ident: string): Promise<void> {
    mustFind(await this.objects.scope(a), a, ident);
    await this.objects.remove(a, ident);
  }

  /**
   * Changes a subscription or alert's def (and name): its creator addressed to themself only,
   * or an MD Admin, as the model checks any write. Its description, tags and acl stay.
   * Without `confirm` it says what the change would send to whom and writes nothing.
   */
  async update(
    a: ProjectActor,
    ident: string,
    input: { name?: string; def: Record<string, unknown> },
    confirm: boolean,
  ): Promise<{ changed: boolean; summary: string; object?: ObjectView }> {
    const s = await this.objects.scope(a);
    const row = mustFind(s, a, ident);
    const name = input.name ?? row.name;
    const summary = describeDelivery(
      { type: row.type as DeliveryInput['type'], name, def: input.def },
      (i) => s.get(i)?.name,
    );
    if (!confirm) return { changed: false, summary };
    const object = await this.objects.replace(a, ident, {
      name,
      ...(row.description ? { description: row.description } : {}),
      ...(row.tags?.length ? { tag: row.tags } : {}),
      def: input.def,
    });
    return { changed: true, summary, object };
  }
}

/** A subscription or alert `a` sees in scope `s`; 404 for anything else. */
function mustFind(s: Awaited<ReturnType<ModelObjects['scope']>>, a: ProjectActor, ident: string) {
  const row = s.get(ident);
  if (!row || (row.type !== 'subscription' && row.type !== 'alert'))
    throw notFound(`no alert or subscription "${ident}" in project "${a.projectId}"`, {
      id: ident,
    });
  return row;
}
