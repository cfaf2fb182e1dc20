// AQL for the front doors: compile (cached per model version), execute as a `report` job
// with results cached per (query, row filter, data version, model version), explain, and
// validation of row-level filters and saved definitions.
import { createHash, randomUUID } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ProjectActor } from '../access/actor.js';
import type { ProjectDatabases } from '../data/databases.js';
import type { Datasets } from '../data/datasets.js';
import type { Prescription } from '../data/prescription.js';
import { conflict, EngineError, notFound } from '../errors.js';
import { FINAL_STATUSES, JobFailure, type Job, type JobRunner } from '../jobs/jobs.js';
import { jobWithoutCounts } from '../jobs/withheld-counts.js';
import { effectiveRoles, visibility } from '../model/acl.js';
import type { ModelStore, ObjectRow } from '../model/store.js';
import { compileText, type Compiled } from './compile.js';
import { AqlError } from './errors.js';
import { examplesFor } from './examples.js';
import { formatCell } from './format.js';
import { hasAgg } from './ir.js';
import { ModelSnapshot } from './model.js';
import { parse } from './parser.js';
import { lookup, resolveExpr, resolveMetricBody, rootCtx, type ResolveEnv } from './resolve.js';
import { filterMeaning, meaningKey } from './row-filter.js';
import { memberHints, type Warning } from './member-hints.js';
import { shownFilter } from './saved-refs.js';
import type { SqlTarget } from './dialect/dialect.js';
import { WarehouseError, type Warehouse } from '../warehouse/warehouse.js';

export interface QueryResult {
  columns: { title: string; kind: string; dataType: string }[];
  rows: string[][];
  /** Why a 0-row answer may be empty: text values in WHERE that match no member. */
  warnings?: Warning[];
}

type Versions = { dataVersion: number; modelVersion: number };

interface CacheEntry {
  key: string;
  file: string;
  rowCount: number;
  /** When it was computed: a warehouse's answers expire (its data changes outside Ursa). */
  at: number;
  warehouse: boolean;
}

/** The datasets a compiled query reads (a warehouse error names them). */
const datasetsOf = (c: Compiled): string[] => [
  ...new Set([
    ...c.leaves.map((l) => l.anchor),
    ...c.objects
      .filter((o) => ['attribute', 'label', 'fact'].includes(o.type))
      .map((o) => o.ident.split('.')[1]!),
  ]),
];

const MAX_COMPILED = 2000;
/** Results up to this size are written without leaving the event loop (~0.1 ms). */
const SYNC_WRITE_BYTES = 64 * 1024;
/** Cells of recent results kept in memory (about a few MB). */
const RECENT_CELLS = 200_000;
const MAX_TEXT = 100_000;

/** Parentheses deeper than this in the generated SQL exceed what DuckDB will plan. */
const MAX_SQL_DEPTH = 250;

/**
 * Deep nesting (thousands of parentheses, NOTs or minus signs, long chains of + that nest
 * in SQL) is a 400 for the caller, never a stack overflow or a DuckDB planning error.
 */
function withinDepth(build: () => Compiled): Compiled {
  const tooDeep = () =>
    new AqlError(
      'the query is nested too deeply (or chains too many operators) to compute; simplify it',
      { line: 1, column: 1, found: '' },
    );
  let c: Compiled;
  try {
    c = build();
  } catch (err) {
    if (err instanceof RangeError) throw tooDeep();
    throw err;
  }
  let depth = 0;
  for (const ch of c.sql) {
    if (ch === '(' && ++depth > MAX_SQL_DEPTH) throw tooDeep();
    else if (ch === ')') depth--;
  }
  return c;
}

/** A query job's count of its result rows. */
const RESULT_COUNTS = new Set(['rowCount']);

export class Aql {
  private snapshots = new Map<string, { version: number; snap: ModelSnapshot }>();
  private compiled = new Map<string, Compiled>();

