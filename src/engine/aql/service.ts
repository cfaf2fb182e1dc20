// AQL for the front doors: compile (cached per model version) for the project's backend,
// execute as a `report` job on it with results cached per (query, row filter, data version,
// model version) (result-cache.ts), explain, and validation of row-level filters and saved
// definitions. Which database answers is the backend's business (backends/).
import { createHash, randomUUID } from 'node:crypto';
import type { ProjectActor } from '../access/actor.js';
import type { QueryBackend } from '../backends/backend.js';
import type { Backends } from '../backends/create.js';
import type { Datasets } from '../data/datasets.js';
import type { Prescription } from '../data/prescription.js';
import { conflict, EngineError, notFound } from '../errors.js';
import { FINAL_STATUSES, JobFailure, type Job, type JobRunner } from '../jobs/jobs.js';
import { jobWithoutCounts } from '../jobs/withheld-counts.js';
import { effectiveRoles, visibility } from '../model/acl.js';
import type { ModelStore, ObjectRow } from '../model/store.js';
import { compileText, datasetsOf, type Compiled } from './compile.js';
import { AqlError } from './errors.js';
import { examplesFor } from './examples.js';
import { hasAgg } from './ir.js';
import { compactNested } from './format.js';
import { ModelSnapshot } from './model.js';
import { parse } from './parser.js';
import { lookup, resolveExpr, resolveMetricBody, rootCtx, type ResolveEnv } from './resolve.js';
import { filterMeaning, meaningKey } from './row-filter.js';
import { memberHints, type Warning } from './member-hints.js';
import { shownFilter } from './saved-refs.js';
import type { SqlTarget } from './dialect/dialect.js';
import { ResultCache, type QueryResult } from './result-cache.js';
import { withinDepth } from './within-depth.js';

export type { QueryResult };

type Versions = { dataVersion: number; modelVersion: number };

const MAX_COMPILED = 2000;
const MAX_TEXT = 100_000;

/** A query job's count of its result rows. */
const RESULT_COUNTS = new Set(['rowCount']);

export class Aql {
  private snapshots = new Map<string, { version: number; snap: ModelSnapshot }>();
  private compiled = new Map<string, Compiled>();

