// First start: organization `default`, a bootstrap administrator with a password, and a
// demo project, so a newcomer can sign in and query within a minute.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Engine } from './engine.js';

export interface BootstrapResult {
  created: boolean;
  adminEmail: string;
  passwordFile?: string;
  demoProjectId?: string;
}

export async function bootstrap(engine: Engine): Promise<BootstrapResult> {
  const { config } = engine;
  // `default` marks a bootstrapped directory: organizations made with the CLI before the
  // first start must not stop it.
  if (engine.orgs.get('default')) return { created: false, adminEmail: config.adminEmail };
  engine.orgs.create('default', 'Default organization', config.defaultPlan);
  engine.orgs.addAdmin('default', config.adminEmail);
  const password = config.adminPassword ?? randomBytes(12).toString('base64url');
  await engine.accounts.setPassword(config.adminEmail, password);
  let passwordFile: string | undefined;
  if (!config.adminPassword) {
    passwordFile = path.join(config.dataDir, 'admin-password.txt');
    fs.writeFileSync(passwordFile, `${config.adminEmail}\n${password}\n`, { mode: 0o600 });
  }
  let demoProjectId: string | undefined;
  if (config.demo) {
    const demo = engine.projects.create(
      { email: config.adminEmail },
      {
        id: 'demo',
        label: 'Demo',
        entity: 'default',
        desc: 'Demo project created on first start.',
      },
    );
    demoProjectId = demo.id;
  }
  return { created: true, adminEmail: config.adminEmail, passwordFile, demoProjectId };
}
