// Runs the real command line as a child process: `bin/ursa.mjs`, what `npm run ursa` runs.
import { testDatabase } from './server.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * How tests run a TypeScript entry point: this Node with tsx's loader, one process (the `tsx`
 * command starts a second node for the script, and each of them loads Node and tsx).
 */
export const NODE_TSX = { command: process.execPath, args: ['--import', 'tsx'] };
/** How tests run the `ursa` command: its launcher, which starts the bundle of src/cli.ts. */
export const URSA = { command: process.execPath, args: ['bin/ursa.mjs'] };

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The test runner's environment without any Ursa setting that could leak in. */
export function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('URSA_') && k !== 'PORT' && k !== 'HOST',
    ),
  );
  // As in startTestServer: the demo project is created without loading its demo data.
  // On the PostgreSQL shape a data directory's metadata is its own database (server.ts).
  const db = env.URSA_DATA_DIR ? testDatabase(env.URSA_DATA_DIR) : {};
  return { ...base, URSA_LOG_LEVEL: 'warn', URSA_DEMO_DATA: 'false', ...db, ...env };
}

function spawnCli(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(URSA.command, [...URSA.args, ...args], {
    cwd: ROOT,
    env: cliEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group: a kill must reach whatever the command started.
    detached: true,
  });
}

/** Kills the command and whatever it started (its process group). */
export function killTree(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

function collect(child: ChildProcess, timeoutMs: number): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      killTree(child);
      reject(
        new Error(`cli did not exit within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`),
      );
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Runs one command to its end; `input` is written to its stdin (then closed). */
export function runCli(
  args: string[],
  env: Record<string, string>,
  opts: { input?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const child = spawnCli(args, env);
  const done = collect(child, opts.timeoutMs ?? 30_000);
  child.stdin!.end(opts.input ?? '');
  return done;
}

/** The last non-empty line of a command's stdout (where `token` prints the token). */
export const lastLine = (s: string) => s.trim().split('\n').pop()!.trim();

export interface StartedCli {
  url: string;
  port: number;
  child: ChildProcess;
  /** Resolves with how the process ended (all its output included). */
  exited: Promise<CliResult>;
  stop(signal?: NodeJS.Signals): Promise<CliResult>;
}

/** `start`: resolves once the process printed where it runs. */
export async function startCli(
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<StartedCli> {
  const child = spawnCli(['start'], env);
  const exited = collect(child, 10 * 60_000);
  child.stdin!.end();
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`start printed no address within ${timeoutMs} ms: ${out}`)),
      timeoutMs,
    );
    child.stdout!.on('data', (d: string) => {
      out += d;
      const m = /Ursa is running at (http:\/\/localhost:(\d+))/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    exited.then(
      (r) => {
        clearTimeout(timer);
        reject(new Error(`start exited with ${r.code} before serving: ${r.stderr}`));
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err as Error);
      },
    );
  });
  return {
    url,
    port: Number(new URL(url).port),
    child,
    exited,
    /** SIGTERM/SIGINT go to the command as an operator sends them; SIGKILL to its group. */
    stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (signal === 'SIGKILL') killTree(child);
      else if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
