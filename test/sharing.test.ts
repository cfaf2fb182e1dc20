// Dashboard shares (SHARING.md "Shares") over real HTTP on the demo flights: who may share
// what (the `s` ACL position, Admin for public shares, the project's dashboardEmbedding),
// private shares opening hidden dashboards and their reports under the reader's own row
// filter, public URLs served without signing in with the sharing Admin's rights and framed
// only by embedOrigins, 404 at once when anything behind a public URL stops holding, e-mail
// notices, invitations of non-members, obj_share events, and the project's embedding settings.
import { and, eq } from 'drizzle-orm';
import { tablesOf } from '../src/engine/db/index.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SHARE_PATH } from '../src/engine/sharing/shares.js';
import { sitePageHtml } from '../src/web/report-pages.js';
import { asText, rowsOf } from './helpers/aql-demo.js';
import {
  createProject,
  parseMail,
  startSmtpSink,
  waitFor,
  type SmtpSink,
} from './helpers/fixtures.js';
import { OUTSIDER, setUpReports, VIEWER, WEST, WEST_FILTER } from './helpers/reports-fixture.js';
import {
  ADMIN,
  invite,
  startTestServer,
  type ApiResponse,
  type TestServer,
} from './helpers/server.js';

/** A plain member whose role holds `s` on dashboard.sharable. */
const SHARER = 'sharer@example.com';
/** A User Admin holding the same role: may invite non-members by sharing. */
const UADMIN = 'uadmin@example.com';
/** A second Admin, demoted in one test. */
const ADMIN2 = 'admin2@example.com';
/** An MD Admin with a row filter: holds `s` on every dashboard and may rewrite every report. */
const MDF = 'md-filtered@example.com';

const viewers = { userrole: 'viewers', acl: 'r----' };
const sharers = { userrole: 'sharers', acl: 'r--s-' };

let s: TestServer;
let smtp: SmtpSink;
const json = { accept: 'application/json' };
const shares = () => `/projects/${s.demo}/pmd/share`;
const share = (id: string) => `${shares()}/${id}`;
const dash = (id: string, q = '') => `/projects/${s.demo}/app/dashboards/${id}${q}`;
const report = (id: string) => `/projects/${s.demo}/app/reports/${id}`;

/** GET of a public share URL (or its path), without credentials. */
function open(url: string, opts: { query?: string; accept?: string } = {}): Promise<ApiResponse> {
  const path = url.startsWith('http') ? new URL(url).pathname : url;
  return s.api('GET', `${s.url}${path}${opts.query ?? ''}`, {
    as: null,
    accept: opts.accept ?? 'text/html',
  });
}

async function setProject(body: Record<string, unknown>): Promise<ApiResponse> {
  const r = await s.api('PUT', `/projects/${s.demo}`, { body });
  expect(r.status, r.text).toBe(200);
  return r;
}

async function create(body: Record<string, unknown>, as = ADMIN): Promise<ApiResponse> {
  return s.api('POST', shares(), { as, body });
}

async function stop(id: string): Promise<void> {
  const r = await s.api('DELETE', share(id));
  expect([204, 404]).toContain(r.status);
}

/** The KPI's value as `as`'s own AQL computes it (TSV text), as a number. */
async function miles(as: string, where = ''): Promise<number> {
  return Number((await rowsOf(s, as, `SELECT [Total Miles]${where}`))[0]![0]!);
}

const kpiOf = (r: ApiResponse): unknown =>
  (r.json.items as { id: string; kpi?: { value: unknown } }[]).find((i) => i.id === 'kpi')!.kpi!
    .value;
const itemIds = (r: ApiResponse): string[] => r.json.items.map((i: { id: string }) => i.id);

beforeAll(async () => {
  smtp = await startSmtpSink();
  s = await startTestServer({
    URSA_DEMO_DATA: 'true',
    URSA_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
  });
  await setUpReports(s);
  await s.engine.model.upsert(
    s.demo,
    [
      { ident: 'sharers', type: 'userrole', name: 'Sharers', def: {} },
      {
        // Hidden from viewers: only `finance` reads it.
        ident: 'dashboard.finance',
        type: 'dashboard',
        name: 'Finance',
        def: {
          items: [
            { id: 'kpi', report: 'report.kpi_miles' },
            { id: 'finance', report: 'report.finance_table' },
          ],
          layout: [],
          filters: [],
        },
        acl: [{ userrole: 'finance', acl: 'r----' }],
      },
      {
        ident: 'dashboard.sharable',
        type: 'dashboard',
        name: 'Sharable',
        def: {
          items: [
            { id: 'kpi', report: 'report.kpi_miles' },
            { id: 'finance', report: 'report.finance_table' },
          ],
          layout: [{ item: 'kpi', x: 0, y: 0, w: 4, h: 2 }],
          filters: [
            { attribute: 'attr.airports.region' },
            { attribute: 'attr.flights.flight_date' },
          ],
        },
        acl: [viewers, sharers],
      },
    ],
    ADMIN,
  );
  await invite(s, s.demo, SHARER, { roles: ['viewers', 'sharers'] });
  await invite(s, s.demo, UADMIN, { roles: ['viewers', 'sharers'], useradmin: true });
  await invite(s, s.demo, ADMIN2, { admin: true });
  await invite(s, s.demo, MDF, { mdadmin: true, filter: WEST_FILTER });
}, 180_000);

afterAll(async () => {
  await s?.close();
  await smtp?.close();
});

