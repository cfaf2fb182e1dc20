// A loopback HTTP server that must never be reached: it counts every TCP connection and every
// request (method, host and path), on 127.0.0.1 and, where the system has IPv6, on [::1] at
// the same port, and answers each request with content worth stealing.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BaitServer {
  port: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Requests seen, as `METHOD host/path`. */
  requests: string[];
  /** TCP connections accepted (a preconnect opens one without sending a request). */
  connections(): number;
  close(): Promise<void>;
}

export const BAIT_TEXT = 'BAIT-SECRET-7f3a';

export async function startBaitServer(): Promise<BaitServer> {
  const requests: string[] = [];
  let connections = 0;
  const make = () => {
    const server = http.createServer((req, res) => {
      requests.push(`${req.method} ${req.headers.host ?? ''}${req.url ?? ''}`);
      res.setHeader('Content-Type', 'text/html');
      res.end(`<h1>${BAIT_TEXT}</h1>`);
    });
    server.on('connection', () => (connections += 1));
    return server;
  };
  const v4 = make();
  await new Promise<void>((resolve, reject) => {
    v4.once('error', reject);
    v4.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (v4.address() as AddressInfo).port;
  const servers = [v4];
  const v6 = make();
  const listening6 = await new Promise<boolean>((resolve) => {
    v6.once('error', () => resolve(false));
    v6.listen(port, '::1', () => resolve(true));
  });
  if (listening6) servers.push(v6);
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    connections: () => connections,
    close: async () => {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.closeAllConnections();
              s.close(() => resolve());
            }),
        ),
      );
    },
  };
}
