// Signals between processes: "a job is queued", "job X finished", "cancel job Y". On
// PostgreSQL they are LISTEN/NOTIFY on one dedicated connection per process, re-opened when it
// breaks (a missed signal is caught by the runner's poll); on SQLite, whose store serves one
// process, an in-memory bus. Payloads are short text (ids).
import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Logger } from 'pino';

export interface Signals {
  /** Calls `fn` with each payload sent on `channel` (by any process). Returns the way to stop. */
  listen(channel: string, fn: (payload: string) => void): Promise<() => void>;
  /** Sends `payload` on `channel`; inside a PostgreSQL transaction, it is sent at commit. */
  notify(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
}

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

export function memorySignals(): Signals {
  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  return {
    listen(channel, fn) {
      const h = (p: string) => fn(p);
      bus.on(channel, h);
      return Promise.resolve(() => void bus.off(channel, h));
    },
    notify(channel, payload) {
      // Delivered after the caller's turn, as a database notification would be.
      queueMicrotask(() => bus.emit(channel, payload));
      return Promise.resolve();
    },
    close() {
      bus.removeAllListeners();
      return Promise.resolve();
    },
  };
}

/**
 * LISTEN/NOTIFY over `url`. `send` runs NOTIFY on the caller's connection (the pool, or the
 * transaction's), so a signal about a write is never seen before the write.
 */
export function pgSignals(
  url: string,
  send: (text: string, values: unknown[]) => Promise<unknown>,
  log?: Pick<Logger, 'warn'>,
): Signals {
  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  const channels = new Set<string>();
  let client: pg.Client | undefined;
  let connecting: Promise<pg.Client> | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = (): Promise<pg.Client> => {
    if (client) return Promise.resolve(client);
    connecting ??= (async () => {
      const c = new pg.Client({ connectionString: url, application_name: 'ursa-signals' });
      c.on('notification', (n) => bus.emit(n.channel, n.payload ?? ''));
      // A broken connection must not end the process: drop it and connect again shortly.
      c.on('error', (err) => {
        log?.warn({ err: err.message }, 'signal connection lost');
        drop(c);
      });
      c.on('end', () => drop(c));
      try {
        await c.connect();
        for (const ch of channels) await c.query(`LISTEN ${ch}`);
      } catch (err) {
        c.end().catch(() => undefined);
        throw err;
      }
      client = c;
      return c;
    })().finally(() => (connecting = undefined));
    return connecting;
  };
  const drop = (c: pg.Client) => {
    if (client === c) client = undefined;
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      if (!closed && channels.size) connect().catch(() => drop(c));
    }, 1000);
    retry.unref();
  };

  return {
    async listen(channel, fn) {
      if (!CHANNEL.test(channel)) throw new Error(`bad signal channel "${channel}"`);
      const h = (p: string) => fn(p);
      bus.on(channel, h);
      if (!channels.has(channel)) {
        channels.add(channel);
        try {
          const c = await connect();
          await c.query(`LISTEN ${channel}`);
        } catch (err) {
          // The runner's poll covers the gap; the reconnect listens again.
          log?.warn({ err: (err as Error).message, channel }, 'LISTEN failed; polling meanwhile');
        }
      }
      return () => void bus.off(channel, h);
    },
    async notify(channel, payload) {
      await send('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      bus.removeAllListeners();
      const c = client ?? (await connecting?.catch(() => undefined));
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