describe('project embedding settings', () => {
  it('are off and empty by default, and shown in the project details', async () => {
    const r = await s.api('GET', `/projects/${s.demo}`);
    expect(r.json.project).toMatchObject({ dashboardEmbedding: false, embedOrigins: [] });
  });

  it('take dashboardEmbedding and embedOrigins (normalized, duplicates dropped); null clears', async () => {
    const r = await setProject({
      dashboardEmbedding: true,
      embedOrigins: [
        'https://Intranet.Example.com',
        'http://localhost:3000',
        'https://intranet.example.com:443',
      ],
    });
    expect(r.json.project).toMatchObject({
      dashboardEmbedding: true,
      embedOrigins: ['https://intranet.example.com', 'http://localhost:3000'],
    });
    const cleared = await setProject({ embedOrigins: null, dashboardEmbedding: false });
    expect(cleared.json.project).toMatchObject({ dashboardEmbedding: false, embedOrigins: [] });
    await setProject({ embedOrigins: ['https://a.example'] });
    expect((await setProject({ embedOrigins: [] })).json.project.embedOrigins).toEqual([]);
  });

  it.each([
    [
      'a path',
      ['https://a.example/embed'],
      /"https:\/\/a\.example\/embed" is not an origin: .*without a path/,
    ],
    ['a trailing slash', ['https://a.example/'], /"https:\/\/a\.example\/" is not an origin/],
    ['no scheme', ['a.example'], /"a\.example" is not an origin/],
    [
      'another scheme',
      ['ftp://a.example'],
      /"ftp:\/\/a\.example" is not an origin: use http or https/,
    ],
    [
      'a CSP injection',
      ["https://a.example; script-src 'unsafe-inline'"],
      /"https:\/\/a\.example; script-src 'unsafe-inline'" is not an origin/,
    ],
    ['a wildcard', ['https://*.example.com'], /"https:\/\/\*\.example\.com" is not an origin/],
    ['a user name', ['https://me@a.example'], /"https:\/\/me@a\.example" is not an origin/],
    ['a number in the list', [443], /each origin is a string/],
    ['a string instead of a list', 'https://a.example', /must be a list of origins, or null/],
    [
      'more than 50',
      Array.from({ length: 51 }, (_, i) => `https://h${i}.example`),
      /at most 50 origins/,
    ],
  ])('refuse %s with 400 saying which value is wrong and why', async (_what, embedOrigins, why) => {
    const r = await s.api('PUT', `/projects/${s.demo}`, { body: { embedOrigins } });
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toMatch(/^invalid project update: embedOrigins(\.\d+)?: /);
    expect(r.json.message).toMatch(why);
    expect(r.json.message).not.toMatch(/Invalid input/);
    expect(r.json.context.field).toBe('embedOrigins');
  });

  it('are changed by Admins only', async () => {
    const r = await s.api('PUT', `/projects/${s.demo}`, {
      as: UADMIN,
      body: { dashboardEmbedding: true },
    });
    expect(r.status).toBe(403);
  });
});

describe('who may share what', () => {
  it('a member without `s` on the dashboard → 403 naming it', async () => {
    const r = await create({ type: 'private', object: 'dashboard.ops', users: [WEST] }, VIEWER);
    expect(r.status, r.text).toBe(403);
    expect(r.json.message).toMatch(/s \(share\) position/);
    expect(r.json.context).toMatchObject({ dashboard: 'dashboard.ops', needs: 's' });
  });

  it('a dashboard the caller cannot see, or none, → 404 (hidden reads as missing)', async () => {
    const hidden = await create(
      { type: 'private', object: 'dashboard.ops', users: [WEST] },
      OUTSIDER,
    );
    expect(hidden.status).toBe(404);
    const none = await create({ type: 'private', object: 'dashboard.nope', users: [WEST] });
    expect(none.status).toBe(404);
    expect(hidden.json.message).toBe('dashboard "dashboard.ops" not found');
    const notDash = await create({ type: 'private', object: 'report.kpi_miles', users: [WEST] });
    expect(notDash.status).toBe(404);
  });

  it('a member whose role holds `s` shares privately → 201; a second share → 409 pointing to PUT', async () => {
    const r = await create(
      { type: 'private', object: 'dashboard.sharable', users: [WEST] },
      SHARER,
    );
    expect(r.status, r.text).toBe(201);
    expect(r.headers.get('location')).toBe(`/api/v1${share('dashboard.sharable')}`);
    expect(r.json.share).toMatchObject({
      dashboard: 'dashboard.sharable',
      name: 'Sharable',
      type: 'private',
      users: [WEST],
      emailNotif: false,
      createdBy: SHARER,
      updatedBy: SHARER,
    });
    expect(r.json.share.url).toBeUndefined();
    expect(r.json.share.link.map((l: { rel: string }) => l.rel)).toEqual([
      'self',
      'object.dashboard',
      'dashboard',
    ]);
    const again = await create(
      { type: 'private', object: 'dashboard.sharable', users: [VIEWER] },
      SHARER,
    );
    expect(again.status).toBe(409);
    expect(again.json.message).toContain(`PUT /api/v1${share('dashboard.sharable')}`);
    await stop('dashboard.sharable');
  });

  it('a public share by a non-Admin → 403, even with `s` and embedding on', async () => {
    await setProject({ dashboardEmbedding: true });
    const r = await create({ type: 'public', object: 'dashboard.sharable' }, SHARER);
    expect(r.status).toBe(403);
    expect(r.json.message).toMatch(/Admin/);
  });

  it('a public share while dashboardEmbedding is off → 403 naming dashboardEmbedding', async () => {
    await setProject({ dashboardEmbedding: false });
    const r = await create({ type: 'public', object: 'dashboard.ops' });
    expect(r.status).toBe(403);
    expect(r.json.message).toMatch(/dashboardEmbedding/);
    expect(r.json.context).toMatchObject({ setting: 'dashboardEmbedding' });
  });

  it('naming a non-member: refused for a plain member (403 naming them), invited by a User Admin', async () => {
    const stranger = 'stranger@example.com';
    const refused = await create(
      { type: 'private', object: 'dashboard.sharable', users: [WEST, stranger] },
      SHARER,
    );
    expect(refused.status).toBe(403);
    expect(refused.json.message).toContain(stranger);
    expect(refused.json.context.users).toEqual([stranger]);
    expect((await s.api('GET', share('dashboard.sharable'))).status).toBe(404);

    const r = await create(
      { type: 'private', object: 'dashboard.sharable', users: [WEST, 'Stranger@Example.com'] },
      UADMIN,
    );
    expect(r.status, r.text).toBe(201);
    expect(r.json.share.users).toEqual([WEST, stranger]);
    expect(r.json.invited).toEqual([{ id: stranger, status: 'invited' }]);
    const member = await s.api('GET', `/projects/${s.demo}/users/${stranger}`);
    expect(member.json.user).toMatchObject({
      id: stranger,
      active: true,
      admin: false,
      mdadmin: false,
      useradmin: false,
      roles: [],
      invitedBy: UADMIN,
    });
    // The share opens the dashboard to the new member.
    const opened = await s.api('GET', dash('dashboard.sharable'), { as: stranger, ...json });
    expect(opened.status).toBe(200);
    await stop('dashboard.sharable');
  });

  it('an invitation beyond the plan limit `users` → 402, and no share', async () => {
    const project = await createProject(s, 'full', 'Full');
    await s.engine.model.upsert(
      project,
      [{ ident: 'dashboard.empty', type: 'dashboard', name: 'Empty', def: { items: [] } }],
      ADMIN,
    );
    const limit = s.engine.plans.free!.limits.users;
    for (let i = 1; i < limit; i++) await invite(s, project, `full${i}@example.com`);
    const r = await s.api('POST', `/projects/${project}/pmd/share`, {
      body: { type: 'private', object: 'dashboard.empty', users: ['one-too-many@example.com'] },
    });
    expect(r.status, r.text).toBe(402);
    expect(r.json.context).toMatchObject({ limit: 'users' });
    expect((await s.api('GET', `/projects/${project}/pmd/share/dashboard.empty`)).status).toBe(404);
    const users = await s.api('GET', `/projects/${project}/users?limit=100`);
    expect(users.json.users.map((u: { id: string }) => u.id)).not.toContain(
      'one-too-many@example.com',
    );
  });
});

