// Authorization matrix: every route of the REST route table × every caller level.
// Rules (spec "Authentication", "Permission levels", "Errors"): no credentials → 401 with a
// Bearer challenge; signed in but not invited (or revoked) → 401 on project routes; below the
// route's level → 403; at or above → the route's success status. Admin implies every level;
// User Admin and MD Admin are independent. Under maintenance every project route answers 403,
// except that an Admin keeps GET/PUT/DELETE /projects/{project}.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes } from '../src/rest/api.js';
import { specPath, type Method } from '../src/http/router.js';
import {
  ADMIN,
  AUTHZ_QUERY,
  AUTHZ_QUERY_DATA,
  AuthzFixture,
  CALLERS,
  emailOf,
  holds,
  isLevel,
  LEVELS,
  OTHER_MEMBER,
  type Caller,
  type Level,
} from './helpers/authz-fixture.js';
import type { ApiResponse } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

const CHALLENGE =
  /^Bearer realm="ursa", resource_metadata="http:\/\/localhost:\d+\/\.well-known\/oauth-protected-resource\/api\/v1", scope="api"$/;
/** Where access is refused before the file is looked up, any fileId will do. */
const ANY_FILE_ID = Buffer.from('x.csv|/').toString('base64url');

interface Params {
  project: string;
  userId: string;
  jobId: string;
  fileId: string;
  uploadId: string;
  /** A model object's ident. */
  id: string;
  revision: string;
  conversationId: string;
  messageId: string;
  boxId: string;
  /** A dashboard's ident (pmd/share/{dashboardId}). */
  dashboardId: string;
  /** A dashboard item's id (app/dashboards/{id}/items/{item}). */
  item: string;
  /** A warehouse table, `schema.table` (data/guesstable/{table}). */
  table: string;
}

interface CheckContext {
  f: AuthzFixture;
  caller: Caller;
  params: Partial<Params>;
  /** The request got the success status. */
  ok: boolean;
}

interface Entry {
  /** The level the spec requires; `authenticated` = any signed-in user, no project involved. */
  level: 'authenticated' | Level;
  /** Status for a caller who holds the level. */
  success: number;
  /** Needs an organization administrator: no project level grants it (spec: Project creation). */
  orgAdminOnly?: boolean;
  /** An Admin keeps this operation while the project is under maintenance. */
  duringMaintenance?: boolean;
  /** Request body (a minimal valid one). */
  body?: unknown;
  /** Per-case path parameters and body, so destructive cases only touch throwaway resources. */
  prepare?: (f: AuthzFixture, caller: Caller) => Promise<Prepared> | Prepared;
  /** Extra assertions on the answer (and on what the request changed or left alone). */
  check?: (r: ApiResponse, c: CheckContext) => void | Promise<void>;
}

interface Prepared {
  params?: Partial<Params>;
  body?: unknown;
  /** Appended to the path (`?a=1`), for routes that take their input in the query. */
  query?: string;
  /** A body sent as-is with its content type, instead of JSON. */
  raw?: { type: string; data: string };
}

/** resumable.js parameters of a one-chunk upload of `size` bytes to /<ident>.csv. */
function chunkQuery(ident: string, size: number): string {
  return `?${new URLSearchParams({
    resumableChunkNumber: '1',
    resumableChunkSize: String(size),
    resumableTotalSize: String(size),
    resumableTotalChunks: '1',
    resumableIdentifier: ident,
    resumableFilename: `${ident}.csv`,
  })}`;
}

/** A throwaway file in the shared project's storage, so destructive cases touch only it. */
/** A flow (and a trigger starting it) of its own: storage file → storage file. */
async function throwawayFlow(
  f: AuthzFixture,
  tag: string,
): Promise<{ flow: string; trigger: string }> {
  const { path } = await throwawayFile(f, `${tag}-in`);
  const flow = f.unique(`flow-${tag}`);
  const trigger = f.unique(`trigger-${tag}`);
  await f.s.engine.model.upsert(
    f.project,
    [
      {
        ident: flow,
        type: 'flow',
        name: flow,
        def: {
          boxes: [
            { id: 'in', type: 'input.storage', path },
            { id: 'out', type: 'output.storage', path: `/${flow}.csv`, format: 'csv' },
          ],
          edges: [{ from: 'in', to: 'out' }],
        },
      },
      {
        ident: trigger,
        type: 'trigger',
        name: trigger,
        def: { type: 'flowTimer', flow, cron: '0 3 * * *', enabled: false },
      },
    ],
    ADMIN,
  );
  return { flow, trigger };
}

async function throwawayFile(
  f: AuthzFixture,
  tag: string,
): Promise<{ path: string; fileId: string }> {
  const path = `/${f.unique(tag)}.csv`;
  const { item } = await rawStorage(f.s.engine).writeFile(
    f.project,
    path,
    Buffer.from('a,b\n1,2\n'),
  );
  return { path, fileId: item.fileId };
}

/** A valid prescription for a throwaway file (`a,b` over one row of two integers). */
const LOAD_PRESCRIPTION = {
  clustername: 'authz',
  primarykey: 'a',
  columns: [
    { id: 'a', originalheader: 'a', objectType: 'A', dataType: 'integer', label: 'A' },
    { id: 'b', originalheader: 'b', objectType: 'F', dataType: 'integer', label: 'B' },
  ],
};

/** A throwaway folder (no ACL: every member reads it), so destructive cases touch only it. */
async function throwawayObject(f: AuthzFixture, tag: string): Promise<string> {
  const admin = await f.s.engine.actor({ email: ADMIN }, f.project);
  const [o] = await f.s.engine.objects.create(admin, {
    ident: `folder.${f.unique(tag)}`,
    type: 'folder',
    name: f.unique(tag),
    def: { content: [] },
  });
  return o!.ident;
}

/** A throwaway alert on the tiny dataset that tells the admin (never fires: no SMTP here). */
async function throwawayAlert(f: AuthzFixture, tag: string, by = ADMIN): Promise<string> {
  const ident = `alert.${f.unique(tag)}`;
  await f.s.engine.model.upsert(
    f.project,
    [
      {
        ident,
        type: 'alert',
        name: f.unique(tag),
        def: {
          aql: 'SELECT SUM([fact.authz_sales.amount])',
          condition: { op: '<', value: -1 },
          email: [ADMIN],
        },
      },
    ],
    by,
  );
  return ident;
}

