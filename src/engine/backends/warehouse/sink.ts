// Loads of a warehouse project: staged and checked in a scratch DuckDB as for an embedded
// one, then written to tables of the bound schema in one PostgreSQL transaction
// (warehouse/load.ts), under the project's write lock like every load.
import type { ClusterLoad, LoadResult, LoadSteps, LoadTarget } from '../../data/load-types.js';
import type { WriteLocks } from '../../data/write-lock.js';
import type { JobContext } from '../../jobs/jobs.js';
import type { WarehouseLoads } from '../../warehouse/load.js';
import type { DatasetSink } from '../backend.js';

export class WarehouseSink implements DatasetSink {
  readonly kind = 'warehouse';
  // Its joins read the embedded datasets, and a reload knows the package by the dataset's
  // source, which a warehouse load records as its table: not offered here (yet).
  readonly packageRefusal =
    "data packages load into embedded projects; this is a warehouse project: load the package's rows as a file instead";

  constructor(
    private readonly loads: WarehouseLoads,
    private readonly locks: WriteLocks,
  ) {}

  check(projectId: string, targets: LoadTarget[]): Promise<void> {
    return this.loads.check(projectId, targets);
  }

  write(ctx: JobContext, plan: ClusterLoad[], steps: LoadSteps): Promise<LoadResult> {
    return this.locks.with(ctx.job.projectId, ctx.signal, (confirm) =>
      this.loads.write(ctx, plan, {
        ...steps,
        beforeCommit: async (totals) => {
          await steps.beforeCommit(totals);
          await confirm(); // still the project's only writer, just before the COMMIT
        },
      }),
    );
  }
}