describe('bodies', () => {
  it.each([
    ['no type', { object: 'dashboard.ops', users: [VIEWER] }, 'type'],
    ['an unknown type', { type: 'secret', object: 'dashboard.ops', users: [VIEWER] }, 'type'],
    ['no object', { type: 'private', users: [VIEWER] }, 'object'],
    ['a private share without users', { type: 'private', object: 'dashboard.ops' }, 'users'],
    ['an empty users list', { type: 'private', object: 'dashboard.ops', users: [] }, 'users'],
    [
      'users that are not e-mails',
      { type: 'private', object: 'dashboard.ops', users: ['bob'] },
      'users.0',
    ],
    ['users as a string', { type: 'private', object: 'dashboard.ops', users: VIEWER }, 'users'],
    [
      'emailNotif not a boolean',
      { type: 'private', object: 'dashboard.ops', users: [VIEWER], emailNotif: 'maybe' },
      'emailNotif',
    ],
    [
      'an unknown key',
      { type: 'private', object: 'dashboard.ops', users: [VIEWER], expires: 3 },
      '(body)',
    ],
  ])('%s → 400 naming the field', async (_what, body, field) => {
    const r = await create(body);
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toMatch(/^invalid share: /);
    expect(r.json.message).not.toMatch(/Invalid input$/);
    expect(r.json.context.issues[0].path).toBe(field);
  });

  it('a value none of the accepted forms takes → 400 listing them, not "Invalid input"', async () => {
    const r = await create({
      type: 'private',
      object: 'dashboard.ops',
      users: [VIEWER],
      emailNotif: 'maybe',
    });
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toMatch(
      /^invalid share: emailNotif: must be a boolean or one of .*"true".*"false".*, not the string "maybe"$/,
    );
    expect(r.json.context.field).toBe('emailNotif');
  });

  it('POST and PUT always answer `invited` and `notified` as lists, empty when nobody was', async () => {
    try {
      const r = await create({ type: 'private', object: 'dashboard.ops', users: [VIEWER] });
      expect(r.status, r.text).toBe(201);
      expect(r.json.invited).toEqual([]);
      expect(r.json.notified).toEqual([]);
      const put = await s.api('PUT', share('dashboard.ops'), { body: { users: [VIEWER, WEST] } });
      expect(put.status, put.text).toBe(200);
      expect(put.json.invited).toEqual([]);
      expect(put.json.notified).toEqual([]);
    } finally {
      await stop('dashboard.ops');
    }
  });

  it('PUT: an object other than the path, an unknown key, a private share emptied → 400', async () => {
    expect(
      (await create({ type: 'private', object: 'dashboard.ops', users: [VIEWER] })).status,
    ).toBe(201);
    const other = await s.api('PUT', share('dashboard.ops'), {
      body: { object: 'dashboard.finance' },
    });
    expect(other.status).toBe(400);
    expect(other.json.context.field).toBe('object');
    const unknown = await s.api('PUT', share('dashboard.ops'), { body: { token: 'x' } });
    expect(unknown.status).toBe(400);
    const empty = await s.api('PUT', share('dashboard.ops'), { body: { users: [] } });
    expect(empty.status).toBe(400);
    expect(empty.json.context.issues[0].path).toBe('users');
    expect((await s.api('GET', share('dashboard.ops'))).json.share.users).toEqual([VIEWER]);
    await stop('dashboard.ops');
  });
});