/** A throwaway bar report on the tiny dataset, and a dashboard showing it (no ACL). */
async function throwawayDashboard(
  f: AuthzFixture,
  tag: string,
): Promise<{ report: string; dashboard: string }> {
  const report = `report.${f.unique(tag)}`;
  const dashboard = `dashboard.${f.unique(tag)}`;
  await f.s.engine.model.upsert(
    f.project,
    [
      {
        ident: report,
        type: 'report',
        name: f.unique(`${tag} report`),
        def: { aql: AUTHZ_QUERY, visualization: { type: 'bar' } },
      },
      {
        ident: dashboard,
        type: 'dashboard',
        name: f.unique(`${tag} dashboard`),
        def: { items: [{ id: 'a', report }], layout: [], filters: [] },
      },
    ],
    ADMIN,
  );
  return { report, dashboard };
}

/** A throwaway dashboard on which `caller` holds `s` (a role listing them): any member shares it. */
async function sharableDashboard(f: AuthzFixture, caller: Caller, tag: string): Promise<string> {
  const role = `userrole.${f.unique(`${tag}-role`)}`;
  const dashboard = `dashboard.${f.unique(tag)}`;
  await f.s.engine.model.upsert(
    f.project,
    [
      { ident: role, type: 'userrole', name: role, def: { members: [emailOf(caller) ?? ''] } },
      {
        ident: dashboard,
        type: 'dashboard',
        name: dashboard,
        def: { items: [], layout: [], filters: [] },
        acl: [{ userrole: role, acl: 'r--s-' }],
      },
    ],
    ADMIN,
  );
  return dashboard;
}

/** The same, already shared privately with another member (by the Admin). */
async function sharedDashboard(f: AuthzFixture, caller: Caller, tag: string): Promise<string> {
  const dashboard = await sharableDashboard(f, caller, tag);
  const admin = await f.s.engine.actor({ email: ADMIN }, f.project);
  await f.s.engine.shares.create(admin, {
    type: 'private',
    object: dashboard,
    users: [OTHER_MEMBER],
  });
  return dashboard;
}

/** Whether the dashboard is still shared (as the Admin sees the shares). */
async function isShared(f: AuthzFixture, dashboard: string): Promise<boolean> {
  const admin = await f.s.engine.actor({ email: ADMIN }, f.project);
  return (await f.s.engine.shares.list(admin)).some((x) => x.dashboard === dashboard);
}

/** The user a caller's own job belongs to: callers who are not members use another member's. */
const jobOwner = (caller: Caller): string => (isLevel(caller) ? emailOf(caller)! : OTHER_MEMBER);

