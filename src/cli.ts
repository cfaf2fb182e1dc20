// Command line: `npm run ursa -- <command>`. Commands other than `start` work on the data
// directory directly (the server may be running: SQLite in WAL mode allows it). Each command
// loads only what it uses: `token` neither the engine nor the OAuth server, so it is quick.
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { loadConfig, mcpAudience, type Config } from './engine/config.js';
import type { Engine } from './engine/engine.js';
import { readServerRecord } from './engine/server-record.js';
import { createLogger } from './engine/logger.js';

const HELP = `Ursa — analytics platform

Usage: npm run ursa -- <command> [options]

Commands:
  start                              start the server (PORT, URSA_DATA_DIR, … see docs/operations.md)
  token <email> [--ttl <seconds>] [--mcp]
                                     print a bearer access token for that user (last line);
                                     --mcp: for the MCP server at /mcp instead of the API
  mcp --stdio --user <email> [--project <id>]
                                     serve MCP on stdin/stdout as that user (for desktop
                                     assistants; logs on stderr); --project: the default project
  org create <id> [--name <name>] [--plan <plan>]
                                     create an organization
  org admin add <org> <email>        make a user an administrator of an organization
  user passwd <email> [--password <password>]
                                     set a user's password (read from stdin when not given)
  delivery bounce                    record a bounce (a delivery status notification mail,
                                     read from stdin) of a subscription or alert mail
  help                               this text
`;

class UsageError extends Error {}

async function withEngine<T>(config: Config, fn: (e: Engine) => Promise<T> | T): Promise<T> {
  const { Engine } = await import('./engine/engine.js');
  // Logs go to stderr so stdout carries only the command's answer.
  const engine = await Engine.open(config, pino({ level: 'warn' }, pino.destination(2)));
  try {
    return await fn(engine);
  } finally {
    await engine.close();
  }
}

