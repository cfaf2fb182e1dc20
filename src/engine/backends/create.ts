// The backends this server offers, by project kind. A new kind of project is one folder
// beside embedded/ and warehouse/ and one entry here (with how its projects are told apart).
import type { ProjectDatabases } from '../data/databases.js';
import type { Datasets } from '../data/datasets.js';
import type { WarehouseLoads } from '../warehouse/load.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { EmbeddedQueries } from './embedded/query.js';
import { EmbeddedSink } from './embedded/sink.js';
import { Backends } from './registry.js';
import { WarehouseQueries } from './warehouse/query.js';
import { WarehouseSink } from './warehouse/sink.js';

export function createBackends(deps: {
  dbs: ProjectDatabases;
  datasets: Datasets;
  warehouse: Warehouse;
  warehouseLoads: WarehouseLoads;
}): Backends {
  const { dbs, datasets, warehouse } = deps;
  return new Backends(
    [
      { kind: 'embedded', query: new EmbeddedQueries(dbs), sink: new EmbeddedSink(dbs) },
      {
        kind: 'warehouse',
        query: new WarehouseQueries(warehouse, datasets),
        sink: new WarehouseSink(deps.warehouseLoads, dbs.locks),
      },
    ],
    // A project bound to a PostgreSQL schema is a warehouse project; every other is embedded.
    async (projectId) => ((await warehouse.binding(projectId)) ? 'warehouse' : 'embedded'),
  );
}

export { Backends };
export type { DatasetSink, ProjectBackend, QueryBackend } from './backend.js';