const MATRIX: Record<string, Entry> = {
  'GET /user': {
    level: 'authenticated',
    success: 200,
    check: (r, { caller, ok }) => {
      if (ok) expect(r.json.id).toBe(emailOf(caller));
    },
  },
  'GET /projects': {
    level: 'authenticated',
    success: 200,
    check: (r, { f, caller, ok }) => {
      if (!ok) return;
      const entry = r.json.projects[f.project];
      if (!isLevel(caller)) {
        expect(entry).toBeUndefined();
        return;
      }
      expect(entry).toMatchObject({
        id: f.project,
        hasAccess: true,
        isAdmin: caller === 'admin',
        isMdAdmin: holds(caller, 'mdadmin'),
      });
    },
  },
  'POST /projects': {
    level: 'authenticated',
    success: 201,
    orgAdminOnly: true,
    body: { id: 'authz-new', label: 'Authz new', entity: 'default' },
  },
  'GET /projects/{project}': {
    level: 'member',
    success: 200,
    duringMaintenance: true,
    check: (r, { caller, params, ok }) => {
      if (!ok || !isLevel(caller)) return;
      expect(r.json.project.id).toBe(params.project);
      expect(r.json.project.access).toMatchObject({
        admin: caller === 'admin',
        mdadmin: holds(caller, 'mdadmin'),
        useradmin: holds(caller, 'useradmin'),
      });
    },
  },
  'PUT /projects/{project}': {
    level: 'admin',
    success: 200,
    duringMaintenance: true,
    body: { desc: 'changed by the authz test' },
  },
  'DELETE /projects/{project}': {
    level: 'admin',
    success: 204,
    duringMaintenance: true,
    prepare: async (f, caller) => {
      const project = await f.createProject(f.unique('authz-delete'));
      if (isLevel(caller)) await f.inviteLevels(project, [caller]);
      return { params: { project } };
    },
    check: async (_r, { f, params, ok }) => {
      const after = await f.call({ email: ADMIN }, 'GET', `/projects/${params.project}`);
      expect(after.status, 'the project is gone only after a successful DELETE').toBe(
        ok ? 401 : 200,
      );
    },
  },
  'GET /projects/{project}/limitadherence': { level: 'member', success: 200 },
  'GET /projects/{project}/activity': { level: 'member', success: 200 },
  'GET /projects/{project}/activity/loads': { level: 'member', success: 200 },
  'GET /projects/{project}/announce': { level: 'member', success: 200 },
  'PUT /projects/{project}/announce': {
    level: 'useradmin',
    success: 200,
    body: { title: 'Notice', message: 'Set by the authz test' },
  },
  'GET /projects/{project}/genid': { level: 'member', success: 200 },
  'GET /projects/{project}/sql': { level: 'member', success: 200 },
  'POST /projects/{project}/sql/password': {
    level: 'member',
    success: 201,
    prepare: async (f, caller) => {
      const project = await f.createProject(f.unique('authz-sqlpw'));
      const on = await f.call({ email: ADMIN }, 'PUT', `/projects/${project}`, {
        sqlPasswords: true,
      });
      expect(on.status).toBe(200);
      if (isLevel(caller)) await f.inviteLevels(project, [caller]);
      return { params: { project } };
    },
  },
  'DELETE /projects/{project}/sql/password': { level: 'member', success: 204 },
  'GET /projects/{project}/users': { level: 'useradmin', success: 200 },
  'POST /projects/{project}/users': {
    level: 'useradmin',
    success: 200,
    body: { id: 'authz-invitee@example.com' },
    prepare: (f) => ({ body: { id: `${f.unique('authz-invitee')}@example.com` } }),
  },
  'GET /projects/{project}/users/{userId}': {
    level: 'useradmin',
    success: 200,
    check: (r, { params, ok }) => {
      if (ok) expect(r.json.user.id).toBe(params.userId);
    },
  },
  'PUT /projects/{project}/users/{userId}': {
    level: 'useradmin',
    success: 200,
    body: { roles: ['authz-role'] },
    prepare: async (f) => ({
      params: { userId: await f.throwawayMember(f.project, 'authz-put-target') },
    }),
  },
  'DELETE /projects/{project}/users/{userId}': {
    level: 'useradmin',
    success: 204,
    prepare: async (f) => ({
      params: { userId: await f.throwawayMember(f.project, 'authz-delete-target') },
    }),
    check: async (_r, { f, params, ok }) => {
      const after = await f.call(
        { email: ADMIN },
        'GET',
        `/projects/${params.project}/users/${encodeURIComponent(params.userId!)}`,
      );
      expect(after.status, 'the member is gone only after a successful DELETE').toBe(
        ok ? 404 : 200,
      );
    },
  },
  'GET /projects/{project}/kodiak/scache/obj': { level: 'member', success: 200 },
  'GET /projects/{project}/kodiak/scache/obj/{jobId}': {
    level: 'member',
    success: 200,
    prepare: async (f, caller) => ({ params: { jobId: await f.submitJob(jobOwner(caller)) } }),
    check: (r, { params, ok }) => {
      if (ok) expect(r.json.id).toBe(params.jobId);
    },
  },
  'POST /projects/{project}/kodiak/scache/obj/{jobId}/cancel': {
    level: 'member',
    success: 202,
    prepare: async (f, caller) => ({ params: { jobId: await f.submitJob(jobOwner(caller)) } }),
    check: (r, { params, ok }) => {
      if (ok) expect(r.json.id).toBe(params.jobId);
    },
  },
  'GET /projects/{project}/data/guessupload/{uploadId}': {
    level: 'mdadmin',
    success: 200,
    prepare: async (f) => ({
      params: { uploadId: (await throwawayFile(f, 'authz-guess')).fileId },
    }),
    check: (r, { params, ok }) => {
      if (ok) expect(r.json.ident).toBe(params.uploadId);
    },
  },
  // The fixture's project holds its own data (no warehouse binding): past the level check the
  // caller is told to bind one (400), before any connection is tried.
  'GET /projects/{project}/data/guesstable': {
    level: 'mdadmin',
    success: 400,
    check: (r, { ok }) => {
      if (ok) expect(r.json.message).toContain('not a warehouse project');
    },
  },
  'GET /projects/{project}/data/guesstable/{table}': {
    level: 'mdadmin',
    success: 400,
    prepare: () => ({ params: { table: 'analytics.orders' } }),
    check: (r, { ok }) => {
      if (ok) expect(r.json.message).toContain('not a warehouse project');
    },
  },
  'PUT /projects/{project}/data/guessupload/{uploadId}': {
    level: 'mdadmin',
    success: 200,
    body: LOAD_PRESCRIPTION,
    prepare: async (f) => ({
      params: { uploadId: (await throwawayFile(f, 'authz-guess-put')).fileId },
      body: LOAD_PRESCRIPTION,
    }),
    check: (r, { ok }) => {
      if (ok) expect(r.json.prescription.primarykey).toBe('a');
    },
  },
  'POST /projects/{project}/kodiak/transform/execute': {
    level: 'mdadmin',
    success: 202,
    body: { type: 'cluster', clusters: { authz: { source_type: 'webdav', source: '/x.csv' } } },
    prepare: async (f) => {
      const { path } = await throwawayFile(f, 'authz-load');
      const cluster = f.unique('authz_load').replace(/-/g, '_');
      return {
        body: { type: 'cluster', clusters: { [cluster]: { source_type: 'webdav', source: path } } },
      };
    },
    check: (r, { ok }) => {
      if (ok) expect(r.json.link[0].rel).toBe('scache');
    },
  },
  'GET /projects/{project}/inflow/box': {
    level: 'member',
    success: 200,
    check: (r, { ok }) => {
      if (ok) expect(r.json.boxes.length).toBeGreaterThan(10);
    },
  },
  'GET /projects/{project}/inflow/box/{boxId}': {
    level: 'member',
    success: 200,
    prepare: () => ({ params: { boxId: 'transform.filter' } }),
  },
  'GET /projects/{project}/inflow/flowlist': { level: 'member', success: 200 },
  'POST /projects/{project}/kodiak/transform/stop': {
    level: 'mdadmin',
    // The caller may stop runs; this flow is not running, which only they learn (409).
    success: 409,
    prepare: async (f) => ({ body: { id: (await throwawayFlow(f, 'authz-stop')).flow } }),
    check: (r, { ok }) => {
      if (ok) expect(r.json.message).toContain('is not running');
    },
  },
  'GET /projects/{project}/inflow/trigger/list': { level: 'member', success: 200 },
  'PUT /projects/{project}/inflow/trigger/toggle': {
    level: 'mdadmin',
    success: 200,
    prepare: async (f) => ({
      body: { disabled: [(await throwawayFlow(f, 'authz-toggle')).trigger] },
    }),
  },
  'POST /projects/{project}/inflow/trigger/run': {
    level: 'mdadmin',
    success: 201,
    prepare: async (f) => ({ body: { id: (await throwawayFlow(f, 'authz-run')).trigger } }),
    check: (r, { ok }) => {
      if (ok) expect(r.json.link[0].rel).toBe('scache');
    },
  },
  'GET /projects/{project}/kodiak/dataload': {
    level: 'member',
    success: 200,
    check: (r, { ok }) => {
      if (ok) expect(r.json.dataload).toHaveProperty('dataVersion');
    },
  },
  'GET /projects/{project}/storage/list': { level: 'mdadmin', success: 200 },
  'POST /projects/{project}/storage/list': {
    level: 'mdadmin',
    success: 201,
    prepare: (f) => ({ body: { folder: `/${f.unique('authz-folder')}` } }),
  },
  'GET /projects/{project}/storage/list/{fileId}': {
    level: 'mdadmin',
    success: 200,
    prepare: async (f) => ({ params: { fileId: (await throwawayFile(f, 'authz-get')).fileId } }),
  },
  'DELETE /projects/{project}/storage/list/{fileId}': {
    level: 'mdadmin',
    success: 204,
    prepare: async (f) => ({ params: { fileId: (await throwawayFile(f, 'authz-del')).fileId } }),
    check: async (_r, { f, params, ok }) => {
      const after = await f.call(
        { email: ADMIN },
        'GET',
        `/projects/${params.project}/storage/list/${params.fileId}`,
      );
      expect(after.status, 'the file is gone only after a successful DELETE').toBe(ok ? 404 : 200);
    },
  },
  'GET /projects/{project}/storage/list/{fileId}/download': {
    level: 'mdadmin',
    success: 200,
    prepare: async (f) => ({ params: { fileId: (await throwawayFile(f, 'authz-dl')).fileId } }),
  },
  'POST /projects/{project}/storage/move': {
    level: 'mdadmin',
    success: 200,
    prepare: async (f) => {
      const { path } = await throwawayFile(f, 'authz-move');
      return { body: { source: path, target: `${path}.moved` } };
    },
  },
  'GET /projects/{project}/storage/upload': {
    level: 'mdadmin',
    success: 204, // the chunk is not stored yet
    prepare: (f) => ({ query: chunkQuery(f.unique('authz-test-chunk'), 8) }),
  },
  'POST /projects/{project}/storage/upload': {
    level: 'mdadmin',
    success: 201, // the only chunk: the file is assembled
    prepare: (_f, caller) => ({
      query: chunkQuery(`authz-upload-${caller}`, 8),
      raw: { type: 'application/octet-stream', data: 'a,b\n1,2\n' },
    }),
    check: async (r, { f, caller, params, ok }) => {
      const file = await rawStorage(f.s.engine).stat(
        params.project!,
        `/authz-upload-${caller}.csv`,
      );
      expect(file?.size ?? null, 'the file exists only after a successful upload').toBe(
        ok ? 8 : null,
      );
      if (ok) expect(r.json.uploadId).toBe(`authz-upload-${caller}`);
    },
  },
  'GET /projects/{project}/store/package': {
    level: 'member',
    success: 200,
    check: (r, { ok }) => {
      if (ok) expect(r.json.packages.map((p: { id: string }) => p.id)).toContain('calendar');
    },
  },
  'POST /projects/{project}/package/obj': {
    level: 'mdadmin',
    success: 202,
    body: { package: 'countries' },
    check: (r, { ok }) => {
      if (ok) expect(r.json.link[0]).toMatchObject({ rel: 'scache' });
    },
  },
  'GET /projects/{project}/pmd/obj': {
    level: 'member',
    success: 200,
    check: (r, { ok }) => {
      if (ok) expect(r.json).toHaveProperty('objects');
    },
  },
  'POST /projects/{project}/pmd/obj': {
    level: 'mdadmin',
    success: 201,
    body: { type: 'folder', name: 'Authz folder', def: { content: [] } },
    prepare: (f) => ({
      body: { type: 'folder', name: f.unique('Authz folder'), def: { content: [] } },
    }),
    check: (r, { ok }) => {
      if (ok) expect(r.json.objects[0].link[0].rel).toBe('object.folder');
    },
  },
  'GET /projects/{project}/pmd/obj/{id}': {
    level: 'member',
    success: 200,
    prepare: async (f) => ({ params: { id: await throwawayObject(f, 'authz-get-obj') } }),
    check: (r, { params, ok }) => {
      if (ok) expect(r.json.object.ident).toBe(params.id);
    },
  },
  'PUT /projects/{project}/pmd/obj/{id}': {
    level: 'mdadmin',
    success: 200,
    body: { name: 'Renamed', def: { content: [] } },
    prepare: async (f) => ({
      params: { id: await throwawayObject(f, 'authz-put-obj') },
      body: { name: 'Renamed', def: { content: [] } },
    }),
  },
  'DELETE /projects/{project}/pmd/obj/{id}': {
    level: 'mdadmin',
    success: 204,
    prepare: async (f) => ({ params: { id: await throwawayObject(f, 'authz-del-obj') } }),
    check: async (_r, { f, params, ok }) => {
      const after = await f.call(
        { email: ADMIN },
        'GET',
        `/projects/${params.project}/pmd/obj/${params.id}`,
      );
      expect(after.status, 'the object is gone only after a successful DELETE').toBe(
        ok ? 404 : 200,
      );
    },
  },
  'POST /projects/{project}/app/delivery/{id}/run': {
    level: 'member',
    success: 202,
    prepare: async (f) => ({ params: { id: await throwawayAlert(f, 'authz-alert-run') } }),
  },
  'GET /projects/{project}/app/delivery': { level: 'member', success: 200 },
  // A preview (no confirm) of an alert to oneself: any member; nothing is written.
  'POST /projects/{project}/app/delivery': {
    level: 'member',
    success: 200,
    prepare: (_f, caller) => ({
      body: {
        type: 'alert',
        name: 'authz preview',
        def: {
          aql: 'SELECT SUM([fact.authz_sales.amount])',
          condition: { op: '<', value: -1 },
          email: [emailOf(caller) ?? ADMIN],
        },
      },
    }),
  },
  // A change previewed (no confirm) on an alert of the caller's, to themself: nothing written.
  'PUT /projects/{project}/app/delivery/{id}': {
    level: 'member',
    success: 200,
    prepare: async (f, caller) => ({
      params: { id: await throwawayAlert(f, 'authz-alert-put', emailOf(caller) ?? ADMIN) },
      body: {
        def: {
          aql: 'SELECT SUM([fact.authz_sales.amount])',
          condition: { op: '<', value: -2 },
          email: [emailOf(caller) ?? ADMIN],
        },
      },
    }),
  },
  'DELETE /projects/{project}/app/delivery/{id}': {
    level: 'member',
    success: 204,
    prepare: async (f, caller) => ({
      params: { id: await throwawayAlert(f, 'authz-alert-del', emailOf(caller) ?? ADMIN) },
    }),
  },
  // Its creator (or an MD Admin) pauses it: each caller pauses one they made.
  ...Object.fromEntries(
    (['pause', 'resume'] as const).map((verb) => [
      `POST /projects/{project}/app/delivery/{id}/${verb}`,
      {
        level: 'member',
        success: 200,
        prepare: async (f: AuthzFixture, caller: Caller) => ({
          params: {
            id: await throwawayAlert(f, `authz-alert-${verb}`, emailOf(caller) ?? ADMIN),
          },
        }),
      } satisfies Entry,
    ]),
  ),
  'GET /projects/{project}/app/delivery/{id}/history': {
    level: 'member',
    success: 200,
    prepare: async (f) => ({ params: { id: await throwawayAlert(f, 'authz-alert-history') } }),
  },
  'GET /projects/{project}/pmd/obj/{id}/history': {
    level: 'member',
    success: 200,
    prepare: async (f) => ({ params: { id: await throwawayObject(f, 'authz-history') } }),
  },
  'GET /projects/{project}/pmd/obj/{id}/history/{revision}': {
    level: 'member',
    success: 200,
    prepare: async (f) => ({
      params: { id: await throwawayObject(f, 'authz-revision'), revision: '1' },
    }),
    check: (r, { ok }) => {
      if (ok) expect(r.json.object.revision).toBe(1);
    },
  },
  'GET /projects/{project}/pmd/obj/{id}/values': {
    level: 'member',
    success: 200,
    prepare: () => ({ params: { id: 'attr.authz_sales.region' }, query: '?limit=5' }),
    check: (r, { ok }) => {
      if (ok)
        expect(r.json.values.map((v: { value: string }) => v.value).sort()).toEqual(['EU', 'US']);
    },
  },
  'GET /projects/{project}/pmd/obj/{id}/compatible': {
    level: 'member',
    success: 200,
    prepare: () => ({ params: { id: 'attr.authz_sales.region' } }),
    check: (r, { ok }) => {
      if (ok) expect(r.json.object.id).toBe('attr.authz_sales.region');
    },
  },
  'GET /projects/{project}/pmd/bulkobj': {
    level: 'member',
    success: 200,
    prepare: async (f) => ({
      query: `?idents=${await throwawayObject(f, 'authz-bulk')}&keys=name`,
    }),
    check: (r, { ok }) => {
      if (ok) expect(r.json.objects).toHaveLength(1);
    },
  },
  'GET /projects/{project}/app/obj/search': {
    level: 'member',
    success: 200,
    prepare: () => ({ query: '?query=authz' }),
  },
  'POST /projects/{project}/app/obj/batch': {
    level: 'member',
    success: 200,
    body: { userrole: 'authz-viewers', acl: 'r----', objects: ['folder.any'] },
    // A throwaway folder on which the caller holds `a` through a role listing them.
    prepare: async (f, caller) => {
      const role = `userrole.${f.unique('authz-batch-role')}`;
      const id = `folder.${f.unique('authz-batch')}`;
      await f.s.engine.model.upsert(
        f.project,
        [
          { ident: role, type: 'userrole', name: role, def: { members: [emailOf(caller) ?? ''] } },
          {
            ident: id,
            type: 'folder',
            name: id,
            def: { content: [] },
            acl: [{ userrole: role, acl: 'r---a' }],
          },
        ],
        ADMIN,
      );
      return {
        params: { id },
        body: { userrole: 'authz-viewers', acl: 'r----', objects: [id] },
      };
    },
    check: async (r, { f, params, ok }) => {
      const acl = (await f.s.engine.model.get(f.project, params.id!))!.acl;
      expect(acl.map((e) => e.userrole).includes('authz-viewers'), 'changed only on success').toBe(
        ok,
      );
      if (ok) expect(r.json.objects).toMatchObject([{ ident: params.id, acl }]);
    },
  },
  'POST /projects/{project}/pmd/modifyfolder': {
    level: 'mdadmin',
    success: 200,
    body: { ident: 'folder.any', op: 'add', content: [] },
    prepare: async (f) => ({
      body: { ident: await throwawayObject(f, 'authz-modify'), op: 'add', content: [] },
    }),
  },
  'GET /projects/{project}/pmd/graph/ldm': { level: 'member', success: 200 },
  'GET /projects/{project}/pmd/graph/odm': { level: 'member', success: 200 },
  'GET /projects/{project}/pmd/check/model': { level: 'mdadmin', success: 200 },
  'GET /projects/{project}/pmd/check/obj': { level: 'mdadmin', success: 200 },
  'GET /projects/{project}/app/dashboards': {
    level: 'member',
    success: 200,
    prepare: async (f) => {
      await throwawayDashboard(f, 'authz-dash-list');
      return {};
    },
    check: (r, { ok }) => {
      if (ok) expect(r.json.dashboards.length).toBeGreaterThan(0);
    },
  },
  'GET /projects/{project}/app/dashboards/{id}': {
    level: 'member',
    success: 200,
    prepare: async (f) => ({
      params: { id: (await throwawayDashboard(f, 'authz-dash')).dashboard },
    }),
    check: (r, { ok }) => {
      if (ok)
        expect(r.json.items[0].rows).toEqual([
          ['EU', 3],
          ['US', 4],
        ]);
    },
  },
  'GET /projects/{project}/app/dashboards/{id}/items/{item}': {
    level: 'member',
    success: 200,
    prepare: async (f) => ({
      params: { id: (await throwawayDashboard(f, 'authz-dash-item')).dashboard, item: 'a' },
    }),
    check: (r, { ok }) => {
      if (ok)
        expect(r.json.item.rows).toEqual([
          ['EU', 3],
          ['US', 4],
        ]);
    },
  },
  'POST /projects/{project}/app/reports/execute': {
    level: 'member',
    success: 200,
    body: { aql: AUTHZ_QUERY, visualization: { type: 'pivot' } },
    check: (r, { ok }) => {
      if (ok)
        expect(r.json.pivot.lines.map((l: { values: string[] }) => l.values)).toEqual([
          ['EU'],
          ['US'],
          [],
        ]);
    },
  },
  'GET /projects/{project}/app/reports/{id}': {
    level: 'member',
    success: 200,
    prepare: async (f) => ({
      params: { id: (await throwawayDashboard(f, 'authz-report')).report },
    }),
    check: (r, { ok }) => {
      if (ok) expect(r.json.chart.svg).toMatch(/^<svg/);
    },
  },
  'GET /projects/{project}/app/dashboards/{id}/items/{item}/chart.png': {
    level: 'member',
    success: 200,
    prepare: async (f) => ({
      params: { id: (await throwawayDashboard(f, 'authz-dash-png')).dashboard, item: 'a' },
    }),
    check: (r, { ok }) => {
      if (ok) expect(r.headers.get('content-type')).toBe('image/png');
    },
  },
  'GET /projects/{project}/app/reports/{id}/chart.png': {
    level: 'member',
    success: 200,
    prepare: async (f) => ({
      params: { id: (await throwawayDashboard(f, 'authz-report-png')).report },
    }),
    check: (r, { ok }) => {
      if (ok) expect(r.headers.get('content-type')).toBe('image/png');
    },
  },
  'GET /projects/{project}/pmd/share': {
    level: 'member',
    success: 200,
    prepare: async (f, caller) => {
      await sharedDashboard(f, caller, 'authz-share-list');
      return {};
    },
    check: (r, { ok }) => {
      if (ok) expect(r.json.shares.length).toBeGreaterThan(0);
    },
  },
  'POST /projects/{project}/pmd/share': {
    level: 'member',
    success: 201,
    body: { type: 'private', object: 'dashboard.any', users: [OTHER_MEMBER] },
    prepare: async (f, caller) => ({
      body: {
        type: 'private',
        object: await sharableDashboard(f, caller, 'authz-share-create'),
        users: [OTHER_MEMBER],
      },
    }),
    check: async (r, { f, ok }) => {
      const object = (r.json?.share?.dashboard ?? '') as string;
      if (ok) expect(await isShared(f, object)).toBe(true);
    },
  },
  'GET /projects/{project}/pmd/share/{dashboardId}': {
    level: 'member',
    success: 200,
    prepare: async (f, caller) => ({
      params: { dashboardId: await sharedDashboard(f, caller, 'authz-share-get') },
    }),
    check: (r, { ok }) => {
      if (ok) expect(r.json.share).toMatchObject({ type: 'private', users: [OTHER_MEMBER] });
    },
  },
  'PUT /projects/{project}/pmd/share/{dashboardId}': {
    level: 'member',
    success: 200,
    body: { users: [OTHER_MEMBER, ADMIN] },
    prepare: async (f, caller) => ({
      params: { dashboardId: await sharedDashboard(f, caller, 'authz-share-put') },
    }),
    check: (r, { ok }) => {
      if (ok) expect(r.json.share.users).toEqual([OTHER_MEMBER, ADMIN]);
    },
  },
  'DELETE /projects/{project}/pmd/share/{dashboardId}': {
    level: 'member',
    success: 204,
    prepare: async (f, caller) => ({
      params: { dashboardId: await sharedDashboard(f, caller, 'authz-share-delete') },
    }),
    check: async (_r, { f, params, ok }) => {
      expect(await isShared(f, params.dashboardId!), 'stopped only by a successful DELETE').toBe(
        !ok,
      );
    },
  },
  'POST /projects/{project}/app/aql/execute': {
    level: 'member',
    success: 201,
    body: { aql: AUTHZ_QUERY },
    check: (r, { ok }) => {
      if (ok)
        expect(r.json.link.map((l: { rel: string }) => l.rel)).toEqual([
          'scache.created',
          'data.created',
        ]);
    },
  },
  'GET /projects/{project}/app/aql/data/{jobId}': {
    level: 'member',
    success: 200,
    // The caller's own finished query (callers who are not members: another member's).
    prepare: async (f, caller) => ({ params: { jobId: await f.runQuery(jobOwner(caller)) } }),
    check: (r, { ok }) => {
      if (ok) expect(r.json.data).toEqual(AUTHZ_QUERY_DATA);
    },
  },
  'POST /projects/{project}/app/aql/explain': {
    level: 'member',
    success: 200,
    body: { aql: AUTHZ_QUERY },
    check: (r, { ok }) => {
      if (ok)
        expect(r.json.explain.objects.map((o: { ident: string }) => o.ident).sort()).toEqual([
          'attr.authz_sales.region',
          'fact.authz_sales.amount',
        ]);
    },
  },
  // The caller passes the level check and the body is read: a bad option (or a URL that is no
  // page of this site) is refused with 400 before Chromium is needed, so no browser is used.
  'POST /projects/{project}/app/export/html': {
    level: 'member',
    success: 400,
    body: { html: '<p>authz</p>', pageType: 'B5' },
    prepare: () => ({ query: '?format=pdf' }),
    check: (r, { ok }) => {
      if (ok) expect(r.json.context.field).toBe('pageType');
    },
  },
  'POST /projects/{project}/app/export/url': {
    level: 'member',
    success: 400,
    body: { url: 'https://elsewhere.example/' },
    prepare: () => ({ query: '?format=pdf' }),
    check: (r, { ok }) => {
      if (ok) expect(r.json.context.field).toBe('url');
    },
  },
  'POST /projects/{project}/app/ai/messages': {
    level: 'member',
    success: 202,
    body: { question: 'How many sales are there?' },
    check: (r, { ok }) => {
      if (ok) {
        expect(r.json.link.map((l: { rel: string }) => l.rel)).toEqual(['scache', 'conversation']);
        expect(r.json.conversation).toBe(r.json.link[1].id);
      }
    },
  },
  'GET /projects/{project}/app/ai': {
    level: 'member',
    success: 200,
    check: (r, { ok }) => {
      if (ok) expect(typeof r.json.configured).toBe('boolean');
    },
  },
  'GET /projects/{project}/app/ai/conversations': {
    level: 'member',
    success: 200,
    check: (r, { ok }) => {
      if (ok) expect(Array.isArray(r.json.conversations)).toBe(true);
    },
  },
  'GET /projects/{project}/app/ai/conversations/{conversationId}': {
    level: 'member',
    success: 200,
    prepare: async (f, caller) => ({
      params: { conversationId: (await f.chartConversation(jobOwner(caller))).conversation },
    }),
    check: (r, { ok }) => {
      if (ok) expect(r.json.conversation.messages[0].answer.answer).toBe('A chart.');
    },
  },
  'DELETE /projects/{project}/app/ai/conversations/{conversationId}': {
    level: 'member',
    success: 204,
    prepare: async (f, caller) => ({
      params: { conversationId: (await f.chartConversation(jobOwner(caller))).conversation },
    }),
    check: async (r, { f, caller, params }) => {
      // Refused callers leave the conversation in place.
      const a = await f.s.engine.actor({ email: jobOwner(caller) }, f.project);
      if (r.status === 204)
        await expect(f.s.engine.ai.get(a, params.conversationId!)).rejects.toThrow();
      else
        expect((await f.s.engine.ai.get(a, params.conversationId!)).id).toBe(params.conversationId);
    },
  },
  'GET /projects/{project}/app/ai/conversations/{conversationId}/messages/{messageId}/chart': {
    level: 'member',
    success: 200,
    prepare: async (f, caller) => {
      const c = await f.chartConversation(jobOwner(caller));
      return { params: { conversationId: c.conversation, messageId: c.message } };
    },
    check: (r, { ok }) => {
      if (ok) {
        expect(r.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
        expect(r.text).toMatch(/^<svg/);
      }
    },
  },
};

interface RouteCase {
  key: string;
  method: Method;
  path: string;
  access: string;
  duringMaintenanceInTable: boolean;
}

/** Every operation of the REST route table except the public index. */
const ROUTES: RouteCase[] = apiRoutes()
  .flatMap((def) =>
    Object.entries(def.ops).map(([method, op]) => ({
      key: `${method} ${specPath(def.path)}`,
      method: method as Method,
      path: specPath(def.path),
      access: op!.access,
      duringMaintenanceInTable: Boolean(op!.duringMaintenance),
    })),
  )
  .filter((r) => r.key !== 'GET /');
const PROJECT_ROUTES = ROUTES.filter((r) => r.path.includes('{project}'));
/** `[key, route]` rows: '%s' names each case by its full key (`$key` would be truncated). */
const rows = (routes: RouteCase[]) => routes.map((r) => [r.key, r] as const);

function fill(path: string, params: Partial<Params>): string {
  return path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const v = params[name as keyof Params];
    if (v === undefined) throw new Error(`no value for {${name}} in ${path}`);
    return encodeURIComponent(v);
  });
}