  constructor(
    private readonly model: ModelStore,
    private readonly datasets: Datasets,
    /** Where each project's queries run (and what they compile for). */
    private readonly backends: Backends,
    private readonly jobs: JobRunner,
    projectDir: (projectId: string) => string,
    /** TODAY(): "YYYY-MM-DD" in the configured time zone (URSA_TIMEZONE). */
    private readonly today: () => string = () => new Date().toISOString().slice(0, 10),
  ) {
    this.results = new ResultCache(projectDir);
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

  private readonly results: ResultCache;

  private backendsOf = new Map<
    string,
    { version: number; backend: QueryBackend; target: SqlTarget }
  >();

  /**
   * Where a project's queries run and what they compile for (DuckDB over its versions, or
   * PostgreSQL over its mapped tables), chosen once per model version: a binding change or a
   * dataset's new table bumps it.
   */
  private async backendOf(
    projectId: string,
    version?: number,
  ): Promise<{ backend: QueryBackend; target: SqlTarget }> {
    const modelVersion = version ?? (await this.model.versions(projectId)).modelVersion;
    const hit = this.backendsOf.get(projectId);
    if (hit && hit.version === modelVersion) return hit;
    const backend = (await this.backends.of(projectId)).query;
    const found = { version: modelVersion, backend, target: await backend.target(projectId) };
    if (!this.inTransaction()) this.backendsOf.set(projectId, found);
    return found;
  }

  /** What a project's queries compile for: the SQL dialect and its datasets' relations. */
  async target(projectId: string, version?: number): Promise<SqlTarget> {
    return (await this.backendOf(projectId, version)).target;
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
    const target = await this.target(a.projectId, modelVersion);
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
    this.results.clear();
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
    const { backend } = await this.backendOf(a.projectId, v.modelVersion);
    const params = {
      aql: text,
      sql: c.sql,
      params: c.params,
      columns: c.columns,
      key,
      rowFilter: await this.rowFilterKey(a, v.modelVersion),
      datasets: datasetsOf(c),
      ...backend.jobParams,
    };
    const cached = await this.results.cached(a.projectId, key, backend.resultTtlMs);
    if (cached && this.results.touch(a.projectId, cached))
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
            this.jobs.finishedOwn(a, job, waitMs).catch(() => null),
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
    try {
      const stored = await this.results.stored(job.projectId, r.key);
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

  /**
   * Deletes stored results of these projects not read for `ttlMs` (and temporary files a
   * crash left behind); returns how many files went. Jobs pointing at them answer "run the
   * query again".
   */
  async sweepResults(projectIds: string[], ttlMs: number, now = Date.now()): Promise<number> {
    return this.results.sweep(projectIds, ttlMs, now);
  }

  private async runJob(job: Job, signal: AbortSignal): Promise<unknown> {
    const p = job.params as {
      sql: string;
      params: (string | number | boolean | null)[];
      columns: QueryResult['columns'];
      key: string;
      datasets?: string[];
    };
    const { backend } = await this.backendOf(job.projectId);
    const rows = await this.compute(job.projectId, backend, p, signal, job.id);
    return { columns: p.columns, rowCount: rows.length, key: p.key, cached: false };
  }

  /**
   * Runs compiled SQL on its backend (interrupted on abort) and stores the rows in the result
   * cache. The backend's errors end the job ERROR in its words, never a 500.
   */
  private async compute(
    projectId: string,
    backend: QueryBackend,
    p: {
      sql: string;
      params: Compiled['params'];
      columns: QueryResult['columns'];
      key: string;
      datasets?: string[];
    },
    signal: AbortSignal,
    tag: string,
  ): Promise<string[][]> {
    let rows: string[][];
    try {
      rows = (await backend.read(projectId, p.sql, p.params, signal)).rows;
    } catch (err) {
      signal.throwIfAborted();
      const why = backend.describeError(err, p.datasets ?? []);
      if (why === null) throw err;
      throw new JobFailure(why);
    }
    signal.throwIfAborted();
    // Nested cells (NEST) as compact JSON, whichever database wrote them and its spacing.
    const nested = p.columns.flatMap((c, i) => (c.dataType === 'nested' ? [i] : []));
    if (nested.length) rows = rows.map((r) => compactNested(r, nested));
    await this.results.store(
      projectId,
      p.key,
      { columns: p.columns, rows },
      backend.resultTtlMs,
      tag,
    );
    return rows;
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
    const { backend } = await this.backendOf(a.projectId, v.modelVersion);
    const hit = await this.results.cached(a.projectId, key, backend.resultTtlMs);
    if (hit && this.results.touch(a.projectId, hit)) {
      try {
        const stored = await this.results.read(a.projectId, key);
        return await this.withHints(a, text, { columns, rows: stored.rows });
      } catch {
        // the file went away: compute it again
      }
    }
    const rows = await this.compute(
      a.projectId,
      backend,
      { sql: c.sql, params: c.params, columns, key, datasets: datasetsOf(c) },
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
      if (kind === 'report') {
        const target = await this.target(a.projectId);
        withinDepth(() => compileText(text, env, null, this.today(), target));
      } else if (kind === 'filter') resolveExpr(parse(text, 'condition'), rootCtx(env, true));
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

  /**
   * Runs a query now, without a job (engine-internal uses: catalogs, value lists); what its
   * backend could not answer is a 400 in the backend's words.
   */
  async run(a: ProjectActor, text: string): Promise<string[][]> {
    const v = await this.model.versions(a.projectId);
    const c = await this.compile(a, text, false, v);
    const { backend } = await this.backendOf(a.projectId, v.modelVersion);
    try {
      return (await backend.read(a.projectId, c.sql, c.params)).rows;
    } catch (err) {
      const why = backend.describeError(err, datasetsOf(c));
      if (why === null) throw err;
      throw new EngineError('invalid', why);
    }
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