describe('private shares', () => {
  beforeAll(async () => {
    const r = await create({
      type: 'private',
      object: 'dashboard.finance',
      users: [OUTSIDER, WEST],
    });
    expect(r.status, r.text).toBe(201);
  });
  afterAll(() => stop('dashboard.finance'));

  it('open a dashboard hidden by the ACL to the named members, with every item', async () => {
    expect((await s.api('GET', dash('dashboard.finance'), { as: VIEWER, ...json })).status).toBe(
      404,
    );
    const r = await s.api('GET', dash('dashboard.finance'), { as: OUTSIDER, ...json });
    expect(r.status, r.text).toBe(200);
    expect(itemIds(r)).toEqual(['kpi', 'finance']);
    expect(r.json.items[1].rows.length).toBeGreaterThan(0);
    const list = await s.api('GET', `/projects/${s.demo}/app/dashboards`, {
      as: OUTSIDER,
      ...json,
    });
    expect(list.json.dashboards.map((d: { ident: string }) => d.ident).sort()).toEqual([
      'dashboard.demo_flights', // the demo's own: no ACL, every member reads it
      'dashboard.finance',
    ]);
  });

  it("open the dashboard's reports (app/reports/{id}) to them, not others", async () => {
    const r = await s.api('GET', report('report.finance_table'), { as: OUTSIDER, ...json });
    expect(r.status, r.text).toBe(200);
    expect(r.json.rows.length).toBeGreaterThan(0);
    expect(
      (await s.api('GET', report('report.finance_table'), { as: VIEWER, ...json })).status,
    ).toBe(404);
    // A report on no shared dashboard stays hidden.
    expect((await s.api('GET', report('report.by_region'), { as: OUTSIDER, ...json })).status).toBe(
      404,
    );
  });

  it("compute every item under the reader's own row filter", async () => {
    const r = await s.api('GET', dash('dashboard.finance'), { as: WEST, ...json });
    expect(r.status).toBe(200);
    const own = await miles(WEST);
    expect(own).toBe(await miles(ADMIN, ` WHERE ${WEST_FILTER}`));
    expect(own).not.toBe(await miles(ADMIN));
    expect(kpiOf(r)).toBe(own);
    const finance = await s.api('GET', report('report.finance_table'), { as: WEST, ...json });
    const adminRows = await rowsOf(
      s,
      ADMIN,
      `SELECT [Carrier Name], [Flights Flown], [Total Miles] WHERE ${WEST_FILTER}`,
    );
    expect(asText(finance.json.rows)).toEqual(adminRows);
  });

  it('leave hidden reports out for members who read the dashboard by the ACL', async () => {
    expect(
      (await create({ type: 'private', object: 'dashboard.ops', users: [OUTSIDER] })).status,
    ).toBe(201);
    try {
      const viewer = await s.api('GET', dash('dashboard.ops'), { as: VIEWER, ...json });
      expect(viewer.status).toBe(200);
      expect(itemIds(viewer)).not.toContain('finance');
      const named = await s.api('GET', dash('dashboard.ops'), { as: OUTSIDER, ...json });
      expect(itemIds(named)).toContain('finance');
    } finally {
      await stop('dashboard.ops');
    }
  });

  it('open the hidden reports to a member who reads the dashboard by role and is named too', async () => {
    expect(
      itemIds(await s.api('GET', dash('dashboard.ops'), { as: VIEWER, ...json })),
    ).not.toContain('finance');
    expect(
      (await create({ type: 'private', object: 'dashboard.ops', users: [VIEWER] })).status,
    ).toBe(201);
    try {
      const named = await s.api('GET', dash('dashboard.ops'), { as: VIEWER, ...json });
      expect(itemIds(named)).toContain('finance');
      const finance = await s.api('GET', report('report.finance_table'), { as: VIEWER, ...json });
      expect(finance.status, finance.text).toBe(200);
    } finally {
      await stop('dashboard.ops');
    }
  });

  it('are read from the database every time: a row removed by another process closes at once', async () => {
    const project = s.demo;
    const { shares: sharesTable } = tablesOf(s.engine.db);
    await s.engine.db
      .update(sharesTable)
      .set({ users: [WEST] })
      .where(
        and(eq(sharesTable.projectId, project), eq(sharesTable.dashboard, 'dashboard.finance')),
      );
    expect((await s.api('GET', dash('dashboard.finance'), { as: OUTSIDER, ...json })).status).toBe(
      404,
    );
    expect(await s.engine.shares.sharedWith(project, 'dashboard.finance', 'WEST@example.com')).toBe(
      true,
    );
    const back = await s.api('PUT', share('dashboard.finance'), {
      body: { users: [OUTSIDER, WEST] },
    });
    expect(back.status, back.text).toBe(200);
    expect((await s.api('GET', dash('dashboard.finance'), { as: OUTSIDER, ...json })).status).toBe(
      200,
    );
  });

  it('are listed to those who can see the dashboard; a stopped one closes at once', async () => {
    const admin = await s.api('GET', shares());
    expect(admin.json.shares.map((x: { dashboard: string }) => x.dashboard)).toContain(
      'dashboard.finance',
    );
    const viewer = await s.api('GET', shares(), { as: VIEWER });
    expect(viewer.json.shares.map((x: { dashboard: string }) => x.dashboard)).not.toContain(
      'dashboard.finance',
    );
    expect((await s.api('GET', share('dashboard.finance'), { as: VIEWER })).status).toBe(404);
  });
});