function entryOf(key: string): Entry {
  const entry = MATRIX[key];
  if (!entry) throw new Error(`the authz matrix has no entry for ${key}: add one`);
  return entry;
}

/** The status the spec's rules give `caller` on a route outside maintenance. */
function expectedStatus(e: Entry, caller: Caller): number {
  if (caller === 'anonymous') return 401;
  if (e.level === 'authenticated') return e.orgAdminOnly ? 403 : e.success;
  if (!isLevel(caller)) return 401;
  return holds(caller, e.level) ? e.success : 403;
}

let f: AuthzFixture;
beforeAll(async () => {
  f = await AuthzFixture.start();
});
afterAll(() => f?.close());

describe('route table', () => {
  it('the matrix has one entry per route of the table, and no other', () => {
    expect(ROUTES.map((r) => r.key).sort()).toEqual(Object.keys(MATRIX).sort());
  });

  it('the public index GET / is the only public operation', () => {
    const publicOps = apiRoutes().flatMap((def) =>
      Object.entries(def.ops)
        .filter(([, op]) => op!.access === 'public')
        .map(([m]) => `${m} ${specPath(def.path)}`),
    );
    expect(publicOps).toEqual(['GET /']);
  });

  it.each(rows(ROUTES))('%s declares the level the spec requires', (key, { access }) => {
    expect(access).toBe(entryOf(key).level);
  });

  it.each(rows(ROUTES))(
    '%s is kept by Admins during maintenance only if the rules say so',
    (key, r) => {
      expect(r.duringMaintenanceInTable).toBe(Boolean(entryOf(key).duringMaintenance));
    },
  );
});

