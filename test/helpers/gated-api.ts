// An HTTP API for flow tests whose `/slow` answers only when released (a run held mid-way);
// any other path answers at once. Both answer `body` as JSON.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export class GatedApi {
  private held: http.ServerResponse[] = [];
  requests = 0;
  readonly server = http.createServer((req, res) => {
    this.requests++;
    if (req.url?.startsWith('/slow')) this.held.push(res);
    else this.answer(res);
  });
  url = '';
  constructor(private readonly body: unknown = [{ sku: 'new', qty: 100 }]) {}
  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  /** Whether a request is being held. */
  get holding(): boolean {
    return this.held.length > 0;
  }
  release(): void {
    for (const r of this.held.splice(0)) this.answer(r);
  }
  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
  private answer(res: http.ServerResponse): void {
    if (res.writableEnded || res.destroyed) return;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(this.body));
  }
}
