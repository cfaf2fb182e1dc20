// untilCallerGone (src/http/caller-gone.ts), over a real HTTP server: the signal aborts when
// the caller leaves before the answer, and stays quiet when the answer was sent whole.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untilCallerGone } from '../src/http/caller-gone.js';

let server: http.Server;
let port = 0;
const signals: AbortSignal[] = [];
let closed: () => void = () => {};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const signal = untilCallerGone(res);
    signals.push(signal);
    res.once('close', () => setImmediate(() => closed()));
    if (req.url === '/now') res.end('done');
    // '/later': the answer waits for the caller, who leaves first.
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const responseClosed = () => new Promise<void>((r) => (closed = r));

describe('untilCallerGone', () => {
  it('does not abort once the answer was sent whole', async () => {
    const done = responseClosed();
    const r = await fetch(`http://127.0.0.1:${port}/now`, { headers: { connection: 'close' } });
    expect(await r.text()).toBe('done');
    await done;
    expect(signals.at(-1)!.aborted).toBe(false);
  });

  it('aborts when the caller goes away before the answer', async () => {
    const done = responseClosed();
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {}); // reset by the server once closed: expected here
    await new Promise<void>((r) => socket.once('connect', () => r()));
    const before = signals.length;
    socket.write('GET /later HTTP/1.1\r\nHost: x\r\n\r\n');
    while (signals.length === before) await new Promise((r) => setTimeout(r, 5)); // received
    socket.destroy();
    await done;
    expect(signals.at(-1)!.aborted).toBe(true);
  });
});
