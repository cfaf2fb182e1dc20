// Data packages: `store/package` lists them, `package/obj` writes the chosen one's file into
// project storage (/packages/<id>.csv) and loads it as a normal load job with an explicit
// prescription, after recording the references `joinTo` asks for.
import { z } from 'zod';
import { requireLevel, type ProjectActor } from '../../access/actor.js';
import { type Db, tx } from '../../db/index.js';
import { conflict, invalid } from '../../errors.js';
import type { Job } from '../../jobs/jobs.js';
import type { Storage } from '../../storage/storage.js';
import { parseInput } from '../../validate.js';
import type { ProjectDatabases } from '../databases.js';
import type { Datasets } from '../datasets.js';
import type { Loads } from '../loads.js';
import type { Prescriptions } from '../prescriptions.js';
import { PACKAGES, packageById } from './catalog.js';
import { applyJoins, planJoins } from './joins.js';
import { describePackage, packagePrescription, type DataPackage } from './package.js';

const bodySchema = z
  .object({
    package: z.string().min(1),
    parameters: z.record(z.string(), z.unknown()).optional(),
    joinTo: z
      .array(z.object({ dataset: z.string().min(1), column: z.string().min(1) }).strict())
      .max(100)
      .optional(),
  })
  .strict();

/** Where a package's file is written in project storage. */
export const packageSource = (pkg: DataPackage): string => `/packages/${pkg.id}.csv`;

export class Packages {
  constructor(
    private readonly db: Db,
    private readonly storage: Storage,
    private readonly dbs: ProjectDatabases,
    private readonly datasets: Datasets,
    private readonly prescriptions: Prescriptions,
    private readonly loads: Loads,
  ) {}

  list(_a: ProjectActor) {
    return PACKAGES.map(describePackage);
  }

  /** Validates everything (400s now, not as failed jobs), then starts the load job. */
  async load(a: ProjectActor, body: unknown): Promise<Job> {
    requireLevel(a, 'mdadmin');
    const input = parseInput(bodySchema, body, 'package request');
    const pkg = packageById(input.package);
    if (!pkg) {
      const known = PACKAGES.map((p) => p.id);
      throw invalid(`no data package "${input.package}"; packages: ${known.join(', ')}`, {
        field: 'package',
        value: input.package,
        known,
      });
    }
    // Not every project's data takes a package (the sink says why).
    const refusal = (await this.loads.sink(a.projectId)).packageRefusal;
    if (refusal) throw invalid(refusal, { field: 'package' });
    const params = pkg.resolve(input.parameters);
    const source = packageSource(pkg);
    const existing = await this.datasets.get(a.projectId, pkg.dataset);
    if (existing && existing.source !== source) {
      throw conflict(
        `dataset "${pkg.dataset}" exists and was not loaded from the ${pkg.id} package (its source is ${existing.source ?? 'unknown'}); loading the package would replace it`,
        {
          dataset: pkg.dataset,
          source: existing.source,
        },
      );
    }
    const joins = await planJoins(a.projectId, pkg, input.joinTo ?? [], {
      datasets: this.datasets,
      dbs: this.dbs,
    });
    await this.storage.writeFile(a.projectId, source, Buffer.from(pkg.csv(params), 'utf8'), {
      createParents: true,
      user: a.email,
    });
    const job = await this.loads.start(a, {
      type: 'cluster',
      clusters: {
        [pkg.dataset]: { source_type: 'webdav', source, prescription: packagePrescription(pkg) },
      },
    });
    // Recorded now, before the job runs: a reference to a dataset still loading is kept (and
    // resolved by the load's own model sync), so the job's OK means everything is in place.
    if (joins.length) {
      await tx(this.db, async () =>
        applyJoins(a.projectId, a.email, joins, {
          datasets: this.datasets,
          prescriptions: this.prescriptions,
        }),
      );
    }
    return job;
  }
}
