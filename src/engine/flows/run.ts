// One flow run: every box in order in the run's own DuckDB, outputs prepared as files, then
// committed together only when every box succeeded (FLOWS.md "Runs"). A cancel or a failure
// before the commit leaves every dataset and file as it was.
import type { ClusterLoad, LoadResult } from '../data/loads.js';
import { EngineError } from '../errors.js';
import { JobFailure, type JobContext } from '../jobs/jobs.js';
import type { StorageItem } from '../storage/storage.js';
import { BOXES } from './boxes.js';
import type { Credentials, NetPolicy } from './connectors/types.js';
import { BoxError } from './errors.js';
import type { FlowColumn } from './expressions.js';
import type { FlowGraph } from './flow-def.js';
import { firstLine, readInput } from './inputs.js';
import {
  prepareOutput,
  stageFromFile,
  type DatasetContext,
  type PreparedOutput,
} from './outputs.js';
import { Scratch } from './scratch.js';
import { transformSql, type InputTable } from './transforms.js';

export interface BoxResult {
  rows: number;
  ms: number;
}

export interface FlowRunResult {
  boxes: Record<string, BoxResult>;
  outputs: Array<
    | { box: string; type: 'output.dataset'; dataset: string; mode: string; rows: number }
    | { box: string; type: 'output.storage'; path: string; rows: number }
  >;
  dataVersion?: number;
}

export interface RunDeps {
  flow: string;
  user: string;
  graph: FlowGraph;
  scratchDir: string;
  /** Folders the run may read (the project's files). */
  readable: string[];
  today: string;
  net: NetPolicy;
  localFile(storagePath: string): Promise<string>;
  matchFiles(pattern: string, box: string): Promise<string[]>;
  credentials(ident: string): Promise<Credentials>;
  dataset(name: string): Promise<DatasetContext>;
  /** Loads datasets in one transaction; `beforeCommit` runs inside it, last. */
  load(
    ctx: JobContext,
    clusters: ClusterLoad[],
    beforeCommit: () => Promise<void>,
  ): Promise<LoadResult>;
  writeFile(storagePath: string, file: string): Promise<StorageItem>;
  /** Refuses (402) files that together would not fit the plan's storage, before any is written. */
  checkRoom(files: Array<{ path: string; file: string }>): Promise<void>;
  /**
   * Checks made again before anything is written: an incremental dataset's shape, and whether
   * the run's actor may load these datasets now (the rule of every load: titles, row filters).
   */
  checkLoads(loads: ClusterLoad[]): Promise<void>;
}

export async function runFlow(ctx: JobContext, deps: RunDeps): Promise<FlowRunResult> {
  const { graph } = deps;
  const boxes: Record<string, BoxResult> = {};
  const progress: Record<string, { status: string; rows?: number; ms?: number }> = {};
  for (const id of graph.order) progress[id] = { status: 'waiting' };
  const report = () => ctx.progress({ boxes: progress });
  const tables = new Map<string, { table: string; columns: FlowColumn[] }>();
  const prepared: PreparedOutput[] = [];
  const s = await Scratch.open(deps.scratchDir, deps.readable, ctx.signal);
  try {
    for (const [n, id] of graph.order.entries()) {
      const box = graph.boxes.get(id)!;
      const kind = BOXES.get(box.type)!.kind;
      const table = `b${n}`;
      const started = Date.now();
      progress[id] = { status: 'running' };
      report();
      let rows: number;
      try {
        if (kind === 'input') {
          rows = (
            await readInput(box, table, s, {
              localFile: deps.localFile,
              matchFiles: deps.matchFiles,
              credentials: deps.credentials,
              net: deps.net,
              signal: ctx.signal,
              progress: (r) => {
                progress[id] = { status: 'running', rows: r };
                report();
              },
            })
          ).rows;
          tables.set(id, { table, columns: await s.columns(table) });
        } else if (kind === 'transform') {
          const inputs: InputTable[] = graph.inputs
            .get(id)!
            .map((from) => ({ box: from, ...tables.get(from)! }));
          const made = await s.table(table, transformSql(box, inputs, deps.today));
          tables.set(id, { table, columns: made.columns });
          rows = made.rows;
        } else {
          const from = tables.get(graph.inputs.get(id)![0]!)!;
          rows = await s.count(from.table);
          prepared.push(
            await prepareOutput(box, from.table, from.columns, rows, s, deps.flow, deps.dataset),
          );
        }
      } catch (err) {
        progress[id] = { status: 'failed' };
        report();
        ctx.signal.throwIfAborted();
        if (err instanceof BoxError || (err as { kind?: string }).kind) throw err;
        // DuckDB's own words (a cast that fails on a value, a type mismatch) name the box.
        throw new BoxError(id, null, firstLine(err));
      }
      boxes[id] = { rows, ms: Date.now() - started };
      progress[id] = { status: 'done', ...boxes[id] };
      report();
      ctx.signal.throwIfAborted();
    }
    // The loader reports its own progress while it commits; the boxes stay in view beside it.
    const committing: JobContext = {
      ...ctx,
      progress: (p) => ctx.progress({ boxes: progress, commit: p }),
    };
    return await commit(committing, deps, prepared, boxes);
  } finally {
    await s.close();
  }
}

