// The command line, run as a real child process (`node bin/ursa.mjs …`, what `npm run ursa` runs) on a temporary data
// directory; a started server is checked over HTTP.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { lastLine, runCli, startCli, type StartedCli } from './helpers/cli.js';
import { gateOrAbort, hasStatus, isFinal, jobPath, pollJob, Scripts } from './helpers/jobs.js';
import { ADMIN, ON_PG, startTestServer } from './helpers/server.js';

const dirs: string[] = [];
const started: StartedCli[] = [];

function freshDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-cli-'));
  dirs.push(d);
  return d;
}

async function start(env: Record<string, string>): Promise<StartedCli> {
  const s = await startCli({ PORT: '0', ...env });
  started.push(s);
  return s;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
type Json = any;

async function http(
  url: string,
  opts: { method?: string; token?: string; body?: unknown } = {},
): Promise<{ status: number; json: Json; headers: Headers }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method: opts.method ?? 'GET',
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    redirect: 'manual',
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json, headers: res.headers };
}

/** A token from the CLI for a server started with PORT=0 needs that server's real port. */
async function cliToken(dataDir: string, email: string, port: number): Promise<string> {
  const r = await runCli(['token', email], { URSA_DATA_DIR: dataDir, PORT: String(port) });
  expect(r.code, r.stderr).toBe(0);
  return lastLine(r.stdout);
}

const login = (url: string, email: string, password: string) =>
  http(`${url}/auth/login`, { method: 'POST', body: { email, password } });

