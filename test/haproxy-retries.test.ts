// The HAProxy configuration `npm run cluster` writes (docs/scaling.md) in front of two loopback
// servers that stand in for Ursa processes (issue 30): what it sends again and what it never
// does. A request that timed out is still running, and a POST, once sent, may have done its
// work: neither is repeated (a slow transform/execute was sent four times). A GET whose
// process closed the connection without answering (it died) goes to another one.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterMissing, HAPROXY, haproxyConfig } from '../scripts/cluster-lib.js';
import { freePort } from '../scripts/throwaway-postgres.js';

const missing = clusterMissing();
if (missing && process.env.CI) throw new Error(`the HAProxy test needs: ${missing}`);

/** HAProxy's own answer: Ursa's error shape (docs/api.md), not its HTML page. */
function errorShape(r: { status: number; text: string }) {
  const body = JSON.parse(r.text) as Record<string, unknown>;
  expect(body).toMatchObject({ statusCode: r.status, context: { balancer: 'haproxy' } });
  expect(body.message).toEqual(expect.any(String));
  expect(body.errorId).toMatch(/^[0-9a-f-]{36}$/);
  return body;
}

/** Requests each backend received, as `METHOD /path`, health checks left out. */
const received: string[] = [];
const backends: http.Server[] = [];
let haproxy: ChildProcess | undefined;
let url = '';
let dir = '';
const out: string[] = [];

function backend(): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.url === '/readyz') return void res.end('ok');
    const key = `${req.method} ${req.url}`;
    received.push(key);
    req.resume();
    // A process that never answers in time.
    if (req.url?.startsWith('/slow')) return;
    // A process that dies on the first request of each kind: the connection closes unanswered.
    if (req.url?.startsWith('/dies') && received.filter((k) => k === key).length === 1)
      return void req.socket.destroy();
    res.end('answered');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const count = (key: string) => received.filter((k) => k === key).length;

/** One request on a connection of its own (a kept-alive one HAProxy closed fails a POST). */
function send(
  method: string,
  p: string,
  body?: string,
): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${p}`, { method, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          text: Buffer.concat(chunks).toString(),
          headers: res.headers,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

// No metadata: the SQLite pass runs it, the PostgreSQL pass need not.
describe.skipIf(!!missing || process.env.URSA_TEST_DATABASE === 'postgres')(
  'HAProxy as npm run cluster configures it',
  () => {
    beforeAll(async () => {
      for (let i = 0; i < 2; i++) backends.push(await backend());
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-haproxy-'));
      const cfg = path.join(dir, 'haproxy.cfg');
      const ports = backends.map((b) => (b.address() as AddressInfo).port);
      // A short server timeout stands for a slow request; everything else as written.
      fs.writeFileSync(cfg, haproxyConfig(port, ports, { serverTimeout: '1s' }));
      const check = spawnSync(HAPROXY, ['-c', '-q', '-f', cfg], { encoding: 'utf8' });
      expect(check.status, check.stderr).toBe(0);
      haproxy = spawn(HAPROXY, ['-db', '-f', cfg], { stdio: ['ignore', 'pipe', 'pipe'] });
      haproxy.stdout!.on('data', (b: Buffer) => out.push(b.toString()));
      haproxy.stderr!.on('data', (b: Buffer) => out.push(b.toString()));
      for (let i = 0; ; i++) {
        const up = await send('GET', '/readyz').then(
          (r) => r.status === 200,
          () => false,
        );
        if (up) break;
        if (i > 100) throw new Error(`HAProxy did not start:\n${out.join('')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }, 30_000);
    afterAll(async () => {
      haproxy?.kill();
      for (const b of backends) {
        b.closeAllConnections();
        await new Promise((r) => b.close(r));
      }
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('a POST that times out is sent once, and answered 504', async () => {
      const r = await send('POST', '/slow/execute', '{"type":"cluster"}');
      expect(r.status, out.join('')).toBe(504);
      expect(errorShape(r).message).toMatch(/may still be running/);
      expect(count('POST /slow/execute')).toBe(1);
    }, 20_000);

    it('a GET that times out is not sent again either: it is still running', async () => {
      const r = await send('GET', '/slow/result');
      expect(r.status).toBe(504);
      expect(count('GET /slow/result')).toBe(1);
    }, 20_000);

    it('a POST whose process closed the connection unanswered is not sent again: 502', async () => {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const r = await send(method, `/dies/${method}`, '{}');
        expect(r.status, method).toBe(502);
        expect(errorShape(r).message).toMatch(/was not sent again/);
        expect(count(`${method} /dies/${method}`), method).toBe(1);
      }
    }, 20_000);

    it('a GET whose process closed the connection unanswered goes to another and is answered', async () => {
      const r = await send('GET', '/dies/get');
      expect(r.status).toBe(200);
      expect(r.text).toBe('answered');
      expect(count('GET /dies/get')).toBe(2);
    }, 20_000);

    // Last: it stops one of the two servers.
    it('a POST to a process that is gone goes to another, once', async () => {
      expect((await send('POST', '/warm', '{}')).status).toBe(200);
      const gone = backends.shift()!;
      gone.closeAllConnections();
      await new Promise((r) => gone.close(r));
      for (let i = 0; i < 4; i++) {
        const r = await send('POST', `/after/${i}`, '{}');
        expect(r.status, out.join('')).toBe(200);
        expect(count(`POST /after/${i}`)).toBe(1);
      }
    }, 20_000);

    // Last: it stops the other server too.
    it('with no process ready, HAProxy answers 503 in the error shape with Retry-After', async () => {
      const last = backends.shift()!;
      last.closeAllConnections();
      await new Promise((r) => last.close(r));
      const r = await send('GET', '/api/v1/projects');
      expect(r.status, r.text).toBe(503);
      expect(r.headers['retry-after']).toBe('5');
      expect(errorShape(r).message).toMatch(/no Ursa process is ready/);
    }, 20_000);
  },
);