describe.each(rows(ROUTES))('%s', (key, { method, path }) => {
  it.each(CALLERS)('%s', async (caller) => {
    const entry = entryOf(key);
    const prepared = (await entry.prepare?.(f, caller)) ?? {};
    const params: Partial<Params> = {
      project: f.project,
      userId: emailOf('member')!,
      ...prepared.params,
    };
    const body = 'body' in prepared ? prepared.body : entry.body;
    const target = `${fill(path, params)}${prepared.query ?? ''}`;
    const r = prepared.raw
      ? await f.s.api(method, target, { as: emailOf(caller), raw: prepared.raw })
      : await f.call(caller, method, target, body);
    const expected = expectedStatus(entry, caller);
    expect(r.status, r.text).toBe(expected);
    if (caller === 'anonymous') expect(r.headers.get('www-authenticate')).toMatch(CHALLENGE);
    await entry.check?.(r, { f, caller, params, ok: r.status === entry.success });
  });
});

describe('POST /projects by an organization administrator', () => {
  it('creates the project (201) with the requested id plus a suffix', async () => {
    const r = await f.call({ email: ADMIN }, 'POST', '/projects', {
      id: 'authz-org',
      label: 'Org admin',
      entity: 'default',
    });
    expect(r.status, r.text).toBe(201);
    expect(r.json.project.id).toMatch(/^authz-org-[a-z0-9]+$/);
  });
});