afterAll(async () => {
  for (const s of started) await s.stop('SIGKILL').catch(() => undefined);
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('cli', { timeout: 60_000 }, () => {
  describe('help and usage', () => {
    it('help prints the usage with every command', async () => {
      const dir = freshDir();
      for (const args of [['help'], [], ['--help']]) {
        const r = await runCli(args, { URSA_DATA_DIR: dir });
        expect(r.code, args.join(' ')).toBe(0);
        expect(r.stdout).toContain('Usage:');
        expect(r.stdout).toMatch(/^\s+start\b/m);
        expect(r.stdout).toMatch(/^\s+token <email>/m);
        expect(r.stdout).toMatch(/^\s+org create <id>/m);
        expect(r.stdout).toMatch(/^\s+org admin add <org> <email>/m);
        expect(r.stdout).toMatch(/^\s+user passwd <email>/m);
        expect(r.stdout).toMatch(/^\s+delivery bounce\b/m);
      }
    });

    it('an unknown command exits 2 with a message', async () => {
      const dir = freshDir();
      const r = await runCli(['frobnicate', 'now'], { URSA_DATA_DIR: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('unknown command "frobnicate now"');
      expect(r.stdout).toBe('');
      const org = await runCli(['org', 'delete', 'acme'], { URSA_DATA_DIR: dir });
      expect(org.code).toBe(2);
      expect(org.stderr).toContain('unknown command');
    });
  });

  describe('start', () => {
    const dir = freshDir();
    let demo: string;
    let password: string;

    it('serves the API, creates the admin and a demo project, and stops on SIGTERM', async () => {
      const s = await start({ URSA_DATA_DIR: dir });
      expect(s.url).toMatch(/^http:\/\/localhost:\d+$/);
      expect((await http(`${s.url}/api/v1`)).status).toBe(200);

      const token = await cliToken(dir, ADMIN, s.port);
      const list = await http(`${s.url}/api/v1/projects`, { token });
      expect(list.status).toBe(200);
      const ids = Object.keys(list.json.projects);
      expect(ids).toHaveLength(1);
      demo = ids[0]!;
      expect(demo).toMatch(/^demo-[a-z0-9]+$/);

      const file = path.join(dir, 'admin-password.txt');
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const [email, pw] = fs.readFileSync(file, 'utf8').split('\n');
      expect(email).toBe(ADMIN);
      password = pw!;
      expect(password.length).toBeGreaterThanOrEqual(8);
      const ok = await login(s.url, ADMIN, password);
      expect(ok.status).toBe(200);
      expect(ok.json.user).toBe(ADMIN);
      expect(ok.headers.get('set-cookie')).toBeTruthy();

      const t0 = Date.now();
      const end = await s.stop('SIGTERM');
      expect(end.code, end.stderr).toBe(0);
      // Not a performance goal: it stops promptly, not after a job's 30 s lease or a drain.
      expect(Date.now() - t0).toBeLessThan(15_000);
    });

    it('the bundled server prints a PDF (its CommonJS pdf-lib loads from the bundle)', async () => {
      const s = await start({ URSA_DATA_DIR: dir });
      try {
        const token = await cliToken(dir, ADMIN, s.port);
        const r = await fetch(`${s.url}/api/v1/projects/${demo}/app/export/html`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ html: '<h1>Bundled</h1>', title: 'Bundled' }),
        });
        const pdf = Buffer.from(await r.arrayBuffer());
        expect(r.status, pdf.toString('utf8').slice(0, 300)).toBe(200);
        expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
        // The title pdf-lib writes into the document information.
        const file = path.join(dir, 'bundled.pdf');
        fs.writeFileSync(file, pdf);
        expect(execFileSync('pdfinfo', [file], { encoding: 'utf8' })).toMatch(
          /^Title:\s+Bundled$/m,
        );
      } finally {
        await s.stop('SIGTERM');
      }
    }, 120_000);

    it('a second start on the same data directory keeps the one demo project', async () => {
      const s = await start({ URSA_DATA_DIR: dir });
      const token = await cliToken(dir, ADMIN, s.port);
      const list = await http(`${s.url}/api/v1/projects`, { token });
      expect(list.status).toBe(200);
      expect(Object.keys(list.json.projects)).toEqual([demo]);
      // The bootstrap password is neither rewritten nor changed.
      expect(fs.readFileSync(path.join(dir, 'admin-password.txt'), 'utf8')).toBe(
        `${ADMIN}\n${password}\n`,
      );
      expect((await login(s.url, ADMIN, password)).status).toBe(200);
      expect((await s.stop('SIGTERM')).code).toBe(0);
    });

    it('token without PORT signs for the server running on the data directory; a second server is refused', async () => {
      const s = await start({ URSA_DATA_DIR: dir });
      const r = await runCli(['token', ADMIN], { URSA_DATA_DIR: dir });
      expect(r.code, r.stderr).toBe(0);
      const list = await http(`${s.url}/api/v1/projects`, { token: lastLine(r.stdout) });
      expect(list.status).toBe(200);
      // On SQLite a second server would end the first one's jobs: refused. On PostgreSQL
      // processes share a data directory (a cluster, test/cluster.test.ts).
      if (!ON_PG) {
        const second = await runCli(['start'], { URSA_DATA_DIR: dir, PORT: '0' });
        expect(second.code).not.toBe(0);
        expect(second.stderr).toMatch(/another Ursa server \(pid \d+/);
      }
      // The first server is untouched and still serves.
      expect((await http(`${s.url}/api/v1/projects`, { token: lastLine(r.stdout) })).status).toBe(
        200,
      );
      expect((await s.stop('SIGTERM')).code).toBe(0);
      expect(fs.existsSync(path.join(dir, 'server.json'))).toBe(false);
    });

    it('bootstraps the default organization even when another was created before', async () => {
      const d = freshDir();
      const org = await runCli(['org', 'create', 'early'], { URSA_DATA_DIR: d });
      expect(org.code, org.stderr).toBe(0);
      const s = await start({ URSA_DATA_DIR: d });
      expect(fs.existsSync(path.join(d, 'admin-password.txt'))).toBe(true);
      const token = await cliToken(d, ADMIN, s.port);
      const list = await http(`${s.url}/api/v1/projects`, { token });
      expect(list.status).toBe(200);
      expect(Object.keys(list.json.projects)).toEqual([expect.stringMatching(/^demo-/)]);
      expect((await s.stop()).code).toBe(0);
    });

    it('exits non-zero naming the variable when the configuration is invalid', async () => {
      const dir2 = freshDir();
      const r = await runCli(['start'], { URSA_DATA_DIR: dir2, PORT: 'abc' });
      expect(r.code).not.toBe(0);
      expect(r.code).not.toBeNull();
      expect(r.stderr).toContain('invalid configuration');
      expect(r.stderr).toContain('PORT');
      expect(r.stdout).not.toContain('Ursa is running');
      const c = await runCli(['start'], { URSA_DATA_DIR: dir2, URSA_JOB_CONCURRENCY: '0' });
      expect(c.code).not.toBe(0);
      expect(c.stderr).toContain('URSA_JOB_CONCURRENCY');
    });
  });

  describe('organizations, tokens and passwords (while the server runs)', () => {
    const dir = freshDir();
    let s: StartedCli;
    const env = () => ({ URSA_DATA_DIR: dir });

    it('org create, org admin add, then that admin creates a project with a CLI token', async () => {
      s = await start({ URSA_DATA_DIR: dir });
      const created = await runCli(
        ['org', 'create', 'acme', '--name', 'Acme', '--plan', 'team'],
        env(),
      );
      expect(created.code, created.stderr).toBe(0);
      expect(created.stdout).toContain('organization "acme" created');
      const admin = await runCli(['org', 'admin', 'add', 'acme', 'bob@example.com'], env());
      expect(admin.code, admin.stderr).toBe(0);

      const tok = await runCli(['token', 'bob@example.com'], { ...env(), PORT: String(s.port) });
      expect(tok.code, tok.stderr).toBe(0);
      expect(tok.stderr).not.toContain('warning');
      const token = lastLine(tok.stdout);
      expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

      const p = await http(`${s.url}/api/v1/projects`, {
        method: 'POST',
        token,
        body: { id: 'p1', label: 'P1', entity: 'acme' },
      });
      expect(p.status, JSON.stringify(p.json)).toBe(201);
      expect(p.json.project).toMatchObject({ label: 'P1', entity: 'acme', plan: 'team' });
      expect(p.json.project.id).toMatch(/^p1-/);
    });

    it('org create refuses a duplicate id, an unknown plan (listing the plans) and bad input', async () => {
      const again = await runCli(['org', 'create', 'acme'], env());
      expect(again.code).not.toBe(0);
      expect(again.stderr).toContain('already exists');

      const plan = await runCli(['org', 'create', 'other', '--plan', 'platinum'], env());
      expect(plan.code).not.toBe(0);
      expect(plan.stderr).toContain('platinum');
      for (const name of ['free', 'team', 'enterprise']) expect(plan.stderr).toContain(name);

      const noId = await runCli(['org', 'create'], env());
      expect(noId.code).toBe(2);
      expect(noId.stderr).toContain('usage: org create');

      const badId = await runCli(['org', 'create', 'Bad Org!'], env());
      expect(badId.code).not.toBe(0);
      expect(badId.stderr).toContain('organization id');

      const noOrg = await runCli(['org', 'admin', 'add', 'nope', 'x@example.com'], env());
      expect(noOrg.code).not.toBe(0);
      expect(noOrg.stderr).toContain('does not exist');
    });

    it('user passwd sets a password that signs in; a short one is refused with the reason', async () => {
      const r = await runCli(
        ['user', 'passwd', 'bob@example.com', '--password', 'longenough1'],
        env(),
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('password of bob@example.com changed');
      const ok = await login(s.url, 'bob@example.com', 'longenough1');
      expect(ok.status).toBe(200);
      expect(ok.json.user).toBe('bob@example.com');

      const short = await runCli(
        ['user', 'passwd', 'bob@example.com', '--password', 'short'],
        env(),
      );
      expect(short.code).not.toBe(0);
      expect(short.stderr).toContain('at least 8 characters');
      expect((await login(s.url, 'bob@example.com', 'longenough1')).status).toBe(200);

      const unknown = await runCli(
        ['user', 'passwd', 'nobody@example.com', '--password', 'longenough1'],
        env(),
      );
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toContain('no user');
    });

    it('user passwd reads the password from stdin when --password is not given', async () => {
      const r = await runCli(['user', 'passwd', 'bob@example.com'], env(), {
        input: 'from-stdin-pass\n',
      });
      expect(r.code, r.stderr).toBe(0);
      expect((await login(s.url, 'bob@example.com', 'from-stdin-pass')).status).toBe(200);
      expect((await login(s.url, 'bob@example.com', 'longenough1')).status).toBe(401);
      expect((await s.stop()).code).toBe(0);
    });
  });

  describe('token', () => {
    it('warns about an unknown user and still prints the token on the last line', async () => {
      const dir = freshDir();
      const r = await runCli(['token', 'carol@example.com', '--ttl', '120'], {
        URSA_DATA_DIR: dir,
        PORT: '8080',
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('carol@example.com is not a known user');
      expect(lastLine(r.stdout)).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      const bad = await runCli(['token', 'carol@example.com', '--ttl', 'soon'], {
        URSA_DATA_DIR: dir,
      });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--ttl');
    });

    it('does not load the OAuth server: no oidc-provider runtime warning, nothing but the answer', async () => {
      const dir = freshDir();
      const r = await runCli(['token', ADMIN, '--mcp'], { URSA_DATA_DIR: dir, PORT: '8080' });
      expect(r.code, r.stderr).toBe(0);
      expect(`${r.stdout}${r.stderr}`).not.toMatch(/Unsupported runtime|oidc-provider/);
      expect(r.stdout.trim()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(decodeJwt(r.stdout.trim())).toMatchObject({ aud: 'http://localhost:8080/mcp' });
    });

    it('warns that a token issued with PORT=0 will not match a running server', async () => {
      const dir = freshDir();
      const r = await runCli(['token', ADMIN], { URSA_DATA_DIR: dir, PORT: '0' });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/warning: .*PORT=0/);
      expect(lastLine(r.stdout)).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    });

    // Only the serving process ends unfinished jobs at its start; other commands leave them.
    it('a CLI command run while the server works does not end its running or queued jobs', async () => {
      const srv = await startTestServer({ URSA_JOB_CONCURRENCY: '1' });
      try {
        const scripts = new Scripts();
        scripts.install(srv.engine);
        const gate = scripts.gate();
        const job = await srv.engine.jobs.submit(
          await srv.engine.actor({ email: ADMIN }, srv.demo),
          'transform',
          scripts.add({ run: (ctx) => gateOrAbort(gate.promise, ctx) }),
        );
        await pollJob(srv.api, srv.demo, job.id, hasStatus('RUNNING'));
        const queued = await srv.engine.jobs.submit(
          await srv.engine.actor({ email: ADMIN }, srv.demo),
          'transform',
          scripts.add({ run: async () => 1 }),
        );
        const r = await runCli(['token', ADMIN], { URSA_DATA_DIR: srv.dataDir, PORT: '8080' });
        expect(r.code, r.stderr).toBe(0);
        // A command that opens (and closes) the whole engine on the same directory.
        const org = await runCli(['org', 'create', 'cli-while-serving'], {
          URSA_DATA_DIR: srv.dataDir,
          PORT: '8080',
        });
        expect(org.code, org.stderr).toBe(0);
        const now = await srv.api('GET', jobPath(srv.demo, job.id));
        expect(now.json.status).toBe('RUNNING');
        expect((await srv.api('GET', jobPath(srv.demo, queued.id))).json.status).toBe('PREPARED');
        gate.resolve();
        expect((await pollJob(srv.api, srv.demo, queued.id, isFinal)).status).toBe('OK');
      } finally {
        await srv.close();
      }
    });
  });
});