describe('public shares', () => {
  let url: string;

  beforeAll(async () => {
    await setProject({ dashboardEmbedding: true, embedOrigins: null });
    const r = await create({ type: 'public', object: 'dashboard.sharable' });
    expect(r.status, r.text).toBe(201);
    url = r.json.share.url;
  });
  afterAll(async () => {
    await stop('dashboard.sharable');
    await setProject({ dashboardEmbedding: false, embedOrigins: null });
  });

  it('answer `url` = {site_url}/share/{token} with an unguessable token', () => {
    expect(url.startsWith(`${s.engine.config.siteUrl}${SHARE_PATH}/`)).toBe(true);
    const token = url.split('/').pop()!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
  });

  it("are served without signing in, with the Admin's numbers and every item", async () => {
    const r = await open(url, { accept: 'application/json' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.dashboard).toEqual({
      ident: 'dashboard.sharable',
      name: 'Sharable',
      description: '',
    });
    expect(itemIds(r)).toEqual(['kpi', 'finance']);
    expect(kpiOf(r)).toBe(await miles(ADMIN));
    // Typed cells: number columns as JSON numbers, text as text.
    expect(typeof kpiOf(r)).toBe('number');
    const finance = r.json.items[1];
    const types = finance.columns.map((c: { dataType: string }) =>
      c.dataType === 'integer' || c.dataType === 'number' ? 'number' : 'string',
    );
    expect(types).toEqual(['string', 'number', 'number']);
    expect(finance.rows.length).toBeGreaterThan(0);
    for (const row of finance.rows) expect(row.map((c: unknown) => typeof c)).toEqual(types);
    const viaFormat = await open(url, { query: '?format=json', accept: '*/*' });
    expect(viaFormat.json.items).toEqual(r.json.items);
  });

  it('are HTML pages framable by any origin (`*`) while embedOrigins is unset, never cached or indexed', async () => {
    const r = await open(url);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.text).toContain('<h1>Sharable</h1>');
    expect(r.text).toContain(`action="${SHARE_PATH}/${url.split('/').pop()}"`);
    // Public readers have no API: report titles are not links.
    expect(r.text).not.toContain('/app/reports/');
    expect(r.headers.get('content-security-policy')).toMatch(/frame-ancestors \*(;|$)/);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    expect(r.headers.get('x-robots-tag')).toBe('noindex');
  });

  it('are framable by exactly the embedOrigins once set', async () => {
    await setProject({ embedOrigins: ['https://intranet.example.com', 'http://localhost:3000'] });
    const r = await open(url);
    expect(r.headers.get('content-security-policy')).toMatch(
      /frame-ancestors https:\/\/intranet\.example\.com http:\/\/localhost:3000(;|$)/,
    );
    await setProject({ embedOrigins: null });
  });

  it('apply dashboard filters from the query string (both spellings); a bad one → 400', async () => {
    const west = await open(url, {
      query: '?filter=attr.airports.region:West',
      accept: 'application/json',
    });
    expect(west.status, west.text).toBe(200);
    expect(kpiOf(west)).toBe(await miles(ADMIN, ` WHERE ${WEST_FILTER}`));
    const form = await open(url, { query: '?filter[attr.airports.region]=West&format=json' });
    expect(kpiOf(form)).toBe(kpiOf(west));
    const html = await open(url, { query: '?filter[attr.airports.region]=West' });
    expect(html.text).toContain('value="West"');
    const bad = await open(url, { query: '?filter=attr.nope:x', accept: 'application/json' });
    expect(bad.status).toBe(400);
  });

  it('a date filter is a period and two days, a plain form that needs no script', async () => {
    const F = 'attr.flights.flight_date';
    const q = (fields: Record<string, string>) =>
      `?${Object.entries(fields)
        .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
        .join('&')}`;
    const page = await open(url);
    expect(page.status).toBe(200);
    // The period's choices (the app's), then From and To as date fields; no script anywhere.
    const select =
      /<select id="([^"]+)" name="filter\[attr\.flights\.flight_date\]">(.*?)<\/select>/s.exec(
        page.text,
      );
    expect(select, page.text).not.toBeNull();
    expect(
      [...select![2]!.matchAll(/<option value="([^"]*)"( selected)?>([^<]*)</g)].map((m) => [
        m[1],
        m[3],
        !!m[2],
      ]),
    ).toEqual([
      ['', 'Any time', true],
      ['last 7 days', 'Last 7 days', false],
      ['last 30 days', 'Last 30 days', false],
      ['last 90 days', 'Last 90 days', false],
      ['this month', 'This month', false],
      ['this year', 'This year', false],
      ['..', 'Between the dates', false],
    ]);
    expect(page.text).toContain(`<label for="${select![1]}">Period`);
    expect(page.text).toMatch(
      /<input type="date" id="[^"]+" name="from\[attr\.flights\.flight_date\]" value="">/,
    );
    expect(page.text).toMatch(
      /<input type="date" id="[^"]+" name="to\[attr\.flights\.flight_date\]" value="">/,
    );
    expect(page.text).not.toContain('<script');

    // Between the dates: the two days make one range, the numbers of January.
    const january = await miles(
      ADMIN,
      ' WHERE [Flight Date] >= "2024-01-01" AND [Flight Date] <= "2024-01-31"',
    );
    const between = {
      [`filter[${F}]`]: '..',
      [`from[${F}]`]: '2024-01-01',
      [`to[${F}]`]: '2024-01-31',
    };
    const json = await open(url, { query: q(between), accept: 'application/json' });
    expect(json.status, json.text).toBe(200);
    expect(kpiOf(json)).toBe(january);
    expect(kpiOf(json)).not.toBe(kpiOf(await open(url, { accept: 'application/json' })));
    const html = await open(url, { query: q(between) });
    expect(html.text).toContain('<option value=".." selected>Between the dates</option>');
    expect(html.text).toContain(`name="from[${F}]" value="2024-01-01"`);
    expect(html.text).toContain(`name="to[${F}]" value="2024-01-31"`);
    // Days given while the period is Any time are the range; one day alone is open-ended.
    const anyTime = { ...between, [`filter[${F}]`]: '' };
    expect(kpiOf(await open(url, { query: q(anyTime), accept: 'application/json' }))).toBe(january);
    const since = await open(url, {
      query: q({ [`filter[${F}]`]: '..', [`from[${F}]`]: '2024-12-01', [`to[${F}]`]: '' }),
      accept: 'application/json',
    });
    expect(kpiOf(since)).toBe(await miles(ADMIN, ' WHERE [Flight Date] >= "2024-12-01"'));
    // A chosen period wins over the days; it shows as chosen and the days empty.
    const preset = { ...between, [`filter[${F}]`]: 'this year' };
    const year = await open(url, { query: q(preset) });
    expect(year.text).toContain('<option value="this year" selected>This year</option>');
    expect(year.text).toContain(`name="from[${F}]" value=""`);
    // Between the dates with no day: every day.
    const none = { [`filter[${F}]`]: '..', [`from[${F}]`]: '', [`to[${F}]`]: '' };
    expect(kpiOf(await open(url, { query: q(none), accept: 'application/json' }))).toBe(
      kpiOf(await open(url, { accept: 'application/json' })),
    );
    // A range that ends before it starts is the API's 400.
    const backwards = { ...between, [`from[${F}]`]: '2024-02-01' };
    expect((await open(url, { query: q(backwards), accept: 'application/json' })).status).toBe(400);
  });

  it('show `url` only to those who could make it: Admins without a row filter', async () => {
    expect((await s.api('GET', share('dashboard.sharable'))).json.share.url).toBe(url);
    const token = url.split('/').pop()!;
    // A member with a row filter who holds `s` (every MD Admin does) would read every row
    // through the URL: they see that it is public, never its address.
    const filteredAdmin = await s.api('PUT', `/projects/${s.demo}/users/${ADMIN2}`, {
      body: { filter: WEST_FILTER },
    });
    expect(filteredAdmin.status, filteredAdmin.text).toBe(200);
    try {
      for (const as of [MDF, ADMIN2, SHARER, VIEWER]) {
        const one = await s.api('GET', share('dashboard.sharable'), { as });
        expect(one.status, `${as}: ${one.text}`).toBe(200);
        expect(one.json.share.type).toBe('public');
        expect(one.json.share.url, as).toBeUndefined();
        const list = await s.api('GET', shares(), { as });
        expect(list.status).toBe(200);
        expect(list.text, as).not.toContain(token);
      }
    } finally {
      await s.api('PUT', `/projects/${s.demo}/users/${ADMIN2}`, { body: { filter: null } });
    }
  });

  it('are changed and stopped by Admins only', async () => {
    const put = await s.api('PUT', share('dashboard.sharable'), {
      as: SHARER,
      body: { users: [WEST] },
    });
    expect(put.status).toBe(403);
    const del = await s.api('DELETE', share('dashboard.sharable'), { as: SHARER });
    expect(del.status).toBe(403);
    expect((await open(url)).status).toBe(200);
  });

  it('answer 404 at once while embedding is off, and again when it is back on', async () => {
    await setProject({ dashboardEmbedding: false });
    const off = await open(url, { accept: 'application/json' });
    expect(off.status).toBe(404);
    expect(off.json.message).toBe('no shared dashboard at this address');
    expect(off.headers.get('cache-control')).toBe('no-store');
    await setProject({ dashboardEmbedding: true });
    expect((await open(url)).status).toBe(200);
  });

  it('answer the same 404 for an unknown or malformed token', async () => {
    for (const path of [`${SHARE_PATH}/${'A'.repeat(43)}`, `${SHARE_PATH}/short`]) {
      const r = await open(path, { accept: 'application/json' });
      expect(r.status).toBe(404);
      expect(r.json.message).toBe('no shared dashboard at this address');
    }
  });

  it('turned private drop the URL (404), and public again get a new one', async () => {
    const priv = await s.api('PUT', share('dashboard.sharable'), {
      body: { type: 'private', users: [VIEWER] },
    });
    expect(priv.status, priv.text).toBe(200);
    expect(priv.json.share.url).toBeUndefined();
    expect((await open(url)).status).toBe(404);
    const pub = await s.api('PUT', share('dashboard.sharable'), { body: { type: 'public' } });
    expect(pub.status, pub.text).toBe(200);
    expect(pub.json.share.url).not.toBe(url);
    expect((await open(pub.json.share.url)).status).toBe(200);
    expect((await open(url)).status).toBe(404);
    url = pub.json.share.url;
  });

  it('answer 404 once the sharing Admin is no longer an Admin; another Admin takes it over by a change', async () => {
    await stop('dashboard.ops');
    const r = await create({ type: 'public', object: 'dashboard.ops' }, ADMIN2);
    expect(r.status, r.text).toBe(201);
    const own = r.json.share.url;
    expect((await open(own)).status).toBe(200);
    const demote = await s.api('PUT', `/projects/${s.demo}/users/${ADMIN2}`, {
      body: { admin: false },
    });
    expect(demote.status, demote.text).toBe(200);
    const after = await open(own, { accept: 'application/json' });
    expect(after.status).toBe(404);
    expect(after.json.message).toBe('no shared dashboard at this address');
    const taken = await s.api('PUT', share('dashboard.ops'), { body: { emailNotif: false } });
    expect(taken.json.share.updatedBy).toBe(ADMIN);
    expect((await open(own)).status).toBe(200);
    await stop('dashboard.ops');
    await s.api('PUT', `/projects/${s.demo}/users/${ADMIN2}`, { body: { admin: true } });
  });

  it('are made only by Admins without a row filter; once the sharing Admin gets one, 404 until it is lifted', async () => {
    const setFilter = async (filter: string | null) => {
      const r = await s.api('PUT', `/projects/${s.demo}/users/${ADMIN2}`, { body: { filter } });
      expect(r.status, r.text).toBe(200);
    };
    await stop('dashboard.ops');
    await setFilter(WEST_FILTER);
    try {
      const refused = await create({ type: 'public', object: 'dashboard.ops' }, ADMIN2);
      expect(refused.status, refused.text).toBe(403);
      expect(refused.json.message).toMatch(/without a row filter/);
      expect(refused.json.context).toMatchObject({ required: 'admin', rowFilter: true });
      await setFilter(null);
      const r = await create({ type: 'public', object: 'dashboard.ops' }, ADMIN2);
      expect(r.status, r.text).toBe(201);
      expect((await open(r.json.share.url)).status).toBe(200);
      await setFilter(WEST_FILTER);
      const after = await open(r.json.share.url, { accept: 'application/json' });
      expect(after.status).toBe(404);
      expect(after.json.message).toBe('no shared dashboard at this address');
      // Nor may they keep it public by changing it.
      const keep = await s.api('PUT', share('dashboard.ops'), { as: ADMIN2, body: {} });
      expect(keep.status).toBe(403);
      await setFilter(null);
      expect((await open(r.json.share.url)).status).toBe(200);
    } finally {
      await stop('dashboard.ops');
      await setFilter(null);
    }
  });

  it('answer 404 at once when stopped', async () => {
    const del = await s.api('DELETE', share('dashboard.sharable'));
    expect(del.status).toBe(204);
    expect((await open(url)).status).toBe(404);
    expect((await s.api('GET', share('dashboard.sharable'))).status).toBe(404);
    expect((await s.api('DELETE', share('dashboard.sharable'))).status).toBe(404);
  });

  it('print as the same page through sitePageHtml (app/export/url)', async () => {
    const r = await create({ type: 'public', object: 'dashboard.sharable' });
    const actor = await s.engine.actor({ email: VIEWER }, s.demo);
    const page = await sitePageHtml(s.engine, actor, new URL(r.json.share.url));
    expect(page?.title).toBe('Sharable');
    expect(page?.html).toContain('Carrier finance table');
  });
});