describe('jobs: a member sees only their own; MD Admin and Admin see every job', () => {
  const SEES_ALL: Record<Level, boolean> = {
    member: false,
    useradmin: false,
    mdadmin: true,
    admin: true,
  };
  const jobPath = (id: string) => `/projects/${f.project}/kodiak/scache/obj/${id}`;

  it.each(LEVELS)("%s: GET another member's job", async (level) => {
    const job = await f.submitJob(OTHER_MEMBER);
    const r = await f.call(level, 'GET', jobPath(job));
    expect(r.status, r.text).toBe(SEES_ALL[level] ? 200 : 404);
  });

  it.each(LEVELS)("%s: POST cancel on another member's job", async (level) => {
    const job = await f.submitJob(OTHER_MEMBER);
    const r = await f.call(level, 'POST', `${jobPath(job)}/cancel`);
    expect(r.status, r.text).toBe(SEES_ALL[level] ? 202 : 404);
    const after = await f.call({ email: OTHER_MEMBER }, 'GET', jobPath(job));
    expect(after.status).toBe(200);
    if (!SEES_ALL[level]) expect(after.json.status).not.toBe('CANCELLED');
  });

  it.each(LEVELS)(
    "%s: the job list holds their own jobs, others' only when allowed",
    async (level) => {
      const own = await f.submitJob(emailOf(level)!);
      const other = await f.submitJob(OTHER_MEMBER);
      const r = await f.call(level, 'GET', `/projects/${f.project}/kodiak/scache/obj?limit=1000`);
      expect(r.status, r.text).toBe(200);
      const ids = (r.json.jobs as { id: string }[]).map((j) => j.id);
      expect(ids).toContain(own);
      if (SEES_ALL[level]) expect(ids).toContain(other);
      else expect(ids).not.toContain(other);
    },
  );
});