  constructor(
    private readonly model: ModelStore,
    private readonly datasets: Datasets,
    private readonly dbs: ProjectDatabases,
    private readonly jobs: JobRunner,
    private readonly projectDir: (projectId: string) => string,
    /** TODAY(): "YYYY-MM-DD" in the configured time zone (URSA_TIMEZONE). */
    private readonly today: () => string = () => new Date().toISOString().slice(0, 10),
    /** Warehouse projects' queries compile for and run on their PostgreSQL database. */
    private readonly warehouse: Warehouse | null = null,
  ) {
    // A result's row count is the size of rows computed under its starter's row filter: a
    // reader with one sees it only when theirs means the same now (as result() serves rows).
    jobs.register(
      'report',
      { run: (ctx) => this.runJob(ctx.job, ctx.signal) },
      {
        rowFiltered: async (reader, job) =>
          (job.params as { rowFilter?: string | null }).rowFilter ===
          (await this.rowFilterKey(reader))
            ? job
            : jobWithoutCounts(job, RESULT_COUNTS),
      },
    );
  }

  private inTransaction(): boolean {
    return this.model.inTransaction();
  }

  /** The model of a project, rebuilt only when its model version changes. */
  async snapshot(projectId: string, version?: number): Promise<ModelSnapshot> {
    const modelVersion = version ?? (await this.model.versions(projectId)).modelVersion;
    const hit = this.snapshots.get(projectId);
    if (hit && hit.version === modelVersion) return hit.snap;
    const objects = await this.model.all(projectId);
    const ds = (await this.datasets.rows(projectId)).map((d) => ({
      name: d.name,
      prescription: d.prescription as unknown as Prescription,
    }));
    const snap = new ModelSnapshot(objects, ds);
    // Inside a transaction the version may yet be rolled back and reused: do not remember.
    if (!this.inTransaction()) this.snapshots.set(projectId, { version: modelVersion, snap });
    return snap;
  }

  private targets = new Map<string, { version: number; target: SqlTarget | null }>();

  /**
   * What a project's queries compile for: null for an embedded project (DuckDB), PostgreSQL
   * and its mapped tables for a warehouse project. A binding change bumps the model version.
   */
  async target(projectId: string, version?: number): Promise<SqlTarget | null> {
    if (!this.warehouse) return null;
    const modelVersion = version ?? (await this.model.versions(projectId)).modelVersion;
    const hit = this.targets.get(projectId);
    if (hit && hit.version === modelVersion) return hit.target;
    const target = (await this.warehouse.binding(projectId))
      ? this.warehouse.target(await this.datasets.rows(projectId))
      : null;
    if (!this.inTransaction()) this.targets.set(projectId, { version: modelVersion, target });
    return target;
  }

  private env(a: ProjectActor, snap: ModelSnapshot, seeAll = false): ResolveEnv {
    if (seeAll) return { snap, visible: () => true, counter: { n: 0 } };
    const userroles = [...snap.byIdent.values()].filter((o) => o.type === 'userrole');
    const visible = visibility(a, effectiveRoles(a, userroles));
    return { snap, visible: (o: ObjectRow) => visible(o), counter: { n: 0 } };
  }

  /**
   * What decides which objects the caller reads. A member's roles are their project roles
   * plus the userroles listing their e-mail (effectiveRoles), so the e-mail is part of it:
   * two members with the same project roles may not read the same objects.
   */
  private visibilityKey(a: ProjectActor): string {
    return a.admin || a.mdadmin
      ? '*'
      : `${a.email.toLowerCase()}\u0000${[...a.roles].sort().join(',')}`;
  }

