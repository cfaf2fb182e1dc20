// What bench:flow needs of a server: the real one as its own process (`node bin/ursa.mjs start`,
// as test/helpers/cli.ts starts it), a REST client for it (uploads, flows, runs polled until
// they end) and the resident memory of its process and any children, sampled from /proc.
import fs from 'node:fs';
import path from 'node:path';
import { lastLine, runCli, startCli, type StartedCli } from '../test/helpers/cli.js';
import { readServerRecord } from '../src/engine/server-record.js';
import { Rest } from './flights-data.js';

const ADMIN = 'admin@example.com';

export interface Job {
  id: string;
  status: string;
  message?: string;
  progress?: { boxes?: Record<string, { status: string }> };
  started?: string;
  finished?: string;
  result?: {
    boxes?: Record<string, { rows: number; ms: number }>;
    outputs?: Array<{ box: string; rows: number }>;
    clusters?: Record<string, { rows: number }>;
  };
}

export interface Finished {
  /** Request sent → job seen finished by the poll. */
  ms: number;
  /** The job's own started → finished. */
  inJobMs: number;
  job: Job;
}

export class ServerProcess {
  private constructor(
    readonly cli: StartedCli,
    readonly dataDir: string,
    /** The node process serving (the one in the data directory's server.json). */
    readonly pid: number,
    readonly project: string,
    private readonly token: string,
  ) {}

  /** Starts a server on a fresh data directory (enterprise plan, loopback APIs allowed). */
  static async start(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
    const cli = await startCli(
      {
        URSA_DATA_DIR: dataDir,
        PORT: '0',
        URSA_DEFAULT_PLAN: 'enterprise',
        URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1',
        URSA_LOG_LEVEL: process.env.URSA_LOG_LEVEL ?? 'warn',
        ...env,
      },
      60_000,
    );
    try {
      const rec = readServerRecord(dataDir);
      if (!rec) throw new Error(`no server.json in ${dataDir}`);
      const t = await runCli(['token', ADMIN], { URSA_DATA_DIR: dataDir, PORT: String(cli.port) });
      if (t.code !== 0) throw new Error(`token failed: ${t.stderr}`);
      const token = lastLine(t.stdout);
      const projects = await fetch(`${cli.url}/api/v1/projects`, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      });
      const body = (await projects.json()) as { projects: Record<string, { id: string }> };
      const project = Object.values(body.projects)[0]?.id;
      if (!project) throw new Error(`no project: ${JSON.stringify(body)}`);
      return new ServerProcess(cli, dataDir, rec.pid, project, token);
    } catch (err) {
      await cli.stop('SIGKILL');
      throw err;
    }
  }

  /** The REST client (bench:aql's): calls and one-shot uploads as the admin. */
  get rest(): Rest {
    return new Rest(this.cli.url, this.project, this.token);
  }

  call(method: string, p: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    return this.rest.call(method, p, body);
  }

  /** A one-shot multipart upload of a local file into the storage root, as `name`. */
  upload(file: string, name: string): Promise<void> {
    return this.rest.upload(file, name);
  }

  /** Saves a flow (a model object of type flow). */
  async saveFlow(ident: string, def: unknown): Promise<void> {
    const r = await this.call('POST', '/pmd/obj', { ident, type: 'flow', name: ident, def });
    if (r.status !== 201) throw new Error(`saving ${ident}: ${r.status} ${JSON.stringify(r.json)}`);
  }

  /**
   * Starts a job (`body` for transform/execute), polls it every `pollMs` until it ends OK;
   * `onPoll` sees every answer.
   */
  async execute(body: unknown, pollMs: number, onPoll?: (j: Job) => void): Promise<Finished> {
    const t0 = performance.now();
    const r = await this.call('POST', '/kodiak/transform/execute', body);
    if (r.status !== 201 && r.status !== 202)
      throw new Error(`execute answered ${r.status}: ${JSON.stringify(r.json)}`);
    const id = (r.json as { link: { id: string }[] }).link[0]!.id;
    for (;;) {
      const j = (await this.call('GET', `/kodiak/scache/obj/${encodeURIComponent(id)}`))
        .json as Job;
      onPoll?.(j);
      if (j.status === 'OK') {
        const ms = performance.now() - t0;
        return { ms, inJobMs: Date.parse(j.finished!) - Date.parse(j.started!), job: j };
      }
      if (j.status === 'ERROR' || j.status === 'CANCELLED')
        throw new Error(`job ${id} ended ${j.status}: ${j.message}`);
      await new Promise((res) => setTimeout(res, pollMs));
    }
  }

  /** `flow` run until it ends OK. */
  runFlow(flow: string, pollMs: number, onPoll?: (j: Job) => void): Promise<Finished> {
    return this.execute({ type: 'flow', id: flow }, pollMs, onPoll);
  }

  async stop(): Promise<void> {
    await this.cli.stop('SIGTERM');
  }
}

// ---- memory --------------------------------------------------------------------------

/** A /proc/<pid>/status field in kB (VmRSS, VmHWM), or 0 when the process is gone. */
function statusKb(pid: number, field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      fs.readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** `pid` and every process below it. */
function tree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    let tasks: string[];
    try {
      tasks = fs.readdirSync(`/proc/${out[i]}/task`);
    } catch {
      continue;
    }
    for (const t of tasks) {
      try {
        const kids = fs.readFileSync(path.join(`/proc/${out[i]}/task`, t, 'children'), 'utf8');
        for (const k of kids.trim().split(/\s+/)) if (k) out.push(Number(k));
      } catch {
        // the thread ended
      }
    }
  }
  return out;
}

/** Resident memory of `pid` and its children, MB. */
export const rssMb = (pid: number): number =>
  tree(pid).reduce((a, p) => a + statusKb(p, 'VmRSS'), 0) / 1024;

/**
 * Samples the resident memory of `pid` (and its children) every `everyMs` while running; the
 * kernel's own high-water mark (VmHWM) of `pid` is reset at the start (clear_refs 5), so the
 * peak is exact for the server process even between samples.
 */
export class RssSampler {
  private timer: NodeJS.Timeout | null = null;
  private peak = 0;
  samples = 0;
  /** What the run is doing (set by the caller); the samples' peak is kept per phase too. */
  phase = 'before the first poll';
  readonly byPhase = new Map<string, number>();
  readonly hwmReset: boolean;

  constructor(
    readonly pid: number,
    everyMs = 20,
  ) {
    let reset = false;
    try {
      fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
      reset = true;
    } catch {
      // not permitted here: the samples alone
    }
    this.hwmReset = reset;
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  private sample(): void {
    const mb = rssMb(this.pid);
    this.peak = Math.max(this.peak, mb);
    this.byPhase.set(this.phase, Math.max(this.byPhase.get(this.phase) ?? 0, mb));
    this.samples++;
  }

  /** Stops sampling; the peak in MB (the larger of the samples and VmHWM when it was reset). */
  stop(): { peakMb: number; sampledMb: number; hwmMb: number | null } {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.sample();
    const hwm = this.hwmReset ? statusKb(this.pid, 'VmHWM') / 1024 : null;
    const children = rssMb(this.pid) - statusKb(this.pid, 'VmRSS') / 1024;
    return {
      peakMb: Math.max(this.peak, hwm === null ? 0 : hwm + children),
      sampledMb: this.peak,
      hwmMb: hwm,
    };
  }
}