describe('query results: a member reads only their own; MD Admin and Admin read every one', () => {
  const SEES_ALL: Record<Level, boolean> = {
    member: false,
    useradmin: false,
    mdadmin: true,
    admin: true,
  };

  it.each(LEVELS)("%s: GET the data of another member's query", async (level) => {
    const job = await f.runQuery(OTHER_MEMBER);
    const r = await f.call(level, 'GET', `/projects/${f.project}/app/aql/data/${job}`);
    expect(r.status, r.text).toBe(SEES_ALL[level] ? 200 : 404);
    if (SEES_ALL[level]) expect(r.json.data).toEqual(AUTHZ_QUERY_DATA);
  });
});

describe('maintenance', () => {
  let project: string;
  /** A second project under maintenance, for the Admin's DELETE. */
  let doomed: string;
  let job: string;
  let target: string;

  beforeAll(async () => {
    project = await f.createProject('Authz maintenance');
    await f.inviteLevels(project);
    job = await f.submitJob(emailOf('member')!, project);
    target = await f.throwawayMember(project, 'authz-maintenance-target');
    doomed = await f.createProject('Authz maintenance delete');
    await f.inviteLevels(doomed, ['admin']);
    for (const p of [project, doomed]) {
      const r = await f.call('admin', 'PUT', `/projects/${p}`, { maintenance: true });
      if (r.status !== 200) throw new Error(`maintenance on failed: ${r.status} ${r.text}`);
    }
  });

  it('PUT { maintenance: true } by an Admin put the project under maintenance', async () => {
    const r = await f.call('admin', 'GET', `/projects/${project}`);
    expect(r.status, r.text).toBe(200);
    expect(r.json.project.maintenance).toBe(true);
  });

  describe.each(rows(PROJECT_ROUTES))('%s', (key, { method, path }) => {
    it.each(CALLERS)('%s', async (caller) => {
      const entry = entryOf(key);
      const adminKeeps = caller === 'admin' && Boolean(entry.duringMaintenance);
      const params: Params = {
        project: adminKeeps && method === 'DELETE' ? doomed : project,
        userId: target,
        jobId: job,
        fileId: ANY_FILE_ID,
        uploadId: ANY_FILE_ID,
        id: 'folder.any',
        revision: '1',
        conversationId: 'any',
        messageId: 'any',
        boxId: 'input.storage',
        dashboardId: 'dashboard.any',
        item: 'any',
        table: 'analytics.any',
      };
      const r = await f.call(caller, method, fill(path, params), entry.body);
      if (!isLevel(caller)) {
        expect(r.status, r.text).toBe(401);
        if (caller === 'anonymous') expect(r.headers.get('www-authenticate')).toMatch(CHALLENGE);
      } else if (adminKeeps) {
        expect(r.status, r.text).toBe(entry.success);
      } else {
        expect(r.status, r.text).toBe(403);
        expect(r.json.message).toMatch(/maintenance/);
      }
    });
  });

  it('the Admin ends maintenance with PUT { maintenance: false }; members get in again', async () => {
    const off = await f.call('admin', 'PUT', `/projects/${project}`, { maintenance: false });
    expect(off.status, off.text).toBe(200);
    expect(off.json.project.maintenance).toBe(false);
    const r = await f.call('member', 'GET', `/projects/${project}`);
    expect(r.status, r.text).toBe(200);
  });
});

