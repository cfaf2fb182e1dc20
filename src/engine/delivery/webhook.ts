// Outbound webhooks (alerts): a JSON body signed with HMAC-SHA256 over "<timestamp>.<body>"
// (`X-Ursa-Signature: sha256=<hex>`, `X-Ursa-Timestamp`), one delivery id for every attempt
// (`X-Ursa-Delivery`, for the receiver to drop repeats), sent through the connectors' HTTP
// client: their network rules (URSA_CONNECTOR_ALLOW_HOSTS), timeouts, and retries with
// backoff on 408, 429, 5xx and network errors.
import crypto from 'node:crypto';
import { BoxError } from '../flows/errors.js';
import { Client } from '../flows/connectors/http/client.js';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from '../flows/connectors/http/input.js';
import type { NetPolicy } from '../flows/connectors/types.js';

export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export interface WebhookOutcome {
  ok: boolean;
  delivery: string;
  status?: number;
  error?: string;
}

export async function sendWebhook(o: {
  url: string;
  secret: string;
  payload: unknown;
  net: NetPolicy;
  signal: AbortSignal;
  limits?: Partial<HttpLimits>;
}): Promise<WebhookOutcome> {
  const delivery = crypto.randomUUID();
  const body = JSON.stringify(o.payload);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const limits = { ...DEFAULT_HTTP_LIMITS, timeoutMs: 15_000, retries: 3, ...o.limits };
  const url = new URL(o.url);
  const client = new Client(
    { box: 'webhook', signal: o.signal, net: o.net },
    limits,
    url,
    {
      'content-type': 'application/json',
      'user-agent': 'Ursa-Webhooks/1.0',
      'x-ursa-delivery': delivery,
      'x-ursa-timestamp': timestamp,
      'x-ursa-signature': webhookSignature(o.secret, timestamp, body),
    },
    { header: null, key: null, secrets: [o.secret] },
  );
  try {
    const ans = await client.fetch(url, 'POST', Buffer.from(body));
    return { ok: true, delivery, status: ans.status };
  } catch (err) {
    if (o.signal.aborted) throw err;
    const message = err instanceof BoxError ? err.message : (err as Error).message;
    return { ok: false, delivery, error: message.replace(/^box "webhook"[^:]*: /, '') };
  } finally {
    client.close();
  }
}
