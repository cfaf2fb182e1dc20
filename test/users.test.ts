import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createProject,
  deadPort,
  parseMail,
  startSmtpSink,
  waitFor,
  writePlansFile,
  type SmtpSink,
  loadPeople as loadPeopleInto,
} from './helpers/fixtures.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';

interface Member {
  id: string;
  active: boolean;
  admin: boolean;
  mdadmin: boolean;
  useradmin: boolean;
  roles: string[];
  filter: string | null;
}

describe('project users', () => {
  let s: TestServer;
  const roomyPlans = writePlansFile({});

  beforeAll(async () => {
    s = await startTestServer({ URSA_PLANS_FILE: roomyPlans.file });
  });
  afterAll(async () => {
    await s.close();
    roomyPlans.remove();
  });

  const users = (id: string, as = ADMIN) => s.api('GET', `/projects/${id}/users`, { as });
  const user = (id: string, email: string, as = ADMIN) =>
    s.api('GET', `/projects/${id}/users/${encodeURIComponent(email)}`, { as });
  const memberIds = async (id: string) =>
    ((await users(id)).json.users as Member[]).map((u) => u.id);
  const loadPeople = (project: string) => loadPeopleInto(s, project);
  const userActions = async (id: string) =>
    (await s.api('GET', `/projects/${id}/activity?types=user_action`)).json.activity as {
      user: string;
      object: string;
      message: string;
      detail: Record<string, unknown>;
    }[];

  describe('invite, list, get, update, revoke, remove', () => {
    let id: string;

    beforeAll(async () => {
      id = await createProject(s, 'members', 'Members');
      await loadPeople(id);
    });

    it('invites one user (e-mail normalized) with roles and filter', async () => {
      const r = await s.api('POST', `/projects/${id}/users`, {
        body: { id: ' Alice@Example.COM ', roles: ['sales'], filter: '[Region] = "EU"' },
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json.users).toEqual([
        {
          id: 'alice@example.com',
          status: 'invited',
          link: [
            {
              rel: 'user',
              id: 'alice@example.com',
              href: `/api/v1/projects/${id}/users/alice%40example.com`,
            },
          ],
        },
      ]);
      const get = await user(id, 'alice@example.com');
      expect(get.status).toBe(200);
      expect(get.json.user).toMatchObject({
        id: 'alice@example.com',
        active: true,
        admin: false,
        mdadmin: false,
        useradmin: false,
        roles: ['sales'],
        filter: '[Region] = "EU"',
        invitedBy: ADMIN,
      });
      // The link the invitation returned resolves.
      const follow = await s.api('GET', r.json.users[0].link[0].href);
      expect(follow.status).toBe(200);
      expect(follow.json.user.id).toBe('alice@example.com');
    });

    it('invites an array: existing ones are updated, new ones invited', async () => {
      const r = await s.api('POST', `/projects/${id}/users`, {
        body: [
          { id: 'alice@example.com', mdadmin: true },
          { id: 'bob@example.com', roles: ['hr', 'finance'] },
        ],
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json.users.map((u: { id: string; status: string }) => [u.id, u.status])).toEqual([
        ['alice@example.com', 'updated'],
        ['bob@example.com', 'invited'],
      ]);
      // An update keeps what it does not mention.
      expect((await user(id, 'alice@example.com')).json.user).toMatchObject({
        mdadmin: true,
        roles: ['sales'],
        filter: '[Region] = "EU"',
      });
    });

    it('lists members with levels, roles and filters, and pages', async () => {
      const r = await users(id);
      expect(r.status).toBe(200);
      const list = r.json.users as Member[];
      expect(list.map((u) => u.id)).toEqual([ADMIN, 'alice@example.com', 'bob@example.com']);
      expect(list[0]).toMatchObject({ admin: true, active: true });
      expect(list[1]).toMatchObject({ mdadmin: true, roles: ['sales'], filter: '[Region] = "EU"' });
      expect(list[2]).toMatchObject({ roles: ['hr', 'finance'], filter: null });
      expect(r.json.paging).toEqual({ total: 3, limit: 100, offset: 0 });

      const page = await s.api('GET', `/projects/${id}/users?limit=2`);
      expect(page.json.users).toHaveLength(2);
      expect(page.json.paging.next).toBe(`/api/v1/projects/${id}/users?limit=2&offset=2`);
      const rest = await s.api('GET', page.json.paging.next);
      expect(rest.json.users.map((u: Member) => u.id)).toEqual(['bob@example.com']);
    });

    it('answers 404 for a user who is not a member', async () => {
      const r = await user(id, 'nobody@example.com');
      expect(r.status).toBe(404);
      expect(r.json.context).toEqual({ id: 'nobody@example.com' });
    });

    it('changes rights with PUT', async () => {
      const r = await s.api('PUT', `/projects/${id}/users/bob@example.com`, {
        body: { useradmin: true, roles: ['hr'], filter: '[Dept] = "HR"' },
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json.user).toMatchObject({
        id: 'bob@example.com',
        useradmin: true,
        admin: false,
        roles: ['hr'],
        filter: '[Dept] = "HR"',
      });
      const cleared = await s.api('PUT', `/projects/${id}/users/bob@example.com`, {
        body: { filter: null, useradmin: 'false' },
      });
      expect(cleared.json.user).toMatchObject({ useradmin: false, filter: null, roles: ['hr'] });
    });

    it('refuses a PUT whose body id differs from the path, or with unknown fields', async () => {
      const mismatch = await s.api('PUT', `/projects/${id}/users/bob@example.com`, {
        body: { id: 'alice@example.com', admin: true },
      });
      expect(mismatch.status).toBe(400);
      const unknown = await s.api('PUT', `/projects/${id}/users/bob@example.com`, {
        body: { admin: true, sendemail: true },
      });
      expect(unknown.status).toBe(400);
      expect((await user(id, 'bob@example.com')).json.user.admin).toBe(false);
      const missing = await s.api('PUT', `/projects/${id}/users/ghost@example.com`, {
        body: { roles: [] },
      });
      expect(missing.status).toBe(404);
    });

    it('revokes access with active=false: the user then gets 401', async () => {
      const bob = 'bob@example.com';
      expect((await s.api('GET', `/projects/${id}`, { as: bob })).status).toBe(200);
      const r = await s.api('PUT', `/projects/${id}/users/${bob}`, { body: { active: false } });
      expect(r.status, r.text).toBe(200);
      expect(r.json.user.active).toBe(false);
      expect((await s.api('GET', `/projects/${id}`, { as: bob })).status).toBe(401);
      expect((await s.api('GET', `/projects/${id}/activity`, { as: bob })).status).toBe(401);
      const list = await s.api('GET', '/projects', { as: bob });
      expect(list.json.projects[id].hasAccess).toBe(false);

      const back = await s.api('PUT', `/projects/${id}/users/${bob}`, { body: { active: true } });
      expect(back.json.user.active).toBe(true);
      expect((await s.api('GET', `/projects/${id}`, { as: bob })).status).toBe(200);
    });

    it('removes a member with DELETE', async () => {
      const r = await s.api('DELETE', `/projects/${id}/users/bob@example.com`);
      expect(r.status, r.text).toBe(204);
      expect((await user(id, 'bob@example.com')).status).toBe(404);
      expect(await memberIds(id)).toEqual([ADMIN, 'alice@example.com']);
      expect((await s.api('GET', `/projects/${id}`, { as: 'bob@example.com' })).status).toBe(401);
      const list = await s.api('GET', '/projects', { as: 'bob@example.com' });
      expect(list.json.projects).not.toHaveProperty(id);
      expect((await s.api('DELETE', `/projects/${id}/users/bob@example.com`)).status).toBe(404);
    });

    it('is for Admins and User Admins only: a member gets 403, an outsider 401', async () => {
      await invite(s, id, 'plain@example.com');
      const as = 'plain@example.com';
      expect((await users(id, as)).status).toBe(403);
      expect((await user(id, ADMIN, as)).status).toBe(403);
      const inv = await s.api('POST', `/projects/${id}/users`, {
        as,
        body: { id: 'friend@example.com' },
      });
      expect(inv.status).toBe(403);
      expect((await user(id, 'friend@example.com')).status).toBe(404);
      expect((await users(id, 'stranger@example.com')).status).toBe(401);
    });
  });

  it('records user_action events for invite, update, revoke and remove', async () => {
    const id = await createProject(s, 'events', 'Events');
    const carol = 'carol@example.com';
    await invite(s, id, carol);
    await s.api('PUT', `/projects/${id}/users/${carol}`, { body: { roles: ['ops'] } });
    await s.api('PUT', `/projects/${id}/users/${carol}`, { body: { active: false } });
    await s.api('DELETE', `/projects/${id}/users/${carol}`);
    const events = await userActions(id);
    expect(events.map((e) => e.detail.action)).toEqual(['remove', 'revoke', 'update', 'invite']);
    for (const e of events) {
      expect(e).toMatchObject({ user: ADMIN, object: carol, detail: { target: carol } });
    }
    expect(events[2]!.detail).toMatchObject({ roles: ['ops'] });
  });

  describe('a User Admin', () => {
    let id: string;
    const ua = 'useradmin@example.com';
    const mdMember = 'md-member@example.com';

    beforeAll(async () => {
      id = await createProject(s, 'ua', 'User Admin');
      await invite(s, id, ua, { useradmin: true });
      await invite(s, id, mdMember, { mdadmin: true });
    });

    it('invites and manages plain members', async () => {
      const r = await s.api('POST', `/projects/${id}/users`, {
        as: ua,
        body: { id: 'member1@example.com', roles: ['sales'] },
      });
      expect(r.status, r.text).toBe(200);
      const put = await s.api('PUT', `/projects/${id}/users/member1@example.com`, {
        as: ua,
        body: { roles: ['sales', 'eu'] },
      });
      expect(put.status).toBe(200);
      expect((await users(id, ua)).status).toBe(200);
      // Granting User Admin is fine: they hold it.
      const grant = await s.api('PUT', `/projects/${id}/users/member1@example.com`, {
        as: ua,
        body: { useradmin: true },
      });
      expect(grant.status, grant.text).toBe(200);
      expect(grant.json.user.useradmin).toBe(true);
    });

    it.each([
      ['admin', { admin: true }],
      ['mdadmin', { mdadmin: true }],
      ['admin and mdadmin', { admin: true, mdadmin: true }],
    ])('cannot grant %s (403, nothing written)', async (_what, rights) => {
      const email = `grant-${Object.keys(rights).join('-')}@example.com`;
      const r = await s.api('POST', `/projects/${id}/users`, {
        as: ua,
        body: { id: email, ...rights },
      });
      expect(r.status, r.text).toBe(403);
      expect(r.json.context).toMatchObject({ id: email, levels: Object.keys(rights) });
      expect((await user(id, email)).status).toBe(404);
    });

    it('has the whole array rejected when one item grants too much', async () => {
      const before = await memberIds(id);
      const eventsBefore = (await userActions(id)).length;
      const r = await s.api('POST', `/projects/${id}/users`, {
        as: ua,
        body: [
          { id: 'ok1@example.com' },
          { id: 'member1@example.com', roles: ['changed'] },
          { id: 'too-much@example.com', mdadmin: true },
          { id: 'ok2@example.com' },
        ],
      });
      expect(r.status, r.text).toBe(403);
      expect(await memberIds(id)).toEqual(before);
      expect((await user(id, 'member1@example.com')).json.user.roles).toEqual(['sales', 'eu']);
      expect((await userActions(id)).length).toBe(eventsBefore);
    });

    it('cannot raise an existing plain member to mdadmin', async () => {
      await invite(s, id, 'member2@example.com');
      const r = await s.api('PUT', `/projects/${id}/users/member2@example.com`, {
        as: ua,
        body: { mdadmin: true },
      });
      expect(r.status).toBe(403);
      expect((await user(id, 'member2@example.com')).json.user.mdadmin).toBe(false);
    });

    it('cannot change, revoke or remove an Admin or a holder of a level they lack (403)', async () => {
      for (const target of [ADMIN, mdMember]) {
        for (const body of [
          { roles: ['x'] },
          { active: false },
          { admin: false, mdadmin: false },
        ]) {
          const r = await s.api('PUT', `/projects/${id}/users/${target}`, { as: ua, body });
          expect(r.status, `${target} ${JSON.stringify(body)}`).toBe(403);
        }
        const reinvite = await s.api('POST', `/projects/${id}/users`, {
          as: ua,
          body: { id: target, roles: ['x'] },
        });
        expect(reinvite.status).toBe(403);
        const del = await s.api('DELETE', `/projects/${id}/users/${target}`, { as: ua });
        expect(del.status).toBe(403);
      }
      expect((await user(id, ADMIN)).json.user).toMatchObject({
        admin: true,
        active: true,
        roles: [],
      });
      expect((await user(id, mdMember)).json.user).toMatchObject({
        mdadmin: true,
        active: true,
        roles: [],
      });
    });
  });

  describe('the last Admin', () => {
    it('cannot leave (409) until another Admin exists; nobody demotes or revokes themselves (403)', async () => {
      const id = await createProject(s, 'lastadmin', 'Last Admin');
      const admin2 = 'second-admin@example.com';
      for (const body of [{ active: false }, { admin: false }]) {
        const r = await s.api('PUT', `/projects/${id}/users/${ADMIN}`, { body });
        expect(r.status, `PUT ${JSON.stringify(body)}: ${r.text}`).toBe(403);
        expect(r.json.message).toMatch(/your own rights/);
      }
      const leave = await s.api('DELETE', `/projects/${id}/users/${ADMIN}`);
      expect(leave.status, leave.text).toBe(409);
      // Through an invitation as well.
      const viaInvite = await s.api('POST', `/projects/${id}/users`, {
        body: [{ id: 'bystander@example.com' }, { id: ADMIN, admin: false }],
      });
      expect(viaInvite.status).toBe(403);
      expect((await user(id, 'bystander@example.com')).status).toBe(404);
      expect((await user(id, ADMIN)).json.user).toMatchObject({ admin: true, active: true });
      expect((await userActions(id)).length).toBe(0);

      // An inactive Admin does not count.
      await invite(s, id, admin2, { admin: true, active: false });
      expect((await s.api('DELETE', `/projects/${id}/users/${ADMIN}`)).status).toBe(409);

      await s.api('PUT', `/projects/${id}/users/${admin2}`, { body: { active: true } });
      const demote = await s.api('PUT', `/projects/${id}/users/${ADMIN}`, {
        as: admin2,
        body: { admin: false },
      });
      expect(demote.status, demote.text).toBe(200);
      expect(demote.json.user.admin).toBe(false);

      // Now admin2 is the last Admin.
      const self = await s.api('PUT', `/projects/${id}/users/${admin2}`, {
        as: admin2,
        body: { active: false },
      });
      expect(self.status).toBe(403);
      expect(
        (await s.api('DELETE', `/projects/${id}/users/${admin2}`, { as: admin2 })).status,
      ).toBe(409);
      const remove = await s.api('DELETE', `/projects/${id}/users/${ADMIN}`, { as: admin2 });
      expect(remove.status).toBe(204);
      expect((await users(id)).status).toBe(401);
      const left = await s.api('GET', `/projects/${id}/users`, { as: admin2 });
      expect(left.json.users.map((u: Member) => u.id)).toEqual([admin2]);
    });
  });

  describe('invitation validation', () => {
    let id: string;

    beforeAll(async () => {
      id = await createProject(s, 'validation', 'Validation');
      await loadPeople(id);
    });

    it('refuses duplicate ids in one array (400, nothing written)', async () => {
      const r = await s.api('POST', `/projects/${id}/users`, {
        body: [{ id: 'dup@example.com' }, { id: 'other@example.com' }, { id: 'DUP@example.com' }],
      });
      expect(r.status).toBe(400);
      expect(r.json.context).toMatchObject({ index: 2, id: 'dup@example.com' });
      expect(await memberIds(id)).toEqual([ADMIN]);
    });

    it.each([['not-an-email'], ['two@@example.com'], ['a b@example.com'], ['<x@example.com>']])(
      'refuses the invalid e-mail %s (400)',
      async (email) => {
        const r = await s.api('POST', `/projects/${id}/users`, {
          body: [{ id: 'fine@example.com' }, { id: email }],
        });
        expect(r.status, r.text).toBe(400);
        expect(r.json.context).toMatchObject({ value: email });
        expect(await memberIds(id)).toEqual([ADMIN]);
      },
    );

    it('refuses more than 1000 items and an empty array (400)', async () => {
      const many = Array.from({ length: 1001 }, (_, i) => ({ id: `u${i}@example.com` }));
      const r = await s.api('POST', `/projects/${id}/users`, { body: many });
      expect(r.status).toBe(400);
      expect(r.json.context.issues).toBeDefined();
      expect(await memberIds(id)).toEqual([ADMIN]);
      expect((await s.api('POST', `/projects/${id}/users`, { body: [] })).status).toBe(400);
    });

    it('refuses unknown fields and wrong types (400 with issues)', async () => {
      for (const body of [
        { id: 'x@example.com', owner: true },
        { id: 'x@example.com', admin: 'yes' },
        { id: 'x@example.com', roles: 'sales' },
        { admin: true },
      ]) {
        const r = await s.api('POST', `/projects/${id}/users`, { body });
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.json.context.issues.length).toBeGreaterThan(0);
      }
      expect(await memberIds(id)).toEqual([ADMIN]);
    });

    it('accepts a valid row-level filter', async () => {
      const r = await s.api('POST', `/projects/${id}/users`, {
        body: { id: 'filtered@example.com', filter: '[Region] = "EU"' },
      });
      expect(r.status, r.text).toBe(200);
      expect((await user(id, 'filtered@example.com')).json.user.filter).toBe('[Region] = "EU"');
    });

    it.each([
      ['[Region = "EU"', { field: 'filter', value: '[Region = "EU"', line: 1, column: 1 }],
      ['"unterminated', { field: 'filter', value: '"unterminated', line: 1, column: 1 }],
      ['no reference', { field: 'filter', value: 'no reference' }],
      ['[Region] = "EU")', { field: 'filter', line: 1, column: 16 }],
      ['   ', { field: 'filter' }],
    ])('refuses the row-level filter %j (400 with context)', async (filter, context) => {
      const invited = await s.api('POST', `/projects/${id}/users`, {
        body: { id: 'badfilter@example.com', filter },
      });
      expect(invited.status, invited.text).toBe(400);
      expect(invited.json.message).toMatch(/row-level filter/);
      expect(invited.json.context).toMatchObject(context);
      expect((await user(id, 'badfilter@example.com')).status).toBe(404);

      const put = await s.api('PUT', `/projects/${id}/users/filtered@example.com`, {
        body: { filter },
      });
      expect(put.status).toBe(400);
      expect(put.json.context).toMatchObject(context);
      expect((await user(id, 'filtered@example.com')).json.user.filter).toBe('[Region] = "EU"');
    });

    it('refuses a filter naming an object the model does not have (400), storing nothing', async () => {
      const filter = '[Regoin] = "EU"';
      const invited = await s.api('POST', `/projects/${id}/users`, {
        body: [{ id: 'fine@example.com' }, { id: 'unknown-attr@example.com', filter }],
      });
      expect(invited.status, invited.text).toBe(400);
      expect(invited.json.message).toMatch(
        /^invalid row-level filter: unknown object \[Regoin\]; did you mean \[Region\]/,
      );
      expect(invited.json.context).toMatchObject({
        field: 'filter',
        value: filter,
        line: 1,
        column: 1,
        suggestions: expect.arrayContaining(['Region']),
      });
      // All or nothing: the valid invitation of the same request is not stored either.
      expect((await user(id, 'unknown-attr@example.com')).status).toBe(404);
      expect((await user(id, 'fine@example.com')).status).toBe(404);

      const put = await s.api('PUT', `/projects/${id}/users/filtered@example.com`, {
        body: { filter },
      });
      expect(put.status, put.text).toBe(400);
      expect(put.json.context).toMatchObject({ field: 'filter', value: filter });
      expect((await user(id, 'filtered@example.com')).json.user.filter).toBe('[Region] = "EU"');
    });

    it('addresses users whose e-mail holds URL-special characters', async () => {
      // A decoded-twice path would make x%41@… address xa@…, a different user.
      await invite(s, id, 'xa@example.com');
      for (const email of [
        'x%41@example.com',
        'a%zz@example.com',
        'a+b@example.com',
        "o'neil@example.com",
      ]) {
        const r = await s.api('POST', `/projects/${id}/users`, { body: { id: email } });
        expect(r.status, r.text).toBe(200);
        const self = await s.api('GET', r.json.users[0].link[0].href);
        expect(self.status, `${email}: ${self.text}`).toBe(200);
        expect(self.json.user.id).toBe(email);
        const put = await s.api('PUT', self.json.user.link[0].href, { body: { roles: ['r'] } });
        expect(put.status, put.text).toBe(200);
        expect(put.json.user.id).toBe(email);
      }
      expect((await user(id, 'xa@example.com')).json.user.roles).toEqual([]);
    });
  });

  describe('plan limit "users"', () => {
    let t: TestServer;
    let plans: ReturnType<typeof writePlansFile>;

    beforeAll(async () => {
      plans = writePlansFile({ users: 3 });
      t = await startTestServer({ URSA_PLANS_FILE: plans.file });
    });
    afterAll(async () => {
      await t.close();
      plans.remove();
    });

    it('answers 402 and writes nothing when active members would exceed it', async () => {
      const id = t.demo;
      const ids = async () =>
        ((await t.api('GET', `/projects/${id}/users`)).json.users as Member[]).map((u) => u.id);
      const usage = async () =>
        (await t.api('GET', `/projects/${id}/limitadherence`)).json.users as {
          limit: number;
          value: number;
        };
      expect(await usage()).toEqual({ limit: 3, value: 1 });

      const tooMany = await t.api('POST', `/projects/${id}/users`, {
        body: [{ id: 'l1@example.com' }, { id: 'l2@example.com' }, { id: 'l3@example.com' }],
      });
      expect(tooMany.status, tooMany.text).toBe(402);
      expect(tooMany.json.context).toMatchObject({
        limit: 'users',
        allowed: 3,
        used: 1,
        requested: 3,
      });
      expect(await ids()).toEqual([ADMIN]);
      const events = await t.api('GET', `/projects/${id}/activity?types=user_action`);
      expect(events.json.activity).toEqual([]);

      const fits = await t.api('POST', `/projects/${id}/users`, {
        body: [{ id: 'l1@example.com' }, { id: 'l2@example.com' }],
      });
      expect(fits.status, fits.text).toBe(200);
      expect(await usage()).toEqual({ limit: 3, value: 3 });

      const one = await t.api('POST', `/projects/${id}/users`, { body: { id: 'l3@example.com' } });
      expect(one.status).toBe(402);
      // Inviting someone inactive, and updating active members, does not count.
      const inactive = await t.api('POST', `/projects/${id}/users`, {
        body: { id: 'l3@example.com', active: false },
      });
      expect(inactive.status, inactive.text).toBe(200);
      const update = await t.api('POST', `/projects/${id}/users`, {
        body: { id: 'l1@example.com', roles: ['r'] },
      });
      expect(update.status).toBe(200);
      expect(update.json.users[0].status).toBe('updated');
      // Activating the inactive one would exceed it.
      const activate = await t.api('PUT', `/projects/${id}/users/l3@example.com`, {
        body: { active: true },
      });
      expect(activate.status).toBe(402);
      expect((await t.api('GET', `/projects/${id}/users/l3@example.com`)).json.user.active).toBe(
        false,
      );
      // After a revoke there is room again.
      await t.api('PUT', `/projects/${id}/users/l2@example.com`, { body: { active: false } });
      const now = await t.api('PUT', `/projects/${id}/users/l3@example.com`, {
        body: { active: true },
      });
      expect(now.status, now.text).toBe(200);
      expect(await usage()).toEqual({ limit: 3, value: 3 });
    });
  });

  describe('invitation e-mail', () => {
    it('without SMTP writes an .eml into <dataDir>/outbox', async () => {
      const id = await createProject(s, 'outbox', 'Outbox');
      const outbox = path.join(s.dataDir, 'outbox');
      const r = await s.api('POST', `/projects/${id}/users`, {
        body: { id: 'eml@example.com', sendemail: true },
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json.users[0]).toMatchObject({ id: 'eml@example.com', emailSent: true });
      expect(r.json.users[0]).not.toHaveProperty('emailError');
      const files = fs.readdirSync(outbox).filter((f) => f.endsWith('.eml'));
      const mails = files
        .map((f) => parseMail(fs.readFileSync(path.join(outbox, f), 'utf8')))
        .filter((m) => m.headers.get('to') === 'eml@example.com');
      expect(mails).toHaveLength(1);
      expect(mails[0]!.headers.get('subject')).toBe(
        `${ADMIN} invited you to the Ursa project "Outbox"`,
      );
      expect(mails[0]!.body).toContain(`${s.url}/app/p/${id}`);

      // No sendemail: nothing sent, nothing reported.
      const quiet = await s.api('POST', `/projects/${id}/users`, {
        body: { id: 'quiet@example.com' },
      });
      expect(quiet.json.users[0]).not.toHaveProperty('emailSent');
      expect(fs.readdirSync(outbox).filter((f) => f.endsWith('.eml'))).toHaveLength(files.length);
    });

    describe('through SMTP', () => {
      let smtp: SmtpSink;
      let t: TestServer;

      beforeAll(async () => {
        smtp = await startSmtpSink();
        t = await startTestServer({ URSA_SMTP_URL: `smtp://127.0.0.1:${smtp.port}` });
      });
      afterAll(async () => {
        await t.close();
        await smtp.close();
      });

      it('sends a real invitation e-mail and reports emailSent', async () => {
        const r = await t.api('POST', `/projects/${t.demo}/users`, {
          body: [
            { id: 'Dave@Example.com', sendemail: true, mdadmin: true },
            { id: 'erin@example.com' },
          ],
        });
        expect(r.status, r.text).toBe(200);
        expect(r.json.users[0]).toMatchObject({ id: 'dave@example.com', emailSent: true });
        expect(r.json.users[1]).not.toHaveProperty('emailSent');
        const msg = await waitFor(() => smtp.messages[0]);
        expect(msg.to).toEqual(['dave@example.com']);
        const mail = parseMail(msg.raw);
        expect(mail.headers.get('to')).toBe('dave@example.com');
        expect(mail.headers.get('subject')).toBe(`${ADMIN} invited you to the Ursa project "Demo"`);
        expect(mail.body).toContain(`${t.url}/app/p/${t.demo}`);
        expect(mail.body).toContain('Your access: MD Admin.');
        // A new account has no password: the invitation carries the link to choose one.
        expect(mail.body).toMatch(
          new RegExp(`${t.url}/auth/password/set\\?token=[A-Za-z0-9_-]{43}`),
        );
        expect(smtp.messages).toHaveLength(1);
        expect(fs.existsSync(path.join(t.dataDir, 'outbox'))).toBe(false);
      });
    });

    describe('with a dead SMTP port', () => {
      let t: TestServer;

      beforeAll(async () => {
        const port = await deadPort();
        t = await startTestServer({
          URSA_SMTP_URL: `smtp://127.0.0.1:${port}?connectionTimeout=2000&greetingTimeout=2000`,
        });
      });
      afterAll(() => t.close());

      it('still invites, and reports emailSent: false with an emailError', async () => {
        const r = await t.api('POST', `/projects/${t.demo}/users`, {
          body: { id: 'frank@example.com', sendemail: true },
        });
        expect(r.status, r.text).toBe(200);
        expect(r.json.users[0]).toMatchObject({
          id: 'frank@example.com',
          status: 'invited',
          emailSent: false,
        });
        expect(r.json.users[0].emailError).toMatch(/frank@example\.com/);
        expect(r.json.users[0].emailError).not.toMatch(/smtp:\/\//);
        const get = await t.api('GET', `/projects/${t.demo}/users/frank@example.com`);
        expect(get.status).toBe(200);
        expect(get.json.user.active).toBe(true);
      });
    });
  });
});
