// A warehouse project in one call (MCP create_project): the project, its postgres credentials
// object (the secret stored encrypted, as POST pmd/obj stores it) and the binding, checked on
// the database as PUT /projects/{p} checks it. Each step is the REST call's own engine
// function, with its permissions. When a step is refused the project is removed again, so
// nothing half-made is left behind and the caller simply tries again.
import type { Principal, ProjectActor } from '../access/actor.js';
import type { ModelObjects } from '../model/objects.js';
import type { ProjectDetails, Projects } from '../projects/projects.js';
import { EngineError } from '../errors.js';

/** The identifier of the credentials object a one-call warehouse project is bound with. */
export const WAREHOUSE_CREDENTIALS = 'credentials.warehouse';

export interface NewProject {
  id: string;
  label: string;
  desc?: string;
  entity?: string;
}

export interface NewWarehouse {
  host: string;
  port?: number;
  database: string;
  user: string;
  password: string;
  schema: string;
  sslmode?: 'disable' | 'require' | 'verify-full';
  replicas?: string[];
}

export interface NewProjectDeps {
  projects: Projects;
  objects: ModelObjects;
  actor: (p: Principal, projectId: string) => Promise<ProjectActor>;
}

export async function createProject(
  deps: NewProjectDeps,
  p: Principal,
  project: NewProject,
  warehouse?: NewWarehouse,
): Promise<ProjectDetails> {
  const created = await deps.projects.create(p, project);
  if (!warehouse) return created;
  const a = await deps.actor(p, created.id);
  try {
    await deps.objects.create(a, {
      ident: WAREHOUSE_CREDENTIALS,
      type: 'credentials',
      name: `Warehouse ${warehouse.schema}`,
      def: {
        kind: 'postgres',
        host: warehouse.host,
        ...(warehouse.port !== undefined ? { port: warehouse.port } : {}),
        user: warehouse.user,
        database: warehouse.database,
        secret: warehouse.password,
        ...(warehouse.sslmode ? { sslmode: warehouse.sslmode } : {}),
        ...(warehouse.replicas?.length ? { replicas: warehouse.replicas } : {}),
      },
    });
    return await deps.projects.update(a, {
      warehouse: { credentials: WAREHOUSE_CREDENTIALS, schema: warehouse.schema },
    });
  } catch (err) {
    await deps.projects.remove(a);
    if (err instanceof EngineError)
      throw new EngineError(
        err.kind,
        `${asWarehouseFields(err.message)} (the project was not created; fix this and call again)`,
        err.context,
      );
    throw err;
  }
}

/** The credentials object's field names as the caller wrote them (`warehouse.password`…). */
const asWarehouseFields = (message: string) =>
  message.replace(/\bdef\.secret\b/g, 'warehouse.password').replace(/\bdef\./g, 'warehouse.');