describe('revoked member (active: false)', () => {
  const REVOKED = { email: 'authz-revoked@example.com' };
  let project: string;
  let job: string;
  let target: string;

  beforeAll(async () => {
    project = await f.createProject('Authz revoked');
    await f.call({ email: ADMIN }, 'POST', `/projects/${project}/users`, { id: REVOKED.email });
    job = await f.submitJob(REVOKED.email, project);
    target = await f.throwawayMember(project, 'authz-revoked-target');
    const r = await f.call(
      { email: ADMIN },
      'PUT',
      `/projects/${project}/users/${encodeURIComponent(REVOKED.email)}`,
      { active: false },
    );
    if (r.status !== 200) throw new Error(`revoke failed: ${r.status} ${r.text}`);
  });

  it('GET /projects still lists the project, with hasAccess: false', async () => {
    const r = await f.call(REVOKED, 'GET', '/projects');
    expect(r.status, r.text).toBe(200);
    expect(r.json.projects[project]).toMatchObject({ id: project, hasAccess: false });
  });

  it.each(rows(PROJECT_ROUTES))('%s → 401', async (key, { method, path }) => {
    const entry = entryOf(key);
    const r = await f.call(
      REVOKED,
      method,
      fill(path, {
        project,
        userId: target,
        jobId: job,
        fileId: ANY_FILE_ID,
        uploadId: ANY_FILE_ID,
        id: 'folder.any',
        revision: '1',
        conversationId: 'any',
        messageId: 'any',
        boxId: 'input.storage',
        dashboardId: 'dashboard.any',
        item: 'any',
        table: 'analytics.any',
      }),
      entry.body,
    );
    expect(r.status, r.text).toBe(401);
  });
});
