// Late bounces (docs/delivery.md): a mail the SMTP server accepted may still fail later, and the
// receiving side then returns a delivery status notification (RFC 3464) to the sender. Each
// delivery mail carries a Message-ID naming its ledger row, which a DSN quotes in its returned
// headers; `ursa delivery bounce` reads a DSN (an MTA pipes its bounce mailbox into it) and
// records the row `bounced` with the reason. Nothing else in the DSN is trusted: the row must
// exist and name the DSN's recipient.
import { and, eq, inArray } from 'drizzle-orm';
import { first, tablesOf, type Db } from '../db/index.js';
import { invalid, notFound } from '../errors.js';

const PREFIX = 'ursa-delivery.';

/** The Message-ID of the mail recorded in ledger row `rowId` (`<ursa-delivery.ID@host>`). */
export function deliveryMessageId(rowId: string, siteUrl: string): string {
  let host = 'ursa.invalid';
  try {
    host = new URL(siteUrl).hostname || host;
  } catch {
    // A bad site address still gives a well-formed id.
  }
  return `<${PREFIX}${rowId}@${host}>`;
}

export interface Bounce {
  row: string;
  /** RFC 3464 Action: failed, delayed, delivered, relayed, expanded. */
  action: string;
  recipient: string | null;
  status: string | null;
  diagnostic: string | null;
}

/** A DSN's fields (unfolded) and the ledger row its returned message names; null if none. */
export function parseBounce(raw: string): Bounce | null {
  // Header continuation lines joined, so folded fields read as one; NUL (which the metadata
  // database cannot store, and no mail header holds) dropped.
  const text = raw
    .slice(0, 1_000_000)
    .replace(/\r?\n[ \t]+/g, ' ')
    .replaceAll('\u0000', '');
  const id = new RegExp(`<${PREFIX.replace('.', '\\.')}([A-Za-z0-9_-]{8,64})@[^>\\s]+>`).exec(text);
  if (!id) return null;
  const field = (name: string) =>
    new RegExp(`^${name}:[ \\t]*(.+)$`, 'im').exec(text)?.[1]?.trim() ?? null;
  const recipient = field('Final-Recipient') ?? field('Original-Recipient');
  return {
    row: id[1]!,
    action: (field('Action') ?? '').toLowerCase(),
    recipient: recipient ? recipient.replace(/^[^;]*;\s*/, '').toLowerCase() : null,
    status: field('Status'),
    diagnostic: field('Diagnostic-Code'),
  };
}

export interface BounceOutcome {
  project: string;
  object: string;
  recipient: string;
  /** `bounced`, or why the row is left as it was (a delay is not a failure). */
  outcome: 'bounced' | 'ignored';
  reason: string;
}

/** Records a DSN's failure on the row its mail was sent from. */
export async function recordBounce(db: Db, raw: string): Promise<BounceOutcome> {
  const b = parseBounce(raw);
  if (!b)
    throw invalid(
      'not a bounce of an Ursa delivery mail: no Message-ID <ursa-delivery.…> in the message',
    );
  const { deliveryHistory: h } = tablesOf(db);
  const row = await db.select().from(h).where(eq(h.id, b.row)).then(first);
  if (!row) throw notFound(`no delivery was recorded for ${b.row}`, { id: b.row });
  if (b.recipient && b.recipient !== row.recipient.toLowerCase())
    throw invalid(
      `the bounce names ${b.recipient}, but that mail went to another recipient; not recorded`,
    );
  const base = { project: row.projectId, object: row.object, recipient: row.recipient };
  if (b.action !== 'failed')
    return {
      ...base,
      outcome: 'ignored',
      reason: `the notice says "${b.action || 'no action'}", not a failure`,
    };
  const reason = ['bounced', b.status, b.diagnostic].filter(Boolean).join(': ').slice(0, 2000);
  // A mail that went out (sent, an alert's fired notice, or one a dead process left) bounces.
  await db
    .update(h)
    .set({ outcome: 'bounced', message: reason, time: new Date().toISOString() })
    .where(
      and(eq(h.id, b.row), inArray(h.outcome, ['sent', 'fired', 'sending', 'unknown', 'bounced'])),
    );
  return { ...base, outcome: 'bounced', reason };
}
