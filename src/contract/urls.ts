// The one builder of API addresses: every href, Location and link to /api/v1 that the engine,
// the doors and the app make comes from here. Root-relative (they work behind any host); with
// a site URL in front, absolute.
export const API_PREFIX = '/api/v1';

const enc = encodeURIComponent;

/** `/api/v1` + a path of the API (`/projects/p1`). */
export const apiHref = (path: string): string => `${API_PREFIX}${path}`;

/** Paths under the API prefix, for links built from them (`apiHref(projectPath(id))`). */
export const projectPath = (projectId: string): string => `/projects/${enc(projectId)}`;
export const jobPath = (projectId: string, jobId: string): string =>
  `${projectPath(projectId)}/kodiak/scache/obj/${enc(jobId)}`;
export const objectPath = (projectId: string, ident: string): string =>
  `${projectPath(projectId)}/pmd/obj/${enc(ident)}`;
export const reportPath = (projectId: string, ident: string): string =>
  `${projectPath(projectId)}/app/reports/${enc(ident)}`;
export const dashboardPath = (projectId: string, ident: string): string =>
  `${projectPath(projectId)}/app/dashboards/${enc(ident)}`;
export const sharePath = (projectId: string, dashboard: string): string =>
  `${projectPath(projectId)}/pmd/share/${enc(dashboard)}`;
export const webdavPath = (projectId: string): string => `${projectPath(projectId)}/webdav`;
