// Requests that arrive while the server starts (the port listens before the engine and the
// app are ready) are answered at once: 503 with Retry-After in the API's error shape.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/engine/logger.js';
import { startServer, type RunningServer } from '../src/server.js';
import { testConfig } from './helpers/server.js';

describe('start-up', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-startup-'));
  let running: RunningServer | undefined;
  afterAll(async () => {
    await running?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After until ready, then serves', async () => {
    const config = testConfig(dataDir);
    // Start-up is held (as a slow one would be) until the requests below were answered.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let listening!: (url: string) => void;
    const url = new Promise<string>((r) => (listening = r));
    const started = startServer(config, createLogger('silent'), false, {
      listening: (u) => {
        listening(u);
        return held;
      },
    });
    const base = await url;

    const get = await fetch(`${base}/api/v1/projects`, { signal: AbortSignal.timeout(10_000) });
    expect(get.status).toBe(503);
    expect(get.headers.get('retry-after')).toBe('1');
    expect(get.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await get.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['context', 'errorId', 'message', 'statusCode']);
    expect(body).toMatchObject({ statusCode: 503, message: expect.stringMatching(/starting/) });

    const post = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(post.status).toBe(503);
    expect(post.headers.get('retry-after')).toBe('1');
    await post.arrayBuffer();
    const head = await fetch(`${base}/`, { method: 'HEAD', signal: AbortSignal.timeout(10_000) });
    expect(head.status).toBe(503);

    release();
    running = await started;
    const ready = await fetch(`${base}/api/v1/projects`);
    expect(ready.status).toBe(401);
    await ready.arrayBuffer();
  });
});
