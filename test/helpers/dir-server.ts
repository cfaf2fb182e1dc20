// A real server on a data directory the test owns: it can be stopped and started again on
// the same directory (restart tests); the directory is never removed here.
import { createLogger } from '../../src/engine/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { ADMIN, testConfig, type ApiResponse } from './server.js';

export interface DirServer extends RunningServer {
  dataDir: string;
  api(method: string, path: string, opts?: { as?: string | null }): Promise<ApiResponse>;
}

export async function startOn(dataDir: string, env: Record<string, string> = {}) {
  // Restart tests see the product's default: the demo project with its data.
  const config = testConfig(dataDir, { URSA_DEMO_DATA: 'true', ...env });
  const running = await startServer(config, createLogger(config.logLevel), false);
  // Each start gets a new port, hence a new issuer: tokens belong to one server.
  const tokens = new Map<string, string>();
  const api: DirServer['api'] = async (method, p, opts = {}) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    const as = opts.as === undefined ? ADMIN : opts.as;
    if (as) {
      let t = tokens.get(as);
      if (!t) tokens.set(as, (t = await running.engine.issueToken(as)));
      headers.authorization = `Bearer ${t}`;
    }
    const res = await fetch(`${running.url}/api/v1${p}`, { method, headers });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };
  const server: DirServer = { ...running, dataDir, api };
  return server;
}
