import { sql } from 'drizzle-orm';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMIT_NAMES } from '../src/engine/limits/plans.js';
import { createProject, metadataBytes, writePlansFile, loadPeople } from './helpers/fixtures.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';

const DAY = 86_400_000;
const isoDate = (offsetDays: number) =>
  new Date(Date.now() + offsetDays * DAY).toISOString().slice(0, 10);

describe('projects', () => {
  let s: TestServer;
  // The stock free plan allows 5 projects per organization; these tests create more.
  const roomyPlans = writePlansFile({});

  beforeAll(async () => {
    s = await startTestServer({ URSA_PLANS_FILE: roomyPlans.file });
  });
  afterAll(async () => {
    await s.close();
    roomyPlans.remove();
  });

  const projectCount = async () =>
    (await s.engine.store.rows<{ n: number }>(sql`select count(*) as n from projects`))[0]!.n;
  const memberCount = async (id: string) =>
    (
      await s.engine.store.rows<{ n: number }>(
        sql`select count(*) as n from project_users where project_id = ${id}`,
      )
    )[0]!.n;

  describe('GET /projects', () => {
    it('lists only projects the caller was invited to, with their rights', async () => {
      const id = await createProject(s, 'listing', 'Listing');
      const outsider = 'outsider@example.com';
      const mdUser = 'md-lister@example.com';

      const before = await s.api('GET', '/projects', { as: outsider });
      expect(before.status).toBe(200);
      expect(before.json.projects).toEqual({});

      const mine = await s.api('GET', '/projects');
      expect(mine.json.projects[id]).toEqual({
        id,
        label: 'Listing',
        hasAccess: true,
        isAdmin: true,
        isMdAdmin: true,
        href: `/api/v1/projects/${id}`,
      });
      expect(Object.keys(mine.json.projects)).toEqual(expect.arrayContaining([s.demo, id]));

      await invite(s, id, outsider);
      await invite(s, id, mdUser, { mdadmin: true });
      const after = await s.api('GET', '/projects', { as: outsider });
      expect(after.json.projects).toEqual({
        [id]: {
          id,
          label: 'Listing',
          hasAccess: true,
          isAdmin: false,
          isMdAdmin: false,
          href: `/api/v1/projects/${id}`,
        },
      });
      expect(after.json.link).toEqual([
        expect.objectContaining({ rel: 'project', id, href: `/api/v1/projects/${id}` }),
      ]);
      const md = await s.api('GET', '/projects', { as: mdUser });
      expect(md.json.projects[id]).toMatchObject({
        hasAccess: true,
        isAdmin: false,
        isMdAdmin: true,
      });

      // Revoked: still listed, but without access.
      const revoke = await s.api('PUT', `/projects/${id}/users/${outsider}`, {
        body: { active: false },
      });
      expect(revoke.status).toBe(200);
      const revoked = await s.api('GET', '/projects', { as: outsider });
      expect(revoked.json.projects[id]).toMatchObject({ hasAccess: false, isAdmin: false });
    });

    it('needs authentication', async () => {
      const r = await s.api('GET', '/projects', { as: null });
      expect(r.status).toBe(401);
    });
  });

  describe('POST /projects', () => {
    const orgAdmin = 'org-admin@example.com';

    beforeAll(async () => {
      await s.engine.orgs.addAdmin('default', orgAdmin);
    });

    it('creates a project for an organization admin, who becomes its Admin', async () => {
      const r = await s.api('POST', '/projects', {
        as: orgAdmin,
        body: { id: 'sales', label: 'Sales', entity: 'default', desc: 'Sales numbers' },
      });
      expect(r.status, r.text).toBe(201);
      const p = r.json.project;
      expect(p.id).toMatch(/^sales-[a-z0-9]{6}$/);
      expect(r.headers.get('location')).toBe(`/api/v1/projects/${p.id}`);
      expect(p).toMatchObject({
        label: 'Sales',
        desc: 'Sales numbers',
        entity: 'default',
        createdBy: orgAdmin,
        webdavTokenSet: false,
        access: { admin: true, mdadmin: true, useradmin: true },
      });

      const member = await s.api('GET', `/projects/${p.id}/users/${orgAdmin}`, { as: orgAdmin });
      expect(member.status).toBe(200);
      expect(member.json.user).toMatchObject({ id: orgAdmin, active: true, admin: true });

      const list = await s.api('GET', '/projects', { as: orgAdmin });
      expect(list.json.projects[p.id]).toMatchObject({ isAdmin: true, hasAccess: true });
      expect(fs.statSync(path.join(s.dataDir, 'projects', p.id)).isDirectory()).toBe(true);

      const act = await s.api('GET', `/projects/${p.id}/activity?types=project_action`, {
        as: orgAdmin,
      });
      expect(act.status).toBe(200);
      expect(act.json.activity).toHaveLength(1);
      expect(act.json.activity[0]).toMatchObject({
        type: 'project_action',
        user: orgAdmin,
        object: p.id,
        detail: { action: 'create', entity: 'default' },
      });

      // The same requested id twice gives two distinct final ids.
      const again = await s.api('POST', '/projects', {
        as: orgAdmin,
        body: { id: 'sales', label: 'Sales 2', entity: 'default' },
      });
      expect(again.status).toBe(201);
      expect(again.json.project.id).toMatch(/^sales-[a-z0-9]{6}$/);
      expect(again.json.project.id).not.toBe(p.id);
    });

    it('refuses a caller who is not an admin of the organization (403)', async () => {
      const before = await projectCount();
      const r = await s.api('POST', '/projects', {
        as: 'plain@example.com',
        body: { id: 'nope', label: 'Nope', entity: 'default' },
      });
      expect(r.status).toBe(403);
      expect(r.json).toMatchObject({ statusCode: 403, context: { entity: 'default' } });
      expect(typeof r.json.errorId).toBe('string');
      expect(await projectCount()).toBe(before);
    });

    it('refuses an unknown organization (403)', async () => {
      const before = await projectCount();
      const r = await s.api('POST', '/projects', {
        as: orgAdmin,
        body: { id: 'nope', label: 'Nope', entity: 'no-such-org' },
      });
      expect(r.status).toBe(403);
      expect(await projectCount()).toBe(before);
    });

    it.each([
      ['an invalid id', { id: 'Bad Id!', label: 'X', entity: 'default' }, 'id'],
      ['an id that is too long', { id: 'a'.repeat(41), label: 'X', entity: 'default' }, 'id'],
      ['a blank label', { id: 'ok', label: '   ', entity: 'default' }, 'label'],
      ['a missing label', { id: 'ok', entity: 'default' }, 'label'],
      ['an extra field', { id: 'ok', label: 'X', entity: 'default', owner: 'me' }, '(body)'],
    ])('answers 400 with context.issues for %s', async (_what, body, issuePath) => {
      const before = await projectCount();
      const r = await s.api('POST', '/projects', { as: orgAdmin, body });
      expect(r.status, r.text).toBe(400);
      expect(r.json.statusCode).toBe(400);
      expect(r.json.context.issues).toEqual(
        expect.arrayContaining([expect.objectContaining({ path: issuePath })]),
      );
      expect(await projectCount()).toBe(before);
    });

    it('answers 400 without a body', async () => {
      const r = await s.api('POST', '/projects', { as: orgAdmin });
      expect(r.status).toBe(400);
      expect(r.json.context.issues).toBeDefined();
    });
  });

  describe('plan limit "projects"', () => {
    let t: TestServer;
    let plans: ReturnType<typeof writePlansFile>;

    beforeAll(async () => {
      // The demo project created on first start already uses the only slot.
      plans = writePlansFile({ projects: 1 });
      t = await startTestServer({ URSA_PLANS_FILE: plans.file });
    });
    afterAll(async () => {
      await t.close();
      plans.remove();
    });

    it('answers 402 and creates nothing when the limit would be exceeded', async () => {
      const adherence = await t.api('GET', `/projects/${t.demo}/limitadherence`);
      expect(adherence.json.projects).toEqual({ limit: 1, value: 1 });

      const r = await t.api('POST', '/projects', {
        body: { id: 'extra', label: 'Extra', entity: 'default' },
      });
      expect(r.status, r.text).toBe(402);
      expect(r.json).toMatchObject({
        statusCode: 402,
        context: { limit: 'projects', allowed: 1, used: 1, requested: 1 },
      });
      const list = await t.api('GET', '/projects');
      expect(Object.keys(list.json.projects)).toEqual([t.demo]);
      expect(fs.readdirSync(path.join(t.dataDir, 'projects'))).toEqual([t.demo]);
      const rows = (
        await t.engine.store.rows<{ n: number }>(
          sql`select count(*) as n from activity where message like '%Extra%'`,
        )
      )[0]!;
      expect(rows.n).toBe(0);
    });
  });

  describe('GET /projects/{project}', () => {
    it('returns details, access, limits and links', async () => {
      const id = await createProject(s, 'details', 'Details');
      const r = await s.api('GET', `/projects/${id}`);
      expect(r.status).toBe(200);
      const p = r.json.project;
      expect(p).toMatchObject({
        id,
        label: 'Details',
        desc: '',
        entity: 'default',
        plan: 'free',
        maintenance: false,
        webdavTokenSet: false,
        createdBy: ADMIN,
        announcement: null,
        access: { admin: true, mdadmin: true, useradmin: true, roles: [], filter: null },
      });
      expect(Object.keys(p.limits).sort()).toEqual([...LIMIT_NAMES].sort());
      expect(p.limits.users).toEqual({ limit: s.engine.plans.free!.limits.users, value: 1 });

      const base = `/api/v1/projects/${id}`;
      const byRel = new Map<string, string>(
        (r.json.link as { rel: string; href: string }[]).map((l) => [l.rel, l.href]),
      );
      expect(byRel.get('self')).toBe(base);
      expect(byRel.get('users')).toBe(`${base}/users`);
      expect(byRel.get('limitadherence')).toBe(`${base}/limitadherence`);
      expect(byRel.get('activity')).toBe(`${base}/activity`);
      expect(byRel.get('announce')).toBe(`${base}/announce`);
      expect(byRel.get('genid')).toBe(`${base}/genid`);
      expect(byRel.get('scache')).toBe(`${base}/kodiak/scache/obj`);
      // Every link of the project resolves.
      for (const rel of ['self', 'users', 'limitadherence', 'activity', 'announce', 'genid']) {
        const follow = await s.api('GET', byRel.get(rel)!);
        expect(follow.status, `${rel}: ${follow.text}`).toBe(200);
      }
    });

    it('shows a member their own access and hides the project from outsiders (401)', async () => {
      const id = await createProject(s, 'access', 'Access');
      await loadPeople(s, id);
      await invite(s, id, 'viewer@example.com', { roles: ['sales'], filter: '[Region] = "EU"' });
      const r = await s.api('GET', `/projects/${id}`, { as: 'viewer@example.com' });
      expect(r.status).toBe(200);
      expect(r.json.project.access).toEqual({
        admin: false,
        mdadmin: false,
        useradmin: false,
        roles: ['sales'],
        filter: '[Region] = "EU"',
      });
      const outsider = await s.api('GET', `/projects/${id}`, { as: 'stranger@example.com' });
      expect(outsider.status).toBe(401);
      const missing = await s.api('GET', '/projects/no-such-project');
      expect(missing.status).toBe(401);
    });
  });

  describe('PUT /projects/{project}', () => {
    it('changes label and desc', async () => {
      const id = await createProject(s, 'put', 'Before');
      const r = await s.api('PUT', `/projects/${id}`, {
        body: { label: 'After', desc: 'New description' },
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json.project).toMatchObject({ id, label: 'After', desc: 'New description' });
      const get = await s.api('GET', `/projects/${id}`);
      expect(get.json.project).toMatchObject({ label: 'After', desc: 'New description' });
      const list = await s.api('GET', '/projects');
      expect(list.json.projects[id].label).toBe('After');
      const act = await s.api('GET', `/projects/${id}/activity?types=project_action&limit=1`);
      expect(act.json.activity[0].detail).toMatchObject({
        action: 'update',
        fields: ['label', 'desc'],
      });
    });

    it('stores the WebDAV token hashed and never returns it', async () => {
      const id = await createProject(s, 'webdav', 'WebDAV');
      const token = 'Raw-WebDAV-Token-7f3c9a1e55';
      const r = await s.api('PUT', `/projects/${id}`, { body: { webdavToken: token } });
      expect(r.status, r.text).toBe(200);
      expect(r.json.project.webdavTokenSet).toBe(true);
      expect(r.text).not.toContain(token);
      expect(r.json.project).not.toHaveProperty('webdavToken');

      const get = await s.api('GET', `/projects/${id}`);
      expect(get.json.project.webdavTokenSet).toBe(true);
      expect(get.text).not.toContain(token);
      const act = await s.api('GET', `/projects/${id}/activity`);
      expect(act.text).not.toContain(token);

      const hash = await s.engine.projects.webdavTokenHash(id);
      expect(hash).toBeTruthy();
      expect(hash).not.toContain(token);
      const bytes = metadataBytes(s.dataDir);
      // The hash is where the data lands (proves the bytes we read are the live ones)...
      expect(bytes.includes(Buffer.from(hash!))).toBe(true);
      // ...and the raw token is nowhere in them.
      expect(bytes.includes(Buffer.from(token))).toBe(false);

      const cleared = await s.api('PUT', `/projects/${id}`, { body: { webdavToken: null } });
      expect(cleared.status).toBe(200);
      expect(cleared.json.project.webdavTokenSet).toBe(false);
      expect(await s.engine.projects.webdavTokenHash(id)).toBeNull();
    });

    it.each([
      ['an unknown field', { label: 'Changed', owner: 'x' }],
      ['a blank label', { label: '  ' }],
      ['a too short WebDAV token', { label: 'Changed', webdavToken: 'short' }],
      ['a non-boolean maintenance', { label: 'Changed', maintenance: 'maybe' }],
      ['a non-string desc', { desc: 42 }],
    ])('answers 400 for %s and changes nothing', async (_what, body) => {
      const id = await createProject(s, 'badput', 'Unchanged');
      const before = (await s.api('GET', `/projects/${id}`)).json.project;
      const r = await s.api('PUT', `/projects/${id}`, { body });
      expect(r.status, r.text).toBe(400);
      expect(r.json.context.issues.length).toBeGreaterThan(0);
      const after = (await s.api('GET', `/projects/${id}`)).json.project;
      expect(after).toEqual(before);
      const act = await s.api('GET', `/projects/${id}/activity?types=project_action`);
      expect(act.json.activity.map((e: { detail: { action: string } }) => e.detail.action)).toEqual(
        ['create'],
      );
    });

    it('needs Admin (403 for a User Admin or member)', async () => {
      const id = await createProject(s, 'putrights', 'Rights');
      await invite(s, id, 'ua-put@example.com', { useradmin: true });
      await invite(s, id, 'md-put@example.com', { mdadmin: true });
      for (const as of ['ua-put@example.com', 'md-put@example.com']) {
        const r = await s.api('PUT', `/projects/${id}`, { as, body: { label: 'Hacked' } });
        expect(r.status).toBe(403);
      }
      expect((await s.api('GET', `/projects/${id}`)).json.project.label).toBe('Rights');
    });
  });

  describe('DELETE /projects/{project}', () => {
    it('removes the project, its members and its data directory', async () => {
      const id = await createProject(s, 'doomed', 'Doomed');
      const member = 'doomed-member@example.com';
      await invite(s, id, member);
      const filesDir = path.join(s.dataDir, 'projects', id, 'files');
      fs.mkdirSync(filesDir, { recursive: true });
      fs.writeFileSync(path.join(filesDir, 'data.csv'), 'a,b\n1,2\n');
      expect(await memberCount(id)).toBe(2);

      const denied = await s.api('DELETE', `/projects/${id}`, { as: member });
      expect(denied.status).toBe(403);
      expect(fs.existsSync(filesDir)).toBe(true);

      const r = await s.api('DELETE', `/projects/${id}`);
      expect(r.status, r.text).toBe(204);
      expect(fs.existsSync(path.join(s.dataDir, 'projects', id))).toBe(false);
      expect(await memberCount(id)).toBe(0);
      const activityRows = (
        await s.engine.store.rows<{ n: number }>(
          sql`select count(*) as n from activity where project_id = ${id}`,
        )
      )[0]!;
      expect(activityRows.n).toBe(0);

      expect((await s.api('GET', `/projects/${id}`)).status).toBe(401);
      expect((await s.api('GET', `/projects/${id}`, { as: member })).status).toBe(401);
      expect((await s.api('DELETE', `/projects/${id}`)).status).toBe(401);
      expect((await s.api('GET', '/projects')).json.projects).not.toHaveProperty(id);
      expect((await s.api('GET', '/projects', { as: member })).json.projects).toEqual({});
    });
  });

  describe('GET /projects/{project}/limitadherence', () => {
    it('returns every plan limit with real usage', async () => {
      const id = await createProject(s, 'limits', 'Limits');
      const plan = s.engine.plans.free!.limits;
      const r = await s.api('GET', `/projects/${id}/limitadherence`);
      expect(r.status).toBe(200);
      expect(Object.keys(r.json).sort()).toEqual([...LIMIT_NAMES].sort());
      for (const name of LIMIT_NAMES) {
        expect(r.json[name]).toEqual({ limit: plan[name], value: expect.any(Number) });
      }
      expect(r.json.users.value).toBe(1);
      expect(r.json.storageBytes.value).toBe(0);
      expect(r.json.projects.value).toBe(await s.engine.projects.countInOrg('default'));

      await invite(s, id, 'counted@example.com');
      const filesDir = path.join(s.dataDir, 'projects', id, 'files');
      fs.mkdirSync(path.join(filesDir, 'sub'), { recursive: true });
      fs.writeFileSync(path.join(filesDir, 'a.csv'), Buffer.alloc(1000, 'a'));
      fs.writeFileSync(path.join(filesDir, 'sub', 'b.csv'), Buffer.alloc(234, 'b'));
      // Outside files/: not storage.
      fs.writeFileSync(path.join(s.dataDir, 'projects', id, 'other.bin'), Buffer.alloc(99));

      const after = await s.api('GET', `/projects/${id}/limitadherence`);
      expect(after.json.users).toEqual({ limit: plan.users, value: 2 });
      expect(after.json.storageBytes).toEqual({ limit: plan.storageBytes, value: 1234 });

      // A member may read it too; a revoked user no longer counts.
      const asMember = await s.api('GET', `/projects/${id}/limitadherence`, {
        as: 'counted@example.com',
      });
      expect(asMember.status).toBe(200);
      await s.api('PUT', `/projects/${id}/users/counted@example.com`, { body: { active: false } });
      const revoked = await s.api('GET', `/projects/${id}/limitadherence`);
      expect(revoked.json.users.value).toBe(1);
    });
  });

  describe('GET /projects/{project}/activity', () => {
    let id: string;

    beforeAll(async () => {
      id = await createProject(s, 'activity', 'Activity');
      await invite(s, id, 'act1@example.com');
      await s.api('PUT', `/projects/${id}`, { body: { desc: 'changed' } });
      await invite(s, id, 'act2@example.com');
      await s.api('PUT', `/projects/${id}/announce`, { body: { title: 'Hello' } });
    });

    it('lists events newest first', async () => {
      const r = await s.api('GET', `/projects/${id}/activity`);
      expect(r.status).toBe(200);
      const items = r.json.activity as { id: number; type: string; time: string }[];
      expect(items.map((e) => e.type)).toEqual([
        'project_action',
        'user_action',
        'project_action',
        'user_action',
        'project_action',
      ]);
      for (let i = 1; i < items.length; i++) {
        expect(items[i - 1]!.id).toBeGreaterThan(items[i]!.id);
        expect(items[i - 1]!.time >= items[i]!.time).toBe(true);
      }
      expect(items[0]).toMatchObject({ user: ADMIN, detail: { action: 'announce' } });
      expect(items[4]).toMatchObject({ detail: { action: 'create' } });
      expect(r.json.paging).toEqual({ total: 5, limit: 100, offset: 0 });
    });

    it('filters by types (comma list)', async () => {
      const users = await s.api('GET', `/projects/${id}/activity?types=user_action`);
      expect(users.json.activity.map((e: { object: string }) => e.object)).toEqual([
        'act2@example.com',
        'act1@example.com',
      ]);
      const both = await s.api(
        'GET',
        `/projects/${id}/activity?types=${encodeURIComponent('user_action, project_action')}`,
      );
      expect(both.json.activity).toHaveLength(5);
      const none = await s.api('GET', `/projects/${id}/activity?types=data_load`);
      expect(none.json.activity).toEqual([]);
    });

    it('answers 400 for an unknown type, listing the allowed ones', async () => {
      const r = await s.api('GET', `/projects/${id}/activity?types=user_action,bogus`);
      expect(r.status).toBe(400);
      expect(r.json.context).toMatchObject({ field: 'types', invalid: ['bogus'] });
      expect(r.json.context.allowed).toEqual([
        'data_load',
        'delivery',
        'flow_run',
        'flow_trigger',
        'obj_action',
        'obj_share',
        'project_action',
        'user_action',
      ]);
    });

    it('pages with limit/offset and paging.next', async () => {
      const seen: number[] = [];
      let next: string | undefined = `/projects/${id}/activity?limit=2`;
      let pages = 0;
      while (next) {
        const r = await s.api('GET', next);
        expect(r.status).toBe(200);
        seen.push(...r.json.activity.map((e: { id: number }) => e.id));
        expect(r.json.paging.total).toBe(5);
        next = r.json.paging.next as string | undefined;
        pages++;
      }
      expect(pages).toBe(3);
      const all = (await s.api('GET', `/projects/${id}/activity`)).json.activity.map(
        (e: { id: number }) => e.id,
      );
      expect(seen).toEqual(all);

      const first = await s.api('GET', `/projects/${id}/activity?limit=2`);
      expect(first.json.paging).toEqual({
        total: 5,
        limit: 2,
        offset: 0,
        next: `/api/v1/projects/${id}/activity?limit=2&offset=2`,
      });
      const last = await s.api('GET', `/projects/${id}/activity?limit=2&offset=4`);
      expect(last.json.activity).toHaveLength(1);
      expect(last.json.paging.next).toBeUndefined();
      for (const bad of ['limit=0', 'limit=abc', 'offset=-1', 'limit=1001']) {
        expect((await s.api('GET', `/projects/${id}/activity?${bad}`)).status).toBe(400);
      }
    });

    it('keeps the types filter on paging.next', async () => {
      const first = await s.api('GET', `/projects/${id}/activity?types=project_action&limit=2`);
      expect(first.json.activity).toHaveLength(2);
      expect(first.json.paging.total).toBe(3);
      const second = await s.api('GET', first.json.paging.next);
      expect(second.status).toBe(200);
      expect(second.json.activity).toHaveLength(1);
      expect(second.json.activity[0]).toMatchObject({
        type: 'project_action',
        detail: { action: 'create' },
      });
    });

    it('is readable by members, not by outsiders', async () => {
      expect(
        (await s.api('GET', `/projects/${id}/activity`, { as: 'act1@example.com' })).status,
      ).toBe(200);
      expect(
        (await s.api('GET', `/projects/${id}/activity`, { as: 'nobody@example.com' })).status,
      ).toBe(401);
    });
  });

  describe('GET /projects/{project}/activity/loads', () => {
    it('with latest=1 returns the latest data load of each dataset', async () => {
      const id = await createProject(s, 'loads', 'Loads');
      const load = (dataset: string, rows: number) =>
        s.engine.activity.record(id, 'data_load', {
          user: ADMIN,
          object: dataset,
          message: `loaded ${dataset}`,
          detail: { dataset, rows },
        });
      await load('A', 10);
      await load('B', 5);
      await load('A', 20);
      await s.engine.activity.record(id, 'flow_run', { user: ADMIN, message: 'not a load' });

      const latest = await s.api('GET', `/projects/${id}/activity/loads?latest=1`);
      expect(latest.status).toBe(200);
      const loads = latest.json.loads as {
        type: string;
        detail: { dataset: string; rows: number };
      }[];
      expect(loads).toHaveLength(2);
      expect(loads.every((l) => l.type === 'data_load')).toBe(true);
      expect(loads.map((l) => l.detail)).toEqual([
        { dataset: 'A', rows: 20 },
        { dataset: 'B', rows: 5 },
      ]);

      const all = await s.api('GET', `/projects/${id}/activity/loads`);
      expect(all.json.loads.map((l: { detail: { rows: number } }) => l.detail.rows)).toEqual([
        20, 5, 10,
      ]);
    });
  });

  describe('/projects/{project}/announce', () => {
    let id: string;
    const member = 'announce-member@example.com';
    const userAdmin = 'announce-ua@example.com';

    beforeAll(async () => {
      id = await createProject(s, 'announce', 'Announce');
      await invite(s, id, member);
      await invite(s, id, userAdmin, { useradmin: true });
    });

    it('is null at first', async () => {
      const r = await s.api('GET', `/projects/${id}/announce`, { as: member });
      expect(r.status).toBe(200);
      expect(r.json.announcement).toBeNull();
    });

    it('is set by an Admin and shown to members, current for a range covering today', async () => {
      const body = {
        title: 'Maintenance',
        message: 'Tonight',
        startDate: isoDate(-1),
        endDate: isoDate(1),
      };
      const r = await s.api('PUT', `/projects/${id}/announce`, { body });
      expect(r.status, r.text).toBe(200);
      expect(r.json.announcement).toEqual({ ...body, current: true });
      const get = await s.api('GET', `/projects/${id}/announce`, { as: member });
      expect(get.json.announcement).toEqual({ ...body, current: true });
      const details = await s.api('GET', `/projects/${id}`, { as: member });
      expect(details.json.project.announcement).toEqual({ ...body, current: true });
    });

    it('counts a date-only end date of today as current, open ends too', async () => {
      const today = await s.api('PUT', `/projects/${id}/announce`, {
        body: { title: 'Today', startDate: isoDate(-3), endDate: isoDate(0) },
      });
      expect(today.json.announcement.current).toBe(true);
      const open = await s.api('PUT', `/projects/${id}/announce`, { body: { message: 'Always' } });
      expect(open.json.announcement).toEqual({
        title: '',
        message: 'Always',
        startDate: null,
        endDate: null,
        current: true,
      });
    });

    it('is not current for a past or future range', async () => {
      const past = await s.api('PUT', `/projects/${id}/announce`, {
        body: { title: 'Past', startDate: '2020-01-01', endDate: '2020-01-31' },
      });
      expect(past.status).toBe(200);
      expect(past.json.announcement.current).toBe(false);
      expect((await s.api('GET', `/projects/${id}/announce`)).json.announcement.current).toBe(
        false,
      );
      const future = await s.api('PUT', `/projects/${id}/announce`, {
        body: {
          title: 'Future',
          startDate: new Date(Date.now() + 3 * DAY).toISOString(),
          endDate: isoDate(10),
        },
      });
      expect(future.status, future.text).toBe(200);
      expect(future.json.announcement.current).toBe(false);
    });

    it('may be set by a User Admin but not by a member (403)', async () => {
      const ua = await s.api('PUT', `/projects/${id}/announce`, {
        as: userAdmin,
        body: { title: 'From UA' },
      });
      expect(ua.status, ua.text).toBe(200);
      const m = await s.api('PUT', `/projects/${id}/announce`, {
        as: member,
        body: { title: 'From member' },
      });
      expect(m.status).toBe(403);
      expect((await s.api('GET', `/projects/${id}/announce`)).json.announcement.title).toBe(
        'From UA',
      );
    });

    it.each([
      ['endDate before startDate', { title: 'X', startDate: '2030-02-01', endDate: '2030-01-01' }],
      ['a date that is not ISO', { title: 'X', startDate: 'tomorrow' }],
      ['an unknown field', { title: 'X', color: 'red' }],
    ])('answers 400 for %s and keeps the announcement', async (_what, body) => {
      await s.api('PUT', `/projects/${id}/announce`, { body: { title: 'Kept' } });
      const r = await s.api('PUT', `/projects/${id}/announce`, { body });
      expect(r.status, r.text).toBe(400);
      expect(r.json.context.issues.length).toBeGreaterThan(0);
      expect((await s.api('GET', `/projects/${id}/announce`)).json.announcement.title).toBe('Kept');
    });

    it('names endDate in the issue when it is before startDate', async () => {
      const r = await s.api('PUT', `/projects/${id}/announce`, {
        body: { title: 'X', startDate: '2030-02-01', endDate: '2030-01-01' },
      });
      expect(r.json.context.issues).toEqual([
        expect.objectContaining({ path: 'endDate', message: 'endDate is before startDate' }),
      ]);
    });

    it('is cleared by an empty title and message', async () => {
      await s.api('PUT', `/projects/${id}/announce`, { body: { title: 'To clear' } });
      const r = await s.api('PUT', `/projects/${id}/announce`, {
        body: { title: '', message: '' },
      });
      expect(r.status).toBe(200);
      expect(r.json.announcement).toBeNull();
      expect((await s.api('GET', `/projects/${id}/announce`)).json.announcement).toBeNull();
      expect((await s.api('GET', `/projects/${id}`)).json.project.announcement).toBeNull();
    });
  });

  describe('GET /projects/{project}/genid', () => {
    it('returns distinct 20-character ids', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const r = await s.api('GET', `/projects/${s.demo}/genid`);
        expect(r.status).toBe(200);
        expect(r.json.id).toMatch(/^[a-z0-9]{20}$/);
        ids.add(r.json.id);
      }
      expect(ids.size).toBe(5);
      expect(
        (await s.api('GET', `/projects/${s.demo}/genid`, { as: 'x@example.com' })).status,
      ).toBe(401);
    });
  });
});
