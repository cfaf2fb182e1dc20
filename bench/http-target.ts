// A server process for bench/http.ts: `ursa` (the real app, default settings, demo project)
// or `express` (a bare express hello-world baseline). Prints one JSON line when ready.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { loadConfig } from '../src/engine/config.js';
import { createLogger } from '../src/engine/logger.js';
import { startServer } from '../src/server.js';

const which = process.argv[2];

if (which === 'express') {
  const app = express();
  app.get('/', (_req, res) => {
    res.json({ hello: 'world' });
  });
  const server = app.listen(0, '127.0.0.1', () => {
    const addr = server.address() as { port: number };
    console.log(JSON.stringify({ url: `http://127.0.0.1:${addr.port}/`, headers: {} }));
  });
} else {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-bench-'));
  process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
  process.on('SIGTERM', () => process.exit(0));
  const config = loadConfig({
    ...process.env,
    URSA_DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
  });
  // Request logs are part of the measured path; they go to a file as they would in production.
  const log = createLogger(config.logLevel);
  const running = await startServer(config, log, false);
  const token = await running.engine.issueToken(config.adminEmail);
  console.error(`ursa bench target on ${running.url}`);
  process.stdout.write(
    JSON.stringify({
      url: `${running.url.replace('localhost', '127.0.0.1')}/api/v1/projects`,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    }) + '\n',
  );
}
