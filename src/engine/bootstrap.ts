// First start: organization `default`, a bootstrap administrator with a password, and a
// demo project loaded with demo data (src/engine/data/demo), so a newcomer can sign in and
// query within a minute.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startDemoLoads } from './data/demo/load-demo.js';
import type { Engine } from './engine.js';

export interface BootstrapResult {
  created: boolean;
  adminEmail: string;
  passwordFile?: string;
  demoProjectId?: string;
  /**
   * Resolves to the ids of the jobs loading the demo data once they are started (the files
   * are generated after bootstrap returns, so the server starts serving at once).
   */
  demoLoading?: Promise<string[] | undefined>;
}

export async function bootstrap(engine: Engine): Promise<BootstrapResult> {
  const { config } = engine;
  // `default` marks a bootstrapped directory: organizations made with the CLI before the
  // first start must not stop it.
  if (await engine.orgs.get('default')) return { created: false, adminEmail: config.adminEmail };
  await engine.orgs.create('default', 'Default organization', config.defaultPlan);
  await engine.orgs.addAdmin('default', config.adminEmail);
  const password = config.adminPassword ?? randomBytes(12).toString('base64url');
  await engine.accounts.setPassword(config.adminEmail, password);
  let passwordFile: string | undefined;
  if (!config.adminPassword) {
    passwordFile = path.join(config.dataDir, 'admin-password.txt');
    fs.writeFileSync(passwordFile, `${config.adminEmail}\n${password}\n`, { mode: 0o600 });
  }
  let demoProjectId: string | undefined;
  let demoLoading: Promise<string[] | undefined> | undefined;
  if (config.demo) {
    const demo = await engine.projects.create(
      { email: config.adminEmail },
      {
        id: 'demo',
        label: 'Demo',
        entity: 'default',
        desc: config.demoData
          ? 'Demo project created on first start: 60,000 US flights of 2024–2025 with airports, carriers and a calendar.'
          : 'Demo project created on first start.',
      },
    );
    demoProjectId = demo.id;
    if (config.demoData) demoLoading = startDemo(engine, demo.id);
  }
  return { created: true, adminEmail: config.adminEmail, passwordFile, demoProjectId, demoLoading };
}

/** Starts the demo loads; a failure is logged and never stops the server. */
async function startDemo(engine: Engine, projectId: string): Promise<string[] | undefined> {
  try {
    // Generating the files takes a moment: let the server start serving first.
    await new Promise((resolve) => setImmediate(resolve));
    const jobs = await startDemoLoads(engine, projectId, engine.config.adminEmail);
    return jobs.map((j) => j.id);
  } catch (err) {
    engine.log.error({ err, project: projectId }, 'loading the demo data failed');
    return undefined;
  }
}
