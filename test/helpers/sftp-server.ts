// A real OpenSSH server for SFTP connector tests: sshd on a free loopback port with a
// generated config and host key, SFTP only (internal-sftp, started in `root`), password and
// public-key login for one dedicated system user. Creating that user needs root (as on CI).
//
// No ChrootDirectory: sshd wants every component of a chroot path root-owned and not
// writable by others, which /tmp is not. Remote paths are therefore the real local paths:
// a file the test writes to `${root}/a.csv` is `${root}/a.csv` on the server too (and
// `a.csv`, relative to the start directory).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/throwaway-postgres.js';

export interface TestSftp {
  host: '127.0.0.1';
  port: number;
  user: string;
  password: string;
  /** An ed25519 private key in OpenSSH format that may log in. */
  privateKey: string;
  /** An RSA private key in PEM format that may log in too. */
  privateKeyPem: string;
  /** The server's host key fingerprint, as `ssh-keygen -lf` prints it (`SHA256:…`). */
  hostKeyFingerprint: string;
  /** A writable folder served by the server (at the same path); the login directory. */
  root: string;
  stop(): Promise<void>;
}

export const SSHD = '/usr/sbin/sshd';
export const SFTP_INSTALL = 'apt-get install openssh-server';
/** Test servers log in as `ursa-sftp-<random>`: one system user per server, so test files
 * running at the same time never change each other's password or lock each other out. */
export const SFTP_USER_PREFIX = 'ursa-sftp-';

/** Why the tests cannot start sshd here, or null when they can. */
export function sftpMissing(): string | null {
  if (!fs.existsSync(SSHD)) return `OpenSSH server is not installed (no ${SSHD}): ${SFTP_INSTALL}`;
  if (spawnSync('ssh-keygen', ['-?']).error) return `ssh-keygen is not installed: ${SFTP_INSTALL}`;
  if (process.getuid?.() !== 0)
    return `the SFTP tests need root (they create system users ${SFTP_USER_PREFIX}…)`;
  return null;
}

function sh(cmd: string, args: string[], input?: string): string {
  let r = spawnSync(cmd, args, { encoding: 'utf8', input, timeout: 60_000 });
  // Test files run in parallel: another's useradd or userdel may hold /etc/passwd's lock.
  for (let i = 0; i < 50 && r.status !== 0 && /cannot lock/.test(r.stderr); i++) {
    spawnSync('sleep', ['0.1']);
    r = spawnSync(cmd, args, { encoding: 'utf8', input, timeout: 60_000 });
  }
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr || r.stdout}`);
  return r.stdout;
}

const live = new Set<ChildProcess>();
let exitHook = false;

export async function startSftp(): Promise<TestSftp> {
  const missing = sftpMissing();
  if (missing) throw new Error(missing);

  // The login user: one per server, removed by stop().
  const SFTP_USER = `${SFTP_USER_PREFIX}${crypto.randomBytes(4).toString('hex')}`;
  sh('useradd', ['--system', '-M', '-d', '/nonexistent', '-s', '/usr/sbin/nologin', SFTP_USER]);
  const password = crypto.randomBytes(12).toString('hex');
  sh('chpasswd', [], `${SFTP_USER}:${password}\n`);

  // Privilege separation directory.
  fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-sftp-'));
  fs.chmodSync(dir, 0o755); // the user reads authorized_keys and reaches root through it
  const root = path.join(dir, 'root');
  fs.mkdirSync(root, { mode: 0o755 });
  sh('chown', [`${SFTP_USER}:`, root]);

  const hostKey = path.join(dir, 'host_ed25519');
  sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'ursa-test-host', '-f', hostKey]);
  const hostKeyFingerprint = sh('ssh-keygen', ['-lf', `${hostKey}.pub`]).split(' ')[1]!;
  const clientKey = path.join(dir, 'client_ed25519');
  sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'ursa-test', '-f', clientKey]);
  const clientPem = path.join(dir, 'client_rsa');
  sh('ssh-keygen', ['-q', '-t', 'rsa', '-b', '2048', '-m', 'PEM', '-N', '', '-f', clientPem]);
  const authorizedKeys = path.join(dir, 'authorized_keys');
  fs.writeFileSync(
    authorizedKeys,
    fs.readFileSync(`${clientKey}.pub`, 'utf8') + fs.readFileSync(`${clientPem}.pub`, 'utf8'),
    { mode: 0o644 },
  );
  const privateKey = fs.readFileSync(clientKey, 'utf8');
  const privateKeyPem = fs.readFileSync(clientPem, 'utf8');
  fs.rmSync(clientKey);
  fs.rmSync(clientPem);

  const port = await freePort();
  const config = path.join(dir, 'sshd_config');
  fs.writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      'UsePAM no',
      'StrictModes no',
      'PermitRootLogin no',
      `AllowUsers ${SFTP_USER}`,
      'PasswordAuthentication yes',
      'PermitEmptyPasswords no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      `AuthorizedKeysFile ${authorizedKeys}`,
      'Subsystem sftp internal-sftp',
      `ForceCommand internal-sftp -d ${root}`,
      'AllowTcpForwarding no',
      'AllowAgentForwarding no',
      'X11Forwarding no',
      'PermitTTY no',
      'MaxStartups 50',
      'MaxSessions 50',
      'LogLevel VERBOSE',
      '',
    ].join('\n'),
  );

  let log = '';
  const child = spawn(SSHD, ['-D', '-e', '-f', config, '-h', hostKey], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (d: Buffer) => {
    log = (log + d.toString()).slice(-20_000);
  });
  live.add(child);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const c of live) c.kill('SIGKILL');
    });
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const cleanup = () => {
    live.delete(child);
    spawnSync('userdel', ['-f', SFTP_USER]);
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    await waitForBanner(port, exited);
  } catch (err) {
    child.kill('SIGKILL');
    await exited;
    cleanup();
    throw new Error(`could not start a test sshd: ${(err as Error).message}\n${log}`, {
      cause: err,
    });
  }

  return {
    host: '127.0.0.1',
    port,
    user: SFTP_USER,
    password,
    privateKey,
    privateKeyPem,
    hostKeyFingerprint,
    root,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      cleanup();
    },
  };
}

/** Resolves once the server answers with its SSH banner. */
async function waitForBanner(port: number, exited: Promise<void>): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (gone) throw new Error('sshd exited');
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port });
      s.setTimeout(2000, () => {
        s.destroy();
        resolve(false);
      });
      s.once('error', () => resolve(false));
      s.once('data', (d) => {
        s.destroy();
        resolve(d.toString().startsWith('SSH-2.0'));
      });
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('sshd did not answer within 20 s');
}
