// Job test helpers: handlers scripted per job (through `params.script`), gates the test
// resolves to move a job on, and HTTP polling of the scache resource.
import { JOB_TYPES, type JobContext } from '../../src/engine/jobs/jobs.js';
import type { Engine } from '../../src/engine/engine.js';
import { ADMIN, type ApiResponse } from './server.js';

export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(v: T): void;
  reject(e: unknown): void;
  settled: boolean;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const d: Deferred<T> = {
    promise,
    settled: false,
    resolve: (v) => {
      d.settled = true;
      resolve(v);
    },
    reject: (e) => {
      d.settled = true;
      reject(e);
    },
  };
  return d;
}

export interface Script {
  expand?(ctx: JobContext): Promise<void>;
  run(ctx: JobContext): Promise<unknown>;
}

/** Resolves when the gate opens, rejects with the abort reason when the job is cancelled. */
export function gateOrAbort(gate: Promise<unknown>, ctx: JobContext): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (ctx.signal.aborted) return reject(ctx.signal.reason);
    ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
    gate.then(() => resolve(), reject);
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One handler per job type that dispatches to the script named in the job's params, so
 * every test decides how its own jobs behave on a shared server.
 */
export class Scripts {
  private scripts = new Map<string, Script>();
  private n = 0;
  /** Gates created through `gate()`; `releaseAll()` opens them so no job is left hanging. */
  private gates: Deferred[] = [];

  install(engine: Engine): void {
    for (const type of JOB_TYPES) {
      engine.jobs.register(type, {
        expand: async (ctx) => {
          await this.of(ctx).expand?.(ctx);
        },
        run: (ctx) => this.of(ctx).run(ctx),
      });
    }
  }

  add(script: Script): { script: string } {
    const key = `script-${++this.n}`;
    this.scripts.set(key, script);
    return { script: key };
  }

  gate(): Deferred {
    const g = deferred();
    this.gates.push(g);
    return g;
  }

  releaseAll(): void {
    for (const g of this.gates) if (!g.settled) g.resolve();
    this.gates = [];
  }

  private of(ctx: JobContext): Script {
    const s = this.scripts.get(String(ctx.job.params.script));
    if (!s) throw new Error(`no script ${String(ctx.job.params.script)}`);
    return s;
  }
}

type Api = (
  method: string,
  path: string,
  opts?: { as?: string | null; accept?: string },
) => Promise<ApiResponse>;

export const jobsPath = (project: string) => `/projects/${project}/kodiak/scache/obj`;
export const jobPath = (project: string, id: string) => `${jobsPath(project)}/${id}`;

export interface JobJson {
  id: string;
  type: string;
  status: string;
  message?: string;
  created: string;
  started?: string;
  finished?: string;
  progress?: Record<string, unknown>;
  result?: unknown;
  link: Array<{ rel: string; href: string; id?: string }>;
  [k: string]: unknown;
}

/** GETs the job over HTTP until `until` holds (every answer must be a 200). */
export async function pollJob(
  api: Api,
  project: string,
  id: string,
  until: (j: JobJson) => boolean,
  opts: { as?: string; timeoutMs?: number } = {},
): Promise<JobJson> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  let last: JobJson | undefined;
  for (;;) {
    const r = await api('GET', jobPath(project, id), { as: opts.as ?? ADMIN });
    if (r.status !== 200) throw new Error(`GET job ${id} answered ${r.status}: ${r.text}`);
    last = r.json as JobJson;
    if (until(last)) return last;
    if (Date.now() > deadline)
      throw new Error(`job ${id} still ${last.status} after ${opts.timeoutMs ?? 10_000} ms`);
    await sleep(15);
  }
}

export const FINAL = ['OK', 'ERROR', 'CANCELLED'];
export const isFinal = (j: JobJson) => FINAL.includes(j.status);
export const hasStatus = (status: string) => (j: JobJson) => j.status === status;
