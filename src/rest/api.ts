// /api/v1: every REST route, and the interactive index built from them.
import { API_PREFIX } from '../engine/config.js';
import { sendPage } from '../web/page.js';
import { identify } from '../http/auth.js';
import { negotiate } from '../http/negotiate.js';
import { renderApiIndex } from '../http/render/html.js';
import type { RouteDef } from '../http/router.js';
import { specPath } from '../http/router.js';
import { aiRoutes } from './routes/ai.js';
import { aqlRoutes } from './routes/aql.js';
import { batchRoutes } from './routes/batch.js';
import { dataRoutes } from './routes/data.js';
import { exportRoutes } from './routes/export.js';
import { chartPngRoutes } from './routes/chart-png.js';
import { flowRoutes } from './routes/flows.js';
import { jobRoutes } from './routes/jobs.js';
import { reportRoutes } from './routes/reports.js';
import { shareRoutes } from './routes/shares.js';
import { modelRoutes } from './routes/model.js';
import { packageRoutes } from './routes/packages.js';
import { projectRoutes } from './routes/projects.js';
import { sqlRoutes } from './routes/sql.js';
import { deliveryRoutes } from './routes/delivery.js';
import { storageRoutes } from './routes/storage.js';
import { triggerRoutes } from './routes/triggers.js';
import { uploadRoutes } from './routes/upload.js';
import { userRoutes } from './routes/users.js';

const LEVEL_TEXT: Record<string, string> = {
  public: 'none',
  authenticated: 'signed in',
  member: 'project user',
  useradmin: 'User Admin',
  mdadmin: 'MD Admin',
  admin: 'Admin',
};

function groups(defs: RouteDef[]) {
  const out = new Map<
    string,
    {
      name: string;
      routes: { methods: string[]; path: string; description: string; level: string }[];
    }
  >();
  for (const def of defs) {
    const g = out.get(def.group) ?? { name: def.group, routes: [] };
    for (const [method, op] of Object.entries(def.ops)) {
      g.routes.push({
        methods: [method],
        path: specPath(def.path),
        description: op!.description,
        level: LEVEL_TEXT[op!.access] ?? op!.access,
      });
    }
    out.set(def.group, g);
  }
  return [...out.values()];
}

export function apiRoutes(): RouteDef[] {
  const defs: RouteDef[] = [
    ...projectRoutes,
    ...sqlRoutes,
    ...deliveryRoutes,
    ...userRoutes,
    ...jobRoutes,
    ...storageRoutes,
    ...uploadRoutes,
    ...dataRoutes,
    ...flowRoutes,
    ...triggerRoutes,
    ...aqlRoutes,
    ...exportRoutes,
    ...chartPngRoutes,
    ...aiRoutes,
    ...packageRoutes,
    ...modelRoutes,
    ...reportRoutes,
    ...batchRoutes,
    ...shareRoutes,
  ];
  const index: RouteDef = {
    group: 'API',
    path: '/',
    ops: {
      GET: {
        access: 'public',
        description: 'This index of resources.',
        handler: async ({ engine, req, res }) => {
          const g = groups(defs);
          const format = negotiate(
            { method: req.method, accept: req.headers.accept, formatParam: req.query.format },
            ['json', 'yaml', 'html'],
          );
          if (format === 'html') {
            const user = (await identify(engine, req).catch(() => null))?.email ?? null;
            sendPage(res, 200, renderApiIndex({ apiBase: API_PREFIX, user, groups: g }));
            return;
          }
          return {
            title: 'Ursa API',
            body: {
              version: 'v1',
              resources: g,
              link: [{ href: `${API_PREFIX}/projects`, rel: 'projects' }],
            },
          };
        },
      },
    },
  };
  return [index, ...defs];
}
