// Loads of an embedded project: every cluster is written into a new DuckDB version file and
// they are published together (data/databases.ts), so queries read the old versions until the
// load commits and a failure leaves them as they were.
import type { ProjectDatabases } from '../../data/databases.js';
import type { ClusterLoad, LoadResult, LoadSteps, LoadTarget } from '../../data/load-types.js';
import { replaceSql, upsertSql } from '../../data/load-sql.js';
import type { JobContext } from '../../jobs/jobs.js';
import type { DatasetSink } from '../backend.js';

export class EmbeddedSink implements DatasetSink {
  readonly kind = 'embedded';
  readonly packageRefusal = null;

  constructor(private readonly dbs: ProjectDatabases) {}

  /** Nothing to check before the job: the version files are Ursa's own. */
  async check(_projectId: string, _targets: LoadTarget[]): Promise<void> {}

  write(ctx: JobContext, plan: ClusterLoad[], steps: LoadSteps): Promise<LoadResult> {
    const targets = plan.map((cl) => ({ name: cl.name, mode: cl.mode }));
    return this.dbs.write(ctx.job.projectId, targets, ctx.signal, async (w, c) => {
      const stop = () => c.interrupt();
      ctx.signal.addEventListener('abort', stop);
      const counts: Record<string, number> = {};
      const totals: Record<string, number> = {};
      try {
        await c.run('SET enable_progress_bar = true');
        await c.run('SET enable_progress_bar_print = false');
        await c.run("SET TimeZone = 'UTC'"); // datetimes are stored in UTC (load-sql.ts)
        for (const cl of plan) {
          await w.writer.use(cl.name);
          counts[cl.name] = await steps.stage(c, cl);
          const p = cl.prescription;
          for (const sql of cl.mode === 'incremental' ? upsertSql(p) : replaceSql(p))
            await c.run(sql);
        }
        ctx.signal.throwIfAborted();
      } finally {
        ctx.signal.removeEventListener('abort', stop);
      }
      const versions = await w.writer.finish();
      for (const v of versions) totals[v.cluster] = v.rows;
      await steps.beforeCommit(totals);
      // Published with the records, before the lock is released: the next load sees it all.
      return steps.record(counts, totals, {}, () => w.publish(versions));
    });
  }
}
