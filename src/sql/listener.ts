// The SQL API's listener (URSA_SQL_PORT): PostgreSQL clients connect with their e-mail as user,
// an API token as password and the project id as database. Each connection is a Session; this
// file keeps their cancel keys. A cancel request arrives on a connection of its own, which a
// balancer may send to another process: it is told to every process through the engine, and
// the one holding the key cancels.
import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import type { Logger } from 'pino';
import type { Engine } from '../engine/engine.js';
import { loadSqlParser } from '../engine/sql/service.js';
import { clientAddress, trustsPeer } from './proxy-header.js';
import { newSecret, Session } from './session.js';

export interface SqlListener {
  port: number;
  close(): Promise<void>;
}

export async function startSqlListener(
  engine: Engine,
  log: Logger,
  opts: {
    port: number;
    host: string;
    idleTimeoutMs: number;
    maxConnections: number;
    /** URSA_TRUST_PROXY: peers whose PROXY header (a balancer's) names the client. */
    trustProxy: boolean | number | string;
    tls?: { certFile: string; keyFile: string };
  },
): Promise<SqlListener> {
  await loadSqlParser();
  // Read at start: a missing or wrong file stops the server with the reason, not a client.
  const secureContext = opts.tls
    ? tls.createSecureContext({
        cert: fs.readFileSync(opts.tls.certFile),
        key: fs.readFileSync(opts.tls.keyFile),
      })
    : undefined;
  const sessions = new Map<number, { session: Session; secret: number }>();
  const sockets = new Set<net.Socket>();
  const hooks = {
    register(session: Session) {
      // Random: unique across the processes behind one address (the secret is checked too).
      let pid = newSecret();
      while (sessions.has(pid)) pid = newSecret();
      const secret = newSecret();
      sessions.set(pid, { session, secret });
      return { pid, secret };
    },
    unregister(pid: number) {
      sessions.delete(pid);
    },
    admit: () => sockets.size <= opts.maxConnections,
    cancel(pid: number, secret: number) {
      engine.sql.requestCancel(pid, secret).catch((err) => log.warn({ err }, 'SQL cancel'));
    },
  };
  const stopCancels = await engine.sql.onCancel((pid, secret) => {
    const s = sessions.get(pid);
    // A wrong key is ignored silently, as PostgreSQL does.
    if (s && s.secret === secret) s.session.cancel();
  });
  const trusted = trustsPeer(opts.trustProxy);
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // Until the session takes over: a reset must not reach the process as an 'error'.
    socket.on('error', () => undefined);
    clientAddress(socket, trusted(socket.remoteAddress ?? '')).then(
      (address) => {
        new Session(socket, engine, hooks, log.child({ door: 'sql' }), {
          idleTimeoutMs: opts.idleTimeoutMs,
          clientAddress: address,
          secureContext,
        });
        socket.resume();
      },
      (err: Error) => {
        log.debug({ err }, 'SQL connection without a valid PROXY header');
        socket.destroy();
      },
    );
  });
  server.on('error', (err) => log.error({ err }, 'SQL listener error'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as net.AddressInfo).port;
  engine.sqlListening(port);
  log.info({ port }, 'SQL API listening');
  return {
    port,
    async close() {
      stopCancels();
      engine.sqlListening(null);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
