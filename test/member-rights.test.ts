// Only Admins and User Admins change what a member may see, and nobody changes their own
// rights: not a User Admin's own row filter, roles or level, not an Admin's; `userrole.members`
// is user administration; and a model change or a load that alters which rows a member's
// row-level filter selects (a saved filter it names, a title it names, a reference it relies
// on) needs the User Admin level.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, loadDataset, loadPeople } from './helpers/fixtures.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

const UA = 'rights-ua@example.com';
const UA2 = 'rights-ua2@example.com';
const MD = 'rights-md@example.com';
const MDUA = 'rights-mdua@example.com';
const MDUA_EU = 'rights-mdua-eu@example.com';
const EU = 'rights-eu@example.com';
const PLAIN = 'rights-plain@example.com';

describe('who changes what a member may see', () => {
  let s: TestServer;
  let p: string;
  const userPath = (email: string) => `/projects/${p}/users/${encodeURIComponent(email)}`;
  const obj = (path = '') => `/projects/${p}/pmd/obj${path}`;
  const rights = async (email: string) => (await s.api('GET', userPath(email))).json.user;
  const current = async (ident: string) => (await s.api('GET', obj(`/${ident}`))).json.object;
  const rows = async (as: string) => {
    const r = await s.api('POST', `/projects/${p}/app/aql/execute`, {
      as,
      body: { aql: 'SELECT [Region], COUNT([Person]) AS n ORDER BY 1' },
    });
    expect(r.status, r.text).toBe(201);
    const job = await s.engine.jobs.waitFor(r.json.link[0].id);
    expect(job.status, job.message).toBe('OK');
    return (await s.api('GET', `/projects/${p}/app/aql/data/${job.id}`, { as })).json.data.values;
  };

  beforeAll(async () => {
    s = await startTestServer();
    p = await createProject(s, 'rights', 'Rights');
    await loadPeople(s, p);
    // sales references people by person_id, so a filter on [Region] restricts it too.
    await loadDataset(s, p, 'sales', 'sale_id,person_id,amount\n1,1,5\n2,2,7\n', 'sale_id', [
      ['sale_id', 'A', 'integer', 'Sale'],
      ['person_id', 'A', 'integer', 'Sale Person'],
      ['amount', 'F', 'integer', 'Sale Amount'],
    ]);
    const r = await s.api('POST', obj(), {
      body: {
        ident: 'filter.eu',
        type: 'filter',
        name: 'Saved EU',
        def: { aql: '[Region] = "EU"' },
      },
    });
    expect(r.status, r.text).toBe(201);
    await invite(s, p, UA, { useradmin: true, roles: ['staff'], filter: '[Region] = "EU"' });
    await invite(s, p, UA2, { useradmin: true });
    await invite(s, p, MD, { mdadmin: true });
    await invite(s, p, MDUA, { mdadmin: true, useradmin: true });
    await invite(s, p, MDUA_EU, { mdadmin: true, useradmin: true, filter: '[Saved EU]' });
    await invite(s, p, EU, { filter: '[Saved EU]' });
    await invite(s, p, PLAIN);
  });
  afterAll(async () => {
    await s.close();
  });

  describe('nobody changes their own rights', () => {
    it.each([
      ['removes their own row filter', { filter: null }],
      ['widens their own row filter', { filter: '[Region] = "EU" OR [Region] = "US"' }],
      ['gives themselves roles', { roles: ['staff', 'board'] }],
      ['gives themselves a level', { mdadmin: true }],
      ['revokes themselves', { active: false }],
    ])('a User Admin who %s → 403, nothing changes', async (_what, body) => {
      const before = await rights(UA);
      const put = await s.api('PUT', userPath(UA), { as: UA, body });
      expect(put.status, put.text).toBe(403);
      expect(put.json.message).toMatch(/your own rights/);
      const post = await s.api('POST', `/projects/${p}/users`, {
        as: UA,
        body: { id: UA, ...body },
      });
      expect(post.status, post.text).toBe(403);
      expect(await rights(UA)).toEqual(before);
    });

    it('sending one’s own rights unchanged is fine; e-mail case does not matter', async () => {
      const r = await s.api('PUT', userPath(UA.toUpperCase()), {
        as: UA,
        body: { filter: '[Region] = "EU"', roles: ['staff'] },
      });
      expect(r.status, r.text).toBe(200);
      const widen = await s.api('PUT', userPath(UA.toUpperCase()), {
        as: UA,
        body: { filter: null },
      });
      expect(widen.status).toBe(403);
    });

    it('not even an Admin; another Admin or User Admin may, and a member may leave', async () => {
      const self = await s.api('PUT', userPath(ADMIN), { body: { roles: ['board'] } });
      expect(self.status, self.text).toBe(403);
      expect((await rights(ADMIN)).roles).toEqual([]);
      const other = await s.api('PUT', userPath(UA), { as: UA2, body: { roles: ['staff', 'x'] } });
      expect(other.status, other.text).toBe(200);
      expect((await s.api('PUT', userPath(UA), { body: { roles: ['staff'] } })).status).toBe(200);
      await invite(s, p, 'rights-leaver@example.com', { useradmin: true });
      const leave = await s.api('DELETE', userPath('rights-leaver@example.com'), {
        as: 'rights-leaver@example.com',
      });
      expect(leave.status, leave.text).toBe(204);
    });
  });

  describe('userrole.members is user administration', () => {
    const role = (ident: string, members?: string[]) => ({
      ident,
      type: 'userrole',
      name: ident,
      def: members ? { members } : {},
    });

    it('an MD Admin cannot create a userrole with members, nor change or delete its members', async () => {
      const create = await s.api('POST', obj(), { as: MD, body: role('userrole.md', [PLAIN]) });
      expect(create.status, create.text).toBe(403);
      expect(create.json.message).toMatch(/def\.members.*User Admin/);
      expect((await s.api('GET', obj('/userrole.md'))).status).toBe(404);
      const batch = await s.api('POST', obj(), {
        as: MD,
        body: [role('userrole.ok'), role('userrole.md2', [PLAIN])],
      });
      expect(batch.status).toBe(403);
      expect((await s.api('GET', obj('/userrole.ok'))).status).toBe(404);

      const empty = await s.api('POST', obj(), { as: MD, body: role('userrole.empty') });
      expect(empty.status, empty.text).toBe(201);
      const add = await s.api('PUT', obj('/userrole.empty'), {
        as: MD,
        body: { name: 'userrole.empty', def: { members: [PLAIN] } },
      });
      expect(add.status, add.text).toBe(403);
      // Name and description may change: members stay as they are.
      const rename = await s.api('PUT', obj('/userrole.empty'), {
        as: MD,
        body: { name: 'Empty role', def: {} },
      });
      expect(rename.status, rename.text).toBe(200);

      const made = await s.api('POST', obj(), { body: role('userrole.held', [PLAIN]) });
      expect(made.status, made.text).toBe(201);
      const drop = await s.api('PUT', obj('/userrole.held'), {
        as: MD,
        body: { name: 'userrole.held', def: { members: [] } },
      });
      expect(drop.status).toBe(403);
      expect((await s.api('DELETE', obj('/userrole.held'), { as: MD })).status).toBe(403);
      expect((await current('userrole.held')).def.members).toEqual([PLAIN]);
    });

    it('an MD Admin with User Admin may, but not for themselves', async () => {
      const ok = await s.api('POST', obj(), { as: MDUA, body: role('userrole.ua', [PLAIN]) });
      expect(ok.status, ok.text).toBe(201);
      const self = await s.api('PUT', obj('/userrole.ua'), {
        as: MDUA,
        body: { name: 'userrole.ua', def: { members: [PLAIN, MDUA.toUpperCase()] } },
      });
      expect(self.status, self.text).toBe(403);
      expect(self.json.message).toMatch(/yourself/);
      const mine = await s.api('POST', obj(), { as: MDUA, body: role('userrole.me', [MDUA]) });
      expect(mine.status).toBe(403);
      expect((await s.api('DELETE', obj('/userrole.ua'), { as: MDUA })).status).toBe(204);
    });
  });

  describe('a model change that alters a row filter needs a User Admin', () => {
    it('an MD Admin cannot edit or delete the saved filter a row filter names', async () => {
      const f = await current('filter.eu');
      const r = await s.api('PUT', obj('/filter.eu'), {
        as: MD,
        body: { ...f, def: { aql: '[Region] = "US"' } },
      });
      expect(r.status, r.text).toBe(403);
      expect(r.json.message).toMatch(/row-level filter of 2 member/);
      expect((await s.api('DELETE', obj('/filter.eu'), { as: MD })).status).toBe(403);
      expect(await current('filter.eu')).toMatchObject({ name: 'Saved EU', revision: f.revision });
      // What does not change its meaning is fine: a description, and a new title (row filters
      // name it by identifier once stored, and read with the new title).
      const described = await s.api('PUT', obj('/filter.eu'), {
        as: MD,
        body: { ...f, description: 'Europe only' },
      });
      expect(described.status, described.text).toBe(200);
      const renamed = await s.api('PUT', obj('/filter.eu'), {
        as: MD,
        body: { ...f, name: 'Saved Europe' },
      });
      expect(renamed.status, renamed.text).toBe(200);
      expect((await rights(EU)).filter).toBe('[Saved Europe]');
      expect(await rows(EU)).toBe('EU\t1');
      const back = await s.api('PUT', obj('/filter.eu'), { as: MD, body: f });
      expect(back.status, back.text).toBe(200);
      expect((await rights(EU)).filter).toBe('[Saved EU]');
    });

    it('an MD Admin may retitle an attribute a row filter names by title: its meaning stays', async () => {
      const region = await current('attr.people.region');
      const r = await s.api('PUT', obj('/attr.people.region'), {
        as: MD,
        body: { ...region, name: 'Area' },
      });
      expect(r.status, r.text).toBe(200);
      expect((await rights(UA)).filter).toBe('[Area] = "EU"');
      const restored = await s.api('PUT', obj('/attr.people.region'), { as: MD, body: region });
      expect(restored.status, restored.text).toBe(200);
      expect((await rights(UA)).filter).toBe('[Region] = "EU"');
      const metric = await s.api('POST', obj(), {
        as: MD,
        body: { type: 'metric', name: 'People', def: { aql: 'SELECT COUNT([Person])' } },
      });
      expect(metric.status, metric.text).toBe(201);
    });

    it('a load that changes the columns or references a filter relies on: 403 for an MD Admin', async () => {
      const load = (as: string, name: string, prescription: unknown) =>
        s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
          as,
          body: {
            type: 'cluster',
            clusters: { [name]: { source_type: 'webdav', source: `/${name}.csv`, prescription } },
          },
        });
      const col = (id: string, objectType: string, dataType: string, label: string) => ({
        id,
        originalheader: id,
        objectType,
        dataType,
        label,
      });
      // people's region retitled by a load: the filters name it by identifier, so their
      // meaning stays and the load may run; the filter reads with the new title.
      const people = (region: string) =>
        load(MD, 'people', {
          primarykey: 'person_id',
          columns: [
            col('person_id', 'A', 'integer', 'Person'),
            col('region', 'A', 'string', region),
            col('dept', 'A', 'string', 'Dept'),
          ],
        });
      for (const title of ['Area', 'Region']) {
        const retitled = await people(title);
        expect(retitled.status, retitled.text).toBe(202);
        const done = await s.engine.jobs.waitFor(retitled.json.link[0].id);
        expect(done.status, done.message).toBe('OK');
        expect((await rights(UA)).filter).toBe(`[${title}] = "EU"`);
      }
      // A load dropping the column the filters name would change them: 403.
      await rawStorage(s.engine).writeFile(p, '/people.csv', Buffer.from('person_id,dept\n1,HR\n'));
      const dropped = await load(MD, 'people', {
        primarykey: 'person_id',
        columns: [col('person_id', 'A', 'integer', 'Person'), col('dept', 'A', 'string', 'Dept')],
      });
      expect(dropped.status, dropped.text).toBe(403);
      // sales no longer references people: the filter would no longer restrict its rows.
      await rawStorage(s.engine).writeFile(
        p,
        '/sales.csv',
        Buffer.from('sale_id,pid,amount\n1,1,5\n2,2,7\n'),
      );
      const cut = await load(MD, 'sales', {
        primarykey: 'sale_id',
        columns: [
          col('sale_id', 'A', 'integer', 'Sale'),
          col('pid', 'A', 'integer', 'Sale Person'),
          col('amount', 'F', 'integer', 'Sale Amount'),
        ],
      });
      expect(cut.status, cut.text).toBe(403);
      expect((await s.engine.datasets.prescriptionOf(p, 'sales'))?.columns[1]?.id).toBe(
        'person_id',
      );
      await rawStorage(s.engine).writeFile(
        p,
        '/sales.csv',
        Buffer.from('sale_id,person_id,amount\n1,1,5\n2,2,7\n3,1,1\n'),
      );
      // The same structure again, with new rows: fine.
      const same = await load(MD, 'sales', undefined);
      expect(same.status, same.text).toBe(202);
      const job = await s.engine.jobs.waitFor(same.json.link[0].id);
      expect(job.status, job.message).toBe('OK');
    });

    it('not their own filter, even as a User Admin: not through the model either', async () => {
      const f = await current('filter.eu');
      const r = await s.api('PUT', obj('/filter.eu'), {
        as: MDUA_EU,
        body: { ...f, def: { aql: '[Region] = "EU" OR [Region] = "US"' } },
      });
      expect(r.status, r.text).toBe(403);
      expect(r.json.message).toMatch(/your own row-level filter/);
      expect((await current('filter.eu')).def.aql).toBe('[Region] = "EU"');
    });

    it('a User Admin (with MD Admin) may change it, and the member sees the new rows', async () => {
      const f = await current('filter.eu');
      const r = await s.api('PUT', obj('/filter.eu'), {
        as: MDUA,
        body: { ...f, def: { aql: '[Region] = "US"' } },
      });
      expect(r.status, r.text).toBe(200);
      expect(await rows(EU)).toBe('US\t1');
    });
  });
});