describe('what a public share computes is pinned', () => {
  // A dashboard of its own, so rewriting its report and metric disturbs no other test.
  const METRIC = {
    ident: 'metric.pin_flights',
    type: 'metric',
    name: 'Pinned Flights',
    def: { aql: 'SELECT COUNT([Flight])' },
  };
  const REPORT = {
    ident: 'report.pin_rows',
    type: 'report',
    name: 'Pinned rows',
    def: { aql: 'SELECT [Carrier Name], [Pinned Flights]', visualization: { type: 'table' } },
  };
  const DASHBOARD = {
    ident: 'dashboard.pinned',
    type: 'dashboard',
    name: 'Pinned',
    def: { items: [{ id: 'rows', report: REPORT.ident }] },
  };
  /** What a reader would like to see unfiltered: rows by region, a dimension the filter cuts. */
  const BY_REGION = 'SELECT [Carrier Name], [Origin Region], [Pinned Flights]';
  let url: string;

  const change = (
    o: { ident: string; name: string },
    def: Record<string, unknown>,
    as: string,
  ): Promise<ApiResponse> =>
    s.api('PUT', `/projects/${s.demo}/pmd/obj/${o.ident}`, { as, body: { name: o.name, def } });
  const page = () => open(url, { accept: 'application/json' });
  const titles = (r: ApiResponse): string[] =>
    r.json.items[0].columns.map((c: { title: string }) => c.title);

  beforeAll(() => setProject({ dashboardEmbedding: true, embedOrigins: null }));
  afterAll(async () => {
    await stop(DASHBOARD.ident);
    await setProject({ dashboardEmbedding: false });
  });
  beforeEach(async () => {
    await stop(DASHBOARD.ident);
    await s.engine.model.upsert(s.demo, [METRIC, REPORT, DASHBOARD], ADMIN);
    const r = await create({ type: 'public', object: DASHBOARD.ident });
    expect(r.status, r.text).toBe(201);
    url = r.json.share.url;
    const before = await page();
    expect(before.status, before.text).toBe(200);
    expect(titles(before)).toEqual(['Carrier Name', 'Pinned Flights']);
  });

  it('an MD Admin with a row filter who rewrites its report stops the URL (404)', async () => {
    const own = await change(REPORT, { ...REPORT.def, aql: BY_REGION }, MDF);
    expect(own.status, own.text).toBe(200);
    // As themselves they read the West only; through the URL it would be every region.
    const mine = await s.api('GET', report(REPORT.ident), { as: MDF, ...json });
    expect(mine.status, mine.text).toBe(200);
    expect(new Set(mine.json.rows.map((r: unknown[]) => r[1]))).toEqual(new Set(['West']));
    const r = await page();
    expect(r.status, r.text).toBe(404);
    expect(r.json.message).toBe('no shared dashboard at this address');
    expect((await open(url)).status).toBe(404);
  });

  it('so does a change to a metric it uses, or to the dashboard itself', async () => {
    expect((await change(METRIC, { aql: 'SELECT SUM([Distance])' }, MDF)).status).toBe(200);
    expect((await page()).status).toBe(404);
    await s.engine.model.upsert(s.demo, [METRIC], ADMIN);
    // The metric is as pinned again, but its history holds a change by MDF since the pin.
    expect((await page()).status).toBe(404);

    const shared = await create({ type: 'public', object: DASHBOARD.ident });
    expect(shared.status).toBe(409);
    expect((await s.api('PUT', share(DASHBOARD.ident), { body: {} })).status).toBe(200);
    expect((await page()).status).toBe(200);
    const more = {
      items: [...DASHBOARD.def.items, { id: 'finance', report: 'report.finance_table' }],
    };
    expect((await change(DASHBOARD, more, MDF)).status).toBe(200);
    expect((await page()).status).toBe(404);
  });

  it('so does an object new to what it computes, written by someone else', async () => {
    const metric = {
      ident: 'metric.pin_by_mdf',
      type: 'metric',
      name: 'Pin By MDF',
      def: { aql: 'SELECT SUM([Distance])' },
    };
    const made = await s.api('POST', `/projects/${s.demo}/pmd/obj`, { as: MDF, body: metric });
    expect(made.status, made.text).toBe(201);
    // An Admin's change to the report is theirs, but it now reads MDF's metric.
    const aql = 'SELECT [Carrier Name], [Pin By MDF]';
    expect((await change(REPORT, { ...REPORT.def, aql }, ADMIN)).status).toBe(200);
    expect((await page()).status).toBe(404);
    await s.engine.model.upsert(s.demo, [REPORT], ADMIN);
    expect((await s.api('DELETE', `/projects/${s.demo}/pmd/obj/${metric.ident}`)).status).toBe(204);
  });

  it("an unfiltered Admin's changes keep it served, showing them", async () => {
    expect((await change(REPORT, { ...REPORT.def, aql: BY_REGION }, ADMIN)).status).toBe(200);
    const r = await page();
    expect(r.status, r.text).toBe(200);
    expect(titles(r)).toEqual(['Carrier Name', 'Origin Region', 'Pinned Flights']);
    expect(new Set(r.json.items[0].rows.map((row: unknown[]) => row[1])).size).toBeGreaterThan(1);
  });

  it('an unfiltered Admin who changes the share takes over what it computes then', async () => {
    expect((await change(REPORT, { ...REPORT.def, aql: BY_REGION }, MDF)).status).toBe(200);
    expect((await page()).status).toBe(404);
    const taken = await s.api('PUT', share(DASHBOARD.ident), { body: { emailNotif: false } });
    expect(taken.status, taken.text).toBe(200);
    const r = await page();
    expect(r.status, r.text).toBe(200);
    expect(titles(r)).toEqual(['Carrier Name', 'Origin Region', 'Pinned Flights']);
  });

  it('keeps the pin in the metadata DB: a public share without one answers 404 until an Admin changes it', async () => {
    const { shares: sharesTable } = tablesOf(s.engine.db);
    await s.engine.db
      .update(sharesTable)
      .set({ pinned: null })
      .where(and(eq(sharesTable.projectId, s.demo), eq(sharesTable.dashboard, DASHBOARD.ident)));
    expect((await page()).status).toBe(404);
    expect((await s.api('PUT', share(DASHBOARD.ident), { body: {} })).status).toBe(200);
    expect((await page()).status).toBe(200);
  });
});