/** Outputs become visible together, only now. */
async function commit(
  ctx: JobContext,
  deps: RunDeps,
  prepared: PreparedOutput[],
  boxes: Record<string, BoxResult>,
): Promise<FlowRunResult> {
  ctx.signal.throwIfAborted();
  const files = prepared.filter((p) => p.type === 'output.storage');
  const loads: ClusterLoad[] = prepared
    .filter((p) => p.type === 'output.dataset')
    .map((p) => {
      const { columns: _c, ...load } = p.load!;
      return { ...load, stage: (c) => stageFromFile(c, p).then(() => undefined) };
    });
  const names = new Set<string>();
  for (const l of loads) {
    if (names.has(l.name))
      throw new BoxError(
        prepared.find((p) => p.load?.name === l.name)!.box,
        'dataset',
        `two outputs write dataset "${l.name}"`,
      );
    names.add(l.name);
  }
  try {
    if (loads.length) await deps.checkLoads(loads);
  } catch (err) {
    throw loaderError(err, prepared);
  }
  // The likely failure of a storage write (the plan's room) comes before anything is written.
  if (files.length) await deps.checkRoom(files.map((f) => ({ path: f.path!, file: f.file })));
  const writeFiles = async () => {
    ctx.signal.throwIfAborted();
    for (const f of files)
      await deps.writeFile(f.path!, f.file).catch((err: unknown) => {
        // Storage's refusal (a folder at the path, a file where a folder must be) names the box.
        throw err instanceof EngineError ? new BoxError(f.box, 'path', err.message) : err;
      });
  };
  const outputs: FlowRunResult['outputs'] = [];
  let dataVersion: number | undefined;
  if (loads.length) {
    try {
      dataVersion = (await deps.load(ctx, loads, writeFiles)).dataVersion;
    } catch (err) {
      throw loaderError(err, prepared);
    }
  } else await writeFiles();
  for (const p of prepared)
    outputs.push(
      p.type === 'output.storage'
        ? { box: p.box, type: p.type, path: p.path!, rows: p.rows }
        : {
            box: p.box,
            type: p.type,
            dataset: p.load!.name,
            mode: p.load!.mode,
            rows: p.rows,
          },
    );
  return { boxes, outputs, ...(dataVersion !== undefined ? { dataVersion } : {}) };
}

/** The loader names the dataset ("cluster"); a flow's reader wants the box and its field. */
function loaderError(err: unknown, prepared: PreparedOutput[]): unknown {
  if (!(err instanceof JobFailure) || err instanceof BoxError) return err;
  const m = /^cluster "([^"]+)": ([\s\S]*)$/.exec(err.message);
  const out = m && prepared.find((p) => p.load?.name === m[1]);
  if (!m || !out) return err;
  const field = /primary key/.test(m[2]!) ? 'primarykey' : 'dataset';
  return new BoxError(out.box, field, `dataset "${m[1]}": ${m[2]}`);
}