  /**
   * Compiles a query for this caller: their visibility and row-level filter are part of it.
   * `seeAll`: the text is a saved report shared with them (a dashboard share), so it may name
   * objects their roles hide; their row-level filter still applies.
   */
  async compile(
    a: ProjectActor,
    text: string,
    seeAll = false,
    /** The project's versions when the caller read them already (one read per request). */
    versions?: Versions,
  ): Promise<Compiled> {
    if (typeof text !== 'string' || !text.trim()) {
      const ex = examplesFor(this.env(a, await this.snapshot(a.projectId), seeAll));
      throw new AqlError(
        `the query is empty; write e.g. SELECT ${ex.attribute()}, SUM(${ex.fact()})`,
        {
          line: 1,
          column: 1,
          found: '',
        },
      );
    }
    if (text.length > MAX_TEXT)
      throw new AqlError(`the query is longer than ${MAX_TEXT} characters`, {
        line: 1,
        column: 1,
        found: '',
      });
    // One read of the versions: a cached query needs no snapshot at all.
    const { modelVersion } = versions ?? (await this.model.versions(a.projectId));
    // TODAY() is a bound value: a query compiled yesterday is compiled again today.
    const today = this.today();
    const seen = seeAll ? '*' : this.visibilityKey(a);
    const key = `${a.projectId}\u0000${modelVersion}\u0000${today}\u0000${seen}\u0000${a.filter ?? ''}\u0000${text}`;
    const hit = this.compiled.get(key);
    if (hit) return hit;
    const snap = await this.snapshot(a.projectId, modelVersion);
    const target = (await this.target(a.projectId, modelVersion)) ?? undefined;
    const c = withinDepth(() =>
      compileText(text, this.env(a, snap, seeAll), a.filter, today, target),
    );
    if (this.compiled.size >= MAX_COMPILED)
      this.compiled.delete(this.compiled.keys().next().value!);
    if (!this.inTransaction()) this.compiled.set(key, c);
    return c;
  }

  /** Forgets every compiled query (benchmarks measure real compilation with it). */
  clearCompileCache(): void {
    this.compiled.clear();
  }

  /** Forgets which results are stored, so the next run of each computes it (benchmarks). */
  clearResultCache(): void {
    this.forgottenBefore = Date.now() + 1;
    this.memo.clear();
    this.recent.clear();
    this.recentCells = 0;
  }

  async explain(a: ProjectActor, text: string) {
    const c = await this.compile(a, text);
    return {
      columns: c.columns,
      objects: c.objects,
      leaves: c.leaves,
      frame: c.frame,
      dialect: c.dialect,
      sql: c.sql,
      params: c.params,
      rowFilter: shownFilter(await this.snapshot(a.projectId), a),
    };
  }

  /**
   * What the caller's row-level filter means on the current model (null: no filter). A stored
   * result carries it, and is served to a filtered reader only while theirs means the same.
   */
  async rowFilterKey(a: ProjectActor, modelVersion?: number): Promise<string | null> {
    if (!a.filter) return null;
    const snap = await this.snapshot(a.projectId, modelVersion);
    const meaning = meaningKey(filterMeaning(snap, a.filter));
    return createHash('sha256').update(meaning).digest('hex').slice(0, 40);
  }

  /** Starts (or, from the cache, answers at once) the job computing a query. */
  async execute(a: ProjectActor, text: string): Promise<Job> {
    const v = await this.model.versions(a.projectId);
    const c = await this.compile(a, text, false, v);
    const key = this.resultKey(c, v);
    const params = {
      aql: text,
      sql: c.sql,
      params: c.params,
      columns: c.columns,
      key,
      rowFilter: await this.rowFilterKey(a, v.modelVersion),
      datasets: datasetsOf(c),
      ...(c.dialect !== 'duckdb' ? { warehouse: true } : {}),
    };
    const cached = await this.cached(a.projectId, key, c.dialect !== 'duckdb');
    if (cached && this.touch(a.projectId, cached))
      return this.jobs.recordFinished(a, 'report', params, {
        columns: c.columns,
        rowCount: cached.rowCount,
        key,
        cached: true,
      });
    return this.jobs.submit(a, 'report', params);
  }