describe('a deleted dashboard', () => {
  it('takes its share with it; one created again under the same identifier is not shared', async () => {
    await setProject({ dashboardEmbedding: true });
    const object = {
      ident: 'dashboard.doomed',
      type: 'dashboard',
      name: 'Doomed',
      def: { items: [{ id: 'kpi', report: 'report.kpi_miles' }] },
      // Hidden from OUTSIDER: only the share opens it to them.
      acl: [{ userrole: 'finance', acl: 'r----' }],
    };
    expect((await s.api('POST', `/projects/${s.demo}/pmd/obj`, { body: object })).status).toBe(201);
    const r = await create({ type: 'public', object: 'dashboard.doomed', users: [OUTSIDER] });
    expect(r.status, r.text).toBe(201);
    expect((await s.api('GET', dash('dashboard.doomed'), { as: OUTSIDER, ...json })).status).toBe(
      200,
    );
    expect((await s.api('DELETE', `/projects/${s.demo}/pmd/obj/dashboard.doomed`)).status).toBe(
      204,
    );
    expect((await open(r.json.share.url)).status).toBe(404);
    expect((await s.api('POST', `/projects/${s.demo}/pmd/obj`, { body: object })).status).toBe(201);
    expect((await s.api('GET', share('dashboard.doomed'))).status).toBe(404);
    expect((await s.api('GET', dash('dashboard.doomed'), { as: OUTSIDER, ...json })).status).toBe(
      404,
    );
    expect((await open(r.json.share.url)).status).toBe(404);
    await setProject({ dashboardEmbedding: false });
  });
});

