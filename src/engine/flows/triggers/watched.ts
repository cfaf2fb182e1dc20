// The trigger objects (or alerts: `types`) of every project, for the tick that runs every
// second: re-read only for
// projects whose model version moved (every object write bumps it, in any process), so an
// idle tick costs one small query instead of a scan of all objects.
import { type Db, tablesOf } from '../../db/index.js';
import type { ModelStore, ObjectRow } from '../../model/store.js';

export class WatchedTriggers {
  private byProject = new Map<string, { version: number; rows: ObjectRow[] }>();

  constructor(
    private readonly db: Db,
    private readonly model: ModelStore,
    private readonly types: string[] = ['trigger'],
  ) {}

  async all(): Promise<ObjectRow[]> {
    const { projects } = tablesOf(this.db);
    const versions = await this.db
      .select({ id: projects.id, version: projects.modelVersion })
      .from(projects);
    const out: ObjectRow[] = [];
    const seen = new Set<string>();
    for (const { id, version } of versions) {
      seen.add(id);
      let c = this.byProject.get(id);
      if (!c || c.version !== version) {
        c = { version, rows: await this.model.listByType(id, this.types) };
        this.byProject.set(id, c);
      }
      out.push(...c.rows);
    }
    for (const id of this.byProject.keys()) if (!seen.has(id)) this.byProject.delete(id);
    return out;
  }
}