  /**
   * Starts a query and waits up to `waitMs` for it (every front door's way to answer without
   * polling): the finished job with its result, or the job still under way when the wait is
   * over or `signal` aborts (the caller went away; the job runs on).
   */
  async executeAndWait(
    a: ProjectActor,
    text: string,
    waitMs: number,
    signal?: AbortSignal,
    /** Told the job as soon as it exists (MCP reports progress on it while waiting). */
    onStart?: (job: Job) => void,
  ): Promise<{ job: Job; result?: QueryResult }> {
    let job = await this.execute(a, text);
    onStart?.(job);
    if (!FINAL_STATUSES.includes(job.status) && waitMs > 0 && !signal?.aborted) {
      let onAbort = () => {};
      const aborted = new Promise<null>((resolve) => {
        onAbort = () => resolve(null);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
      try {
        job =
          (await Promise.race([
            this.jobs.finished(a, job.id, waitMs).catch(() => null),
            aborted,
          ])) ?? (await this.jobs.get(a, job.id));
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    }
    return job.status === 'OK' ? { job, result: await this.result(a, job) } : { job };
  }

  /**
   * What a finished report job computed, for `reader` (who may read the job). A reader with
   * a row-level filter gets it only when it was computed under a filter meaning the same as
   * theirs now: after their filter (or what it names) changed, old rows are not served (409).
   */
  async result(reader: ProjectActor, job: Job): Promise<QueryResult> {
    const r = job.result as { key?: string } | undefined;
    if (!r?.key) throw notFound(`job "${job.id}" holds no query result`);
    if (reader.filter) {
      const computed = (job.params as { rowFilter?: string | null }).rowFilter;
      if (computed !== (await this.rowFilterKey(reader)))
        throw conflict(
          `the result of job "${job.id}" was computed under another row-level filter than yours now; run the query again`,
          { id: job.id },
        );
    }
    const file = this.resultFile(job.projectId, r.key);
    try {
      // From memory when recent — but only while its file is still stored (a swept result
      // is gone for every process alike).
      const k = `${job.projectId}/${r.key}`;
      const mem = this.recent.get(k);
      if (mem) await fs.access(file);
      let stored = mem;
      if (!stored) {
        // Computed by another process (or before a restart): kept for the next repeat.
        stored = JSON.parse(await fs.readFile(file, 'utf8')) as QueryResult;
        this.remember(k, stored);
      }
      // Results are shared by every text compiling to the same SQL, but titles (aliases,
      // the text of an expression) are the job's own.
      const columns = (job.params as { columns?: QueryResult['columns'] }).columns;
      const out = columns?.length === stored.columns.length ? { ...stored, columns } : stored;
      if (!out.rows.length) {
        const aql = (job.params as { aql?: string }).aql;
        const warnings = aql ? await this.emptyHints(reader, aql) : [];
        if (warnings.length) return { ...out, warnings };
      }
      return out;
    } catch (err) {
      if (err instanceof EngineError) throw err;
      throw notFound(`the result of job "${job.id}" is no longer stored; run the query again`);
    }
  }

  /** For a 0-row answer: text values in its WHERE that match no member the reader can see. */
  async emptyHints(reader: ProjectActor, aql: string): Promise<Warning[]> {
    let checks;
    try {
      checks = (await this.compile(reader, aql)).valueChecks;
    } catch {
      return []; // the model changed since: nothing to explain
    }
    return checks.length ? memberHints(reader, checks, (a, text) => this.run(a, text)) : [];
  }

  private resultKey(c: Compiled, { dataVersion, modelVersion }: Versions): string {
    return createHash('sha256')
      .update(JSON.stringify([c.sql, c.params, dataVersion, modelVersion]))
      .digest('hex')
      .slice(0, 40);
  }

  private resultFile(projectId: string, key: string): string {
    return path.join(this.projectDir(projectId), 'results', `${key}.json`);
  }

  private memo = new Map<string, CacheEntry>();

  /** Results older than this (epoch ms) count as not stored (clearResultCache). */
  private forgottenBefore = 0;

  /**
   * The stored result of `key`, if any. Another process of a cluster may have computed it:
   * the result files in the shared data directory are the index, this map only its memory.
   * A warehouse's data changes outside Ursa: its answers are served for cacheMs only, and only
   * by the process that computed them (it knows when).
   */
  private async cached(
    projectId: string,
    key: string,
    warehouse = false,
  ): Promise<CacheEntry | null> {
    const k = `${projectId}/${key}`;
    const hit = this.memo.get(k);
    if (hit) {
      if (hit.warehouse && Date.now() - hit.at >= (this.warehouse?.cacheMs ?? 0)) return null;
      return hit;
    }
    if (warehouse) return null;
    const file = this.resultFile(projectId, key);
    try {
      const st = await fs.stat(file);
      if (st.mtimeMs < this.forgottenBefore) return null;
      const stored = JSON.parse(await fs.readFile(file, 'utf8')) as QueryResult;
      const entry = { key, file, rowCount: stored.rows.length, at: st.mtimeMs, warehouse: false };
      this.memo.set(k, entry);
      this.remember(k, stored); // its reader comes next
      return entry;
    } catch {
      return null; // not computed yet, or being replaced
    }
  }

  /** Marks a cached result as read now (retention counts from the last read); false if gone. */
  private touch(projectId: string, entry: CacheEntry): boolean {
    const now = new Date();
    try {
      fsSync.utimesSync(entry.file, now, now);
      return true;
    } catch {
      this.memo.delete(`${projectId}/${entry.key}`);
      return false;
    }
  }

  /**
   * Deletes stored results of these projects not read for `ttlMs` (and temporary files a
   * crash left behind); returns how many files went. Jobs pointing at them answer "run the
   * query again".
   */
  async sweepResults(projectIds: string[], ttlMs: number, now = Date.now()): Promise<number> {
    let removed = 0;
    for (const projectId of projectIds) {
      const dir = path.join(this.projectDir(projectId), 'results');
      let names: string[];
      try {
        names = await fs.readdir(dir);
      } catch {
        continue; // no results yet
      }
      for (const name of names) {
        const file = path.join(dir, name);
        try {
          const st = await fs.stat(file);
          if (now - st.mtimeMs <= ttlMs) continue;
          await fs.rm(file, { force: true });
          removed++;
          if (name.endsWith('.json')) {
            this.memo.delete(`${projectId}/${name.slice(0, -'.json'.length)}`);
            this.forget(`${projectId}/${name.slice(0, -'.json'.length)}`);
          }
        } catch {
          // gone meanwhile
        }
      }
    }
    return removed;
  }

  private async runJob(job: Job, signal: AbortSignal): Promise<unknown> {
    const p = job.params as {
      sql: string;
      params: (string | number | boolean | null)[];
      columns: QueryResult['columns'];
      key: string;
      datasets?: string[];
      warehouse?: boolean;
    };
    const rows = await this.compute(job.projectId, p, signal, job.id);
    return { columns: p.columns, rowCount: rows.length, key: p.key, cached: false };
  }

  /** Runs compiled SQL (interrupted on abort) and stores the rows in the result cache. */
  private async compute(
    projectId: string,
    p: {
      sql: string;
      params: Compiled['params'];
      columns: QueryResult['columns'];
      key: string;
      datasets?: string[];
      /** Compiled for the project's warehouse (PostgreSQL). */
      warehouse?: boolean;
    },
    signal: AbortSignal,
    tag: string,
  ): Promise<string[][]> {
    const rows = p.warehouse
      ? await this.readWarehouse(projectId, p, signal)
      : await this.readEmbedded(projectId, p, signal);
    signal.throwIfAborted();
    const file = this.resultFile(projectId, p.key);
    const dir = path.dirname(file);
    if (!this.dirs.has(dir)) {
      await fs.mkdir(dir, { recursive: true });
      this.dirs.add(dir);
    }
    const tmp = `${file}.${tag}.tmp`;
    const text = JSON.stringify({ columns: p.columns, rows });
    // A small result is written synchronously: three trips through the thread pool (open,
    // write, rename) cost more than the write itself, and the answer waits for them.
    const small = text.length <= SYNC_WRITE_BYTES;
    const write = async () => {
      try {
        if (small) {
          fsSync.writeFileSync(tmp, text);
          fsSync.renameSync(tmp, file);
        } else {
          await fs.writeFile(tmp, text);
          await fs.rename(tmp, file);
        }
      } catch (err) {
        await fs.rm(tmp, { force: true }); // a full disk leaves no partial result behind
        throw err;
      }
    };
    try {
      await write();
    } catch (err) {
      // The directory went away (a project deleted and made again): make it once more.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await fs.mkdir(dir, { recursive: true });
      await write();
    }
    this.memo.set(`${projectId}/${p.key}`, {
      key: p.key,
      file,
      rowCount: rows.length,
      at: Date.now(),
      warehouse: p.warehouse === true,
    });
    this.remember(`${projectId}/${p.key}`, { columns: p.columns, rows });
    return rows;
  }

  private async readEmbedded(
    projectId: string,
    p: { sql: string; params: Compiled['params'] },
    signal: AbortSignal,
  ): Promise<string[][]> {
    return this.dbs.read(projectId, async (c) => {
      const stop = () => c.interrupt();
      signal.addEventListener('abort', stop);
      try {
        signal.throwIfAborted();
        const reader = await c.runAndReadAll(p.sql, p.params);
        return reader.getRowsJson().map((r) => r.map(formatCell));
      } catch (err) {
        signal.throwIfAborted();
        throw new JobFailure(
          `the query failed while running: ${String((err as Error).message).split('\n')[0]}`,
        );
      } finally {
        signal.removeEventListener('abort', stop);
      }
    });
  }

  /** On the warehouse: its errors end the job ERROR naming the datasets, never a 500. */
  private async readWarehouse(
    projectId: string,
    p: { sql: string; params: Compiled['params']; datasets?: string[] },
    signal?: AbortSignal,
  ): Promise<string[][]> {
    try {
      return await this.warehouse!.read(projectId, p.sql, p.params, signal);
    } catch (err) {
      signal?.throwIfAborted();
      if (err instanceof WarehouseError || err instanceof EngineError) {
        const ds = p.datasets?.length
          ? ` reading dataset${p.datasets.length > 1 ? 's' : ''} ${p.datasets.join(', ')}`
          : '';
        throw new JobFailure(`the warehouse (PostgreSQL) could not answer${ds}: ${err.message}`);
      }
      throw err;
    }
  }

  /** Result directories known to exist (a mkdir per query costs more than the write). */
  private dirs = new Set<string>();

  /**
   * The latest results, in memory as well as in their files: the answer a waiting caller
   * reads right after its job ends, and repeats, skip reading the file back. The files stay
   * the record (other processes and restarts read those); this only saves work.
   */
  private recent = new Map<string, QueryResult>();
  private recentCells = 0;

  private remember(key: string, r: QueryResult): void {
    const cells = r.rows.length * Math.max(1, r.columns.length);
    if (cells > RECENT_CELLS / 4) return; // a big result is read from its file
    this.forget(key);
    this.recent.set(key, r);
    this.recentCells += cells;
    for (const [k] of this.recent) {
      if (this.recentCells <= RECENT_CELLS) break;
      this.forget(k);
    }
  }

  private forget(key: string): void {
    const r = this.recent.get(key);
    if (!r) return;
    this.recent.delete(key);
    this.recentCells -= r.rows.length * Math.max(1, r.columns.length);
  }

  /**
   * Runs a query for this caller now, without a job, sharing the result cache (the AI agent's
   * queries: they run inside its own job and stop with it).
   */
  async query(
    a: ProjectActor,
    text: string,
    signal: AbortSignal,
    opts: { seeAll?: boolean } = {},
  ): Promise<QueryResult> {
    const v = await this.model.versions(a.projectId);
    const c = await this.compile(a, text, opts.seeAll, v);
    const key = this.resultKey(c, v);
    const columns = c.columns;
    const hit = await this.cached(a.projectId, key, c.dialect !== 'duckdb');
    if (hit && this.touch(a.projectId, hit)) {
      try {
        const stored = JSON.parse(
          await fs.readFile(this.resultFile(a.projectId, key), 'utf8'),
        ) as QueryResult;
        return await this.withHints(a, text, { columns, rows: stored.rows });
      } catch {
        // the file went away: compute it again
      }
    }
    const rows = await this.compute(
      a.projectId,
      {
        sql: c.sql,
        params: c.params,
        columns,
        key,
        datasets: datasetsOf(c),
        warehouse: c.dialect !== 'duckdb',
      },
      signal,
      randomUUID(),
    );
    return this.withHints(a, text, { columns, rows });
  }

  private async withHints(a: ProjectActor, text: string, r: QueryResult): Promise<QueryResult> {
    if (r.rows.length) return r;
    const warnings = await this.emptyHints(a, text);
    return warnings.length ? { ...r, warnings } : r;
  }

  /** A row-level filter must be a valid condition on the current model (400 otherwise). */
  async validateCondition(projectId: string, text: string): Promise<void> {
    // The error says it is about the member's `filter` field, then what AQL found.
    const refuse = (why: string, context: Record<string, unknown> = {}) =>
      new AqlError(`invalid row-level filter: ${why}`, {
        line: 1,
        column: 1,
        found: text,
        ...context,
        field: 'filter',
        value: text,
      });
    if (!text.trim()) throw refuse('it is empty; use null to remove a filter');
    const snap = await this.snapshot(projectId);
    const env: ResolveEnv = { snap, visible: () => true, counter: { n: 0 } };
    let v;
    try {
      v = resolveExpr(parse(text, 'condition'), rootCtx(env, true));
    } catch (err) {
      if (err instanceof AqlError) throw refuse(err.message, err.context);
      throw err;
    }
    if (hasAgg(v)) throw refuse('it is a condition on attributes; it cannot aggregate');
  }

  /** Whether a saved metric, filter or report still compiles: null, or why not. */
  async checkCompiles(
    a: ProjectActor,
    text: string,
    kind: 'metric' | 'filter' | 'report',
  ): Promise<string | null> {
    try {
      const snap = await this.snapshot(a.projectId);
      const env: ResolveEnv = { snap, visible: () => true, counter: { n: 0 } };
      if (kind === 'report') withinDepth(() => compileText(text, env, null, this.today()));
      else if (kind === 'filter') resolveExpr(parse(text, 'condition'), rootCtx(env, true));
      else {
        const body = parse(text, 'metric');
        resolveMetricBody(body, rootCtx(env, true));
      }
      return null;
    } catch (err) {
      if (err instanceof EngineError) return err.message;
      if (err instanceof RangeError) return 'the definition is nested too deeply to compute';
      throw err;
    }
  }

  /** Runs a query now, without a job (engine-internal uses: catalogs, value lists). */
  async run(a: ProjectActor, text: string): Promise<string[][]> {
    const c = await this.compile(a, text);
    if (c.dialect !== 'duckdb') {
      try {
        return await this.readWarehouse(a.projectId, { ...c, datasets: datasetsOf(c) });
      } catch (err) {
        if (err instanceof JobFailure) throw new EngineError('invalid', err.message);
        throw err;
      }
    }
    return this.dbs.read(a.projectId, async (conn) =>
      (await conn.runAndReadAll(c.sql, c.params)).getRowsJson().map((r) => r.map(formatCell)),
    );
  }

  /** The datasets a metric aggregates on (its leaves' anchors). */
  async anchors(a: ProjectActor, metric: string): Promise<string[]> {
    try {
      return [
        ...new Set((await this.compile(a, `SELECT [${metric}]`)).leaves.map((l) => l.anchor)),
      ];
    } catch {
      return []; // a metric that does not compile breaks nothing down
    }
  }

  /** An object the caller may see, by identifier or title (AQL's rules and errors). */
  async lookup(a: ProjectActor, name: string): Promise<ObjectRow> {
    const snap = await this.snapshot(a.projectId);
    return lookup(rootCtx(this.env(a, snap)), name, {
      offset: 0,
      line: 1,
      column: 1,
      text: `[${name}]`,
    });
  }
}