describe('e-mail notices', () => {
  const mailsTo = (to: string) => smtp.messages.filter((m) => m.to.includes(to));

  it('emailNotif: each named user gets a link to the dashboard page; on a change, only those added', async () => {
    const before = { viewer: mailsTo(VIEWER).length, west: mailsTo(WEST).length };
    const r = await create(
      { type: 'private', object: 'dashboard.finance', users: [VIEWER], emailNotif: true },
      ADMIN,
    );
    expect(r.status, r.text).toBe(201);
    expect(r.json.notified).toEqual([{ id: VIEWER, emailSent: true }]);
    const mail = await waitFor(() => mailsTo(VIEWER)[before.viewer]);
    const { headers, body } = parseMail(mail.raw);
    expect(headers.get('subject')).toBe(`${ADMIN} shared the dashboard "Finance" with you`);
    expect(body).toContain(
      `${s.engine.config.siteUrl}/api/v1/projects/${s.demo}/app/dashboards/dashboard.finance`,
    );

    const put = await s.api('PUT', share('dashboard.finance'), { body: { users: [VIEWER, WEST] } });
    expect(put.status, put.text).toBe(200);
    expect(put.json.notified).toEqual([{ id: WEST, emailSent: true }]);
    await waitFor(() => mailsTo(WEST)[before.west]);
    expect(mailsTo(VIEWER)).toHaveLength(before.viewer + 1);
    await stop('dashboard.finance');
  });

  it('without emailNotif nobody is mailed', async () => {
    const count = smtp.messages.length;
    const r = await create({ type: 'private', object: 'dashboard.finance', users: [WEST] });
    expect(r.status).toBe(201);
    expect(r.json.notified).toEqual([]);
    await new Promise((res) => setTimeout(res, 200));
    expect(smtp.messages).toHaveLength(count);
    await stop('dashboard.finance');
  });

  it('a non-member invited with emailNotif gets the invitation and the notice', async () => {
    const guest = 'guest@example.com';
    const r = await create(
      { type: 'private', object: 'dashboard.finance', users: [guest], emailNotif: true },
      UADMIN,
    );
    // UADMIN cannot see dashboard.finance (its ACL is `finance` only).
    expect(r.status).toBe(404);
    const ok = await create(
      { type: 'private', object: 'dashboard.sharable', users: [guest], emailNotif: true },
      UADMIN,
    );
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json.invited).toEqual([{ id: guest, status: 'invited', emailSent: true }]);
    await waitFor(() => (mailsTo(guest).length >= 2 ? true : undefined));
    const subjects = mailsTo(guest).map((m) => parseMail(m.raw).headers.get('subject'));
    expect(subjects).toEqual(
      expect.arrayContaining([
        expect.stringContaining('invited you'),
        `${UADMIN} shared the dashboard "Sharable" with you`,
      ]),
    );
    await stop('dashboard.sharable');
  });
});

describe('activity', () => {
  it('records obj_share for every create, change and stop, without the token', async () => {
    await setProject({ dashboardEmbedding: true });
    const c = await create({ type: 'public', object: 'dashboard.sharable', users: [WEST] });
    expect(c.status, c.text).toBe(201);
    const u = await s.api('PUT', share('dashboard.sharable'), { body: { type: 'private' } });
    expect(u.status, u.text).toBe(200);
    await stop('dashboard.sharable');
    await setProject({ dashboardEmbedding: false });
    const r = await s.api('GET', `/projects/${s.demo}/activity?types=obj_share&limit=3`);
    const events = r.json.activity as {
      object: string;
      user: string;
      message: string;
      detail: Record<string, unknown>;
    }[];
    expect(events.map((e) => e.detail.action)).toEqual(['stop', 'update', 'create']);
    expect(events.every((e) => e.object === 'dashboard.sharable' && e.user === ADMIN)).toBe(true);
    expect(events[2]!.message).toBe(
      `shared dashboard "Sharable" (dashboard.sharable) publicly and with ${WEST}`,
    );
    expect(events[1]!.detail).toMatchObject({
      type: 'private',
      previousType: 'public',
      fields: ['type'],
    });
    expect(events[0]!.message).toBe('stopped sharing dashboard "Sharable" (dashboard.sharable)');
    expect(JSON.stringify(events)).not.toContain(c.json.share.url.split('/').pop());
    // Readers of the dashboard see the events; others do not.
    const viewer = await s.api('GET', `/projects/${s.demo}/activity?types=obj_share&limit=100`, {
      as: VIEWER,
    });
    expect(viewer.json.activity.length).toBeGreaterThan(0);
    const outsider = await s.api('GET', `/projects/${s.demo}/activity?types=obj_share&limit=100`, {
      as: OUTSIDER,
    });
    expect(
      outsider.json.activity.filter((e: { object: string }) => e.object === 'dashboard.sharable'),
    ).toEqual([]);
  });
});
