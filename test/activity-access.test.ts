// The activity log and the row counts show a reader only what they may read: events about
// objects and datasets hidden from them by ACLs are left out (also from paging totals),
// member administration only to User Admins and the members concerned, and a member with a
// row-level filter sees no row counts (they count rows outside the filter).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, loadDataset, loadPeople } from './helpers/fixtures.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';

const MD = 'act-md@example.com';
const STAFF = 'act-staff@example.com';
const FILTERED = 'act-filtered@example.com';
const UA = 'act-ua@example.com';

interface Event {
  type: string;
  user: string | null;
  object?: string;
  message: string;
  detail: Record<string, unknown>;
}

describe('activity and row counts by reader', () => {
  let s: TestServer;
  let p: string;
  const obj = (path = '') => `/projects/${p}/pmd/obj${path}`;
  const events = async (as: string, query = 'limit=1000') => {
    const r = await s.api('GET', `/projects/${p}/activity?${query}`, { as });
    expect(r.status, r.text).toBe(200);
    return r.json as { activity: Event[]; paging: { total: number } };
  };
  const hide = async (ident: string) => {
    const cur = (await s.api('GET', obj(`/${ident}`))).json.object;
    const r = await s.api('PUT', obj(`/${ident}`), {
      as: MD,
      body: { ...cur, acl: [{ userrole: 'board', acl: 'r----' }] },
    });
    expect(r.status, r.text).toBe(200);
  };

  beforeAll(async () => {
    s = await startTestServer();
    p = await createProject(s, 'act', 'Activity');
    await loadPeople(s, p);
    await loadDataset(s, p, 'salaries', 'person_id,salary\n1,10\n2,20\n', 'person_id', [
      ['person_id', 'A', 'integer', 'Salary Person'],
      ['salary', 'F', 'integer', 'Salary'],
    ]);
    await invite(s, p, MD, { mdadmin: true });
    await invite(s, p, STAFF, { roles: ['staff'] });
    await invite(s, p, FILTERED, { roles: ['staff'], filter: '[Region] = "EU"' });
    await invite(s, p, UA, { useradmin: true });
    const create = async (body: unknown) => {
      const r = await s.api('POST', obj(), { as: MD, body });
      expect(r.status, r.text).toBe(201);
    };
    await create({
      ident: 'metric.open_people',
      type: 'metric',
      name: 'Open People',
      def: { aql: 'SELECT COUNT([Person])' },
    });
    // Hidden from staff from the start, and hidden after it was created in the open.
    await create({
      ident: 'metric.secret_count',
      type: 'metric',
      name: 'Secret Count',
      def: { aql: 'SELECT COUNT([Person])' },
      acl: [{ userrole: 'board', acl: 'r----' }],
    });
    await create({
      ident: 'filter.secret_eu',
      type: 'filter',
      name: 'Secret EU',
      def: { aql: '[Region] = "EU"' },
    });
    await hide('filter.secret_eu');
    await create({
      ident: 'report.secret_report',
      type: 'report',
      name: 'Secret Report',
      def: { aql: 'SELECT [Region], [metric.secret_count]', visualization: { type: 'table' } },
      acl: [{ userrole: 'board', acl: 'r----' }],
    });
    // Deleted while hidden: its events stay hidden.
    await create({
      ident: 'metric.secret_gone',
      type: 'metric',
      name: 'Secret Gone',
      def: { aql: 'SELECT COUNT([Person])' },
      acl: [{ userrole: 'board', acl: 'r----' }],
    });
    expect((await s.api('DELETE', obj('/metric.secret_gone'), { as: MD })).status).toBe(204);
    // Every column of salaries hidden: the dataset does not exist for staff.
    await hide('attr.salaries.person_id');
    await hide('fact.salaries.salary');
  });
  afterAll(async () => {
    await s.close();
  });

  it('a member sees no title or ident of objects hidden from their role, nor the totals', async () => {
    for (const who of [STAFF, FILTERED]) {
      const all = await events(who);
      const text = JSON.stringify(all.activity);
      for (const secret of ['secret', 'Secret', 'salar'])
        expect(text, `${who}: ${secret}`).not.toContain(secret);
      expect(text).toContain('metric.open_people');
      expect(all.paging.total).toBe(all.activity.length);
      // Pages count only what the reader sees.
      const first = await events(who, 'limit=2');
      expect(first.paging.total).toBe(all.activity.length);
      const loads = await s.api('GET', `/projects/${p}/activity/loads`, { as: who });
      expect(loads.json.loads.map((e: Event) => e.object)).toEqual(['people']);
      const latest = await s.api('GET', `/projects/${p}/activity/loads?latest=1`, { as: who });
      expect(latest.json.loads.map((e: Event) => e.object)).toEqual(['people']);
    }
  });

  it('MD Admins and Admins see every object event', async () => {
    for (const who of [MD, ADMIN]) {
      const objects = (await events(who, 'types=obj_action&limit=1000')).activity.map(
        (e) => e.object,
      );
      for (const ident of [
        'metric.secret_count',
        'filter.secret_eu',
        'report.secret_report',
        'metric.secret_gone',
        'attr.salaries.person_id',
      ])
        expect(objects, `${who}: ${ident}`).toContain(ident);
      const loads = await s.api('GET', `/projects/${p}/activity/loads?latest=1`, { as: who });
      expect(loads.json.loads.map((e: Event) => e.object).sort()).toEqual(['people', 'salaries']);
    }
  });

  it('member administration: User Admins see all of it, a member only what concerns them', async () => {
    const mine = (await events(STAFF, 'types=user_action')).activity;
    expect(mine.length).toBeGreaterThan(0);
    for (const e of mine)
      expect(e.user === STAFF || e.detail.target === STAFF, JSON.stringify(e)).toBe(true);
    expect(JSON.stringify(mine)).not.toContain(FILTERED);
    const md = JSON.stringify((await events(MD, 'types=user_action')).activity);
    expect(md).not.toContain('[Region]');
    const ua = (await events(UA, 'types=user_action')).activity;
    expect(ua.map((e) => e.detail.target)).toEqual(expect.arrayContaining([STAFF, FILTERED, MD]));
    expect(JSON.stringify(ua)).toContain('[Region] = \\"EU\\"');
  });

  it('a row-filtered member sees no row counts: loads, dataload, ldm, limit adherence', async () => {
    const counts = async (as: string) => {
      const loads = (await s.api('GET', `/projects/${p}/activity/loads`, { as })).json.loads;
      const events = (await s.api('GET', `/projects/${p}/activity?types=data_load`, { as })).json
        .activity;
      const dataload = (await s.api('GET', `/projects/${p}/kodiak/dataload`, { as })).json.dataload;
      const ldm = (await s.api('GET', `/projects/${p}/pmd/graph/ldm`, { as })).json;
      const limits = (await s.api('GET', `/projects/${p}/limitadherence`, { as })).json;
      const details = (await s.api('GET', `/projects/${p}`, { as })).json.project;
      return { loads, events, dataload, ldm, limits, details };
    };
    const f = await counts(FILTERED);
    for (const e of [...f.loads, ...f.events] as Event[]) {
      expect(e.detail.rows).toBeNull();
      expect(e.detail.rowsLoaded).toBeNull();
      expect(e.message).not.toMatch(/\d/);
      expect(e.message).toContain('people');
    }
    expect(f.dataload.datasets.map((d: { name: string }) => d.name)).toEqual(['people']);
    expect(f.dataload.datasets[0].rows).toBeNull();
    expect(f.ldm.datasets[0].rows).toBeNull();
    expect(f.limits.datasetRows.value).toBeNull();
    expect(f.details.limits.datasetRows.value).toBeNull();

    // Without a filter the same member level sees them (and still not the hidden dataset).
    const u = await counts(STAFF);
    expect((u.loads as Event[]).map((e) => e.detail.rows)).toEqual([2]);
    expect(u.loads[0].message).toContain('loaded 2 rows');
    expect(u.dataload.datasets).toEqual([
      expect.objectContaining({ name: 'people', rows: 2, columns: 3 }),
    ]);
    expect(u.ldm.datasets[0].rows).toBe(2);
    expect(u.limits.datasetRows.value).toBe(4);
    const admin = (await s.api('GET', `/projects/${p}/kodiak/dataload`)).json.dataload;
    expect(admin.datasets.map((d: { name: string }) => d.name)).toEqual(['people', 'salaries']);
  });
});