async function readStdin(limit = Infinity): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of process.stdin) {
    size += (c as Buffer).length;
    // A bounce quotes the message it returns; its headers come first, the rest is not read.
    if (size > limit) break;
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function readStdinLine(): Promise<string> {
  return (await readStdin()).split(/\r?\n/)[0] ?? '';
}

async function start(config: Config): Promise<void> {
  const log = createLogger(config.logLevel);
  const { startServer } = await import('./server.js');
  const running = await startServer(
    config,
    log,
    Boolean(process.env.URSA_SITE_URL) || config.port !== 0,
  );
  const b = running.bootstrap;
  log.info({ url: running.url, dataDir: config.dataDir }, 'Ursa is listening');
  if (b.created) {
    const how = b.passwordFile
      ? `password in ${b.passwordFile}`
      : 'password from URSA_ADMIN_PASSWORD';
    log.info(
      { admin: b.adminEmail, demoProject: b.demoProjectId },
      `first start: created organization "default" and admin ${b.adminEmail} (${how})`,
    );
  }
  console.log(
    `Ursa is running at ${running.url} — API index ${running.url}/api/v1, sign in at ${running.url}/auth/login`,
  );
  const stop = async (signal: string) => {
    log.info({ signal }, 'shutting down');
    await running.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

export async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ttl: { type: 'string' },
      name: { type: 'string' },
      plan: { type: 'string' },
      password: { type: 'string' },
      stdio: { type: 'boolean' },
      mcp: { type: 'boolean' },
      user: { type: 'string' },
      project: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [cmd, ...rest] = positionals;
  if (!cmd || cmd === 'help' || values.help) {
    process.stdout.write(HELP);
    return;
  }
  const config = loadConfig();
  const key = [cmd, ...rest.slice(0, cmd === 'org' && rest[0] === 'admin' ? 2 : 1)].join(' ');
  switch (key) {
    case 'start':
      return start(config);
    case `token ${rest[0]}`: {
      const email = rest[0]!.toLowerCase();
      const ttl = values.ttl ? Number(values.ttl) : undefined;
      if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < 1))
        throw new UsageError('--ttl takes a whole number of seconds');
      // Without an explicit address, sign for the server that last served this data directory.
      const served = readServerRecord(config.dataDir);
      let siteUrl = config.siteUrl;
      if (served && !process.env.URSA_SITE_URL && !process.env.PORT && config.auth.builtin) {
        Object.assign(config.auth, { issuer: served.issuer, audience: served.audience });
        siteUrl = served.siteUrl;
      } else if (config.port === 0 && !process.env.URSA_SITE_URL)
        console.error(
          `warning: PORT=0 names issuer ${config.auth.issuer}, which no running server accepts; set PORT (or URSA_SITE_URL) to the server's`,
        );
      if (!config.auth.builtin)
        throw new Error(
          'tokens are issued by the external identity provider configured in URSA_AUTH_ISSUER',
        );
      // Loaded here, not at the top: `help` and a mistyped command need no database driver.
      const [{ openStore }, { Accounts }, { loadOrCreateSigningKey }, { issueAccessToken }] =
        await Promise.all([
          import('./engine/db/index.js'),
          import('./engine/users/accounts.js'),
          import('./engine/identity/keys.js'),
          import('./engine/identity/tokens.js'),
        ]);
      const store = await openStore(config);
      try {
        if (!(await new Accounts(store.db).exists(email)))
          console.error(
            `warning: ${email} is not a known user yet; the token grants no project access until they are invited`,
          );
      } finally {
        await store.close();
      }
      // --mcp: for the MCP server at /mcp, whose tokens carry their own audience.
      const audience = values.mcp
        ? mcpAudience({ siteUrl, mcpAudience: config.mcpAudience })
        : undefined;
      const key = await loadOrCreateSigningKey(config.dataDir);
      console.log(await issueAccessToken(key, config.auth, email, { ttlSeconds: ttl, audience }));
      return;
    }
    case 'mcp': {
      const usage = 'usage: mcp --stdio --user <email> [--project <id>]';
      if (!values.stdio)
        throw new UsageError(
          `${usage} (over HTTP, the running server serves ${config.siteUrl}/mcp)`,
        );
      if (!values.user) throw new UsageError(`${usage}: --user names who the assistant acts as`);
      const { user, project } = values;
      // Not claimed, like `token`: a server may be serving the same directory.
      const { serveStdio } = await import('./mcp/stdio.js');
      await withEngine(config, (e) => serveStdio(e, { user, project }));
      // Nothing else may keep the process (and the client waiting for it to exit) alive.
      return process.exit(0);
    }
    case 'org create': {
      const id = rest[1];
      if (!id) throw new UsageError('usage: org create <id> [--name <name>] [--plan <plan>]');
      await withEngine(config, (e) =>
        e.orgs.create(id, values.name ?? id, values.plan ?? config.defaultPlan),
      );
      console.log(`organization "${id}" created`);
      return;
    }
    case 'org admin add': {
      const [, , org, email] = rest;
      if (!org || !email) throw new UsageError('usage: org admin add <org> <email>');
      await withEngine(config, (e) => e.orgs.addAdmin(org, email));
      console.log(`${email} is now an administrator of organization "${org}"`);
      return;
    }
    case 'user passwd': {
      const email = rest[1];
      if (!email) throw new UsageError('usage: user passwd <email> [--password <password>]');
      const password = values.password ?? (await readStdinLine());
      await withEngine(config, (e) => e.accounts.setPassword(email, password));
      console.log(`password of ${email} changed`);
      return;
    }
    case 'delivery bounce': {
      // The metadata store only (no engine): an MTA may pipe every bounce into this.
      const [{ openStore }, { recordBounce }] = await Promise.all([
        import('./engine/db/index.js'),
        import('./engine/delivery/bounces.js'),
      ]);
      const raw = await readStdin(4_000_000);
      const store = await openStore(config);
      try {
        console.log(JSON.stringify(await recordBounce(store.db, raw)));
      } finally {
        await store.close();
      }
      return;
    }
    default:
      throw new UsageError(`unknown command "${positionals.join(' ')}"\n\n${HELP}`);
  }
}

main(process.argv.slice(2)).catch((err: Error) => {
  // Engine errors list the accepted values (e.g. plans) in their context.
  const allowed = (err as { context?: { allowed?: unknown } }).context?.allowed;
  const hint = Array.isArray(allowed) ? ` (allowed: ${allowed.join(', ')})` : '';
  console.error(`error: ${err.message}${hint}`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
