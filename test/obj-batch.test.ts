// Batch access over HTTP (SHARING.md "Batch access"): POST app/obj/batch sets one role's
// access string on many objects, all or nothing; the caller needs `a` on each object, and
// objects hidden from them do not exist (404).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProject } from './helpers/fixtures.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';

const MANAGER = 'batch-manager@example.com'; // role "editors": `a` on some folders only
const VIEWER = 'batch-viewer@example.com'; // role "viewers": nothing until a batch grants it
const OUTSIDER = 'batch-outsider@example.com'; // no role

type Acl = Array<{ userrole: string; acl: string }>;

let s: TestServer;
let p: string;
let n = 0;

const batch = (body: unknown, as = ADMIN) =>
  s.api('POST', `/projects/${p}/app/obj/batch`, { as, body });

/** A folder with this ACL, created by the Admin; answers its ident. */
async function folder(tag: string, acl: Acl): Promise<string> {
  const ident = `folder.${tag}_${++n}`;
  const r = await s.api('POST', `/projects/${p}/pmd/obj`, {
    body: { ident, type: 'folder', name: ident, def: { content: [] }, acl },
  });
  expect(r.status, r.text).toBe(201);
  return ident;
}

/** What the Admin reads of an object: its ACL and its number of revisions. */
async function state(ident: string): Promise<{ acl: Acl; revisions: number }> {
  const r = await s.api('GET', `/projects/${p}/pmd/obj/${ident}?history=1`);
  expect(r.status, r.text).toBe(200);
  return { acl: r.json.object.acl, revisions: r.json.history.length };
}

const modelVersion = async () =>
  (await s.engine.objects.versions(await s.engine.actor({ email: ADMIN }, p))).modelVersion;

async function events(ident: string) {
  const r = await s.api('GET', `/projects/${p}/activity?types=obj_action&limit=1000`);
  expect(r.status, r.text).toBe(200);
  return (
    r.json.activity as Array<{
      user: string;
      object: string;
      detail: Record<string, unknown>;
    }>
  ).filter((e) => e.object === ident);
}

async function reads(as: string, ident: string): Promise<boolean> {
  const r = await s.api('GET', `/projects/${p}/pmd/obj/${ident}`, { as });
  expect([200, 404], r.text).toContain(r.status);
  return r.status === 200;
}

beforeAll(async () => {
  s = await startTestServer({ URSA_DEFAULT_PLAN: 'enterprise' });
  p = await createProject(s, 'batch', 'Batch');
  await invite(s, p, MANAGER, { roles: ['editors'] });
  await invite(s, p, VIEWER, { roles: ['viewers'] });
  await invite(s, p, OUTSIDER);
});
afterAll(async () => {
  await s.close();
});

describe('POST app/obj/batch', () => {
  let a: string;
  let b: string;
  beforeEach(async () => {
    a = await folder('a', [{ userrole: 'editors', acl: 'r---a' }]);
    b = await folder('b', [
      { userrole: 'finance', acl: 'r----' },
      { userrole: 'editors', acl: 'rw--a' },
    ]);
  });

  it('an Admin sets a role on many objects; each answers with its whole ACL', async () => {
    const version = await modelVersion();
    const r = await batch({ userrole: 'viewers', acl: 'r----', objects: [b, a] });
    expect(r.status, r.text).toBe(200);
    expect(r.json.objects).toEqual([
      {
        ident: b,
        acl: [
          { userrole: 'finance', acl: 'r----' },
          { userrole: 'editors', acl: 'rw--a' },
          { userrole: 'viewers', acl: 'r----' },
        ],
        link: [expect.objectContaining({ rel: 'object.folder', id: b })],
      },
      {
        ident: a,
        acl: [
          { userrole: 'editors', acl: 'r---a' },
          { userrole: 'viewers', acl: 'r----' },
        ],
        link: [expect.objectContaining({ rel: 'object.folder', id: a })],
      },
    ]);
    expect(r.json.link.map((l: { id: string }) => l.id)).toEqual([b, a]);
    expect(await state(a)).toEqual({ acl: r.json.objects[1].acl, revisions: 2 });
    expect(await state(b)).toEqual({ acl: r.json.objects[0].acl, revisions: 2 });
    expect(await modelVersion()).toBeGreaterThan(version);
  });

  it('the effect: a member of the role can then read the objects in pmd/obj', async () => {
    const listed = async () => {
      const r = await s.api('GET', `/projects/${p}/pmd/obj?rel=object.folder&limit=1000`, {
        as: VIEWER,
      });
      expect(r.status, r.text).toBe(200);
      return (r.json.objects as Array<{ ident: string }>).map((o) => o.ident);
    };
    expect(await listed()).not.toContain(a);
    expect(await reads(VIEWER, a)).toBe(false);
    const r = await batch({ userrole: 'viewers', acl: 'r----', objects: [a, b] });
    expect(r.status, r.text).toBe(200);
    expect(await listed()).toEqual(expect.arrayContaining([a, b]));
    expect(await reads(VIEWER, a)).toBe(true);
    expect(await reads(OUTSIDER, a)).toBe(false);
  });

  it("replaces the role's entry where it is; null removes it; ----- stays an entry", async () => {
    let r = await batch({ userrole: 'editors', acl: 'rwdsa', objects: [b] });
    expect(r.status, r.text).toBe(200);
    expect(r.json.objects[0].acl).toEqual([
      { userrole: 'finance', acl: 'r----' },
      { userrole: 'editors', acl: 'rwdsa' },
    ]);
    r = await batch({ userrole: 'finance', acl: null, objects: [b] });
    expect(r.status, r.text).toBe(200);
    expect(r.json.objects[0].acl).toEqual([{ userrole: 'editors', acl: 'rwdsa' }]);

    // "-----" grants nothing but keeps the object restricted; removing the last entry opens it.
    r = await batch({ userrole: 'editors', acl: '-----', objects: [a] });
    expect(r.status, r.text).toBe(200);
    expect(r.json.objects[0].acl).toEqual([{ userrole: 'editors', acl: '-----' }]);
    expect(await reads(MANAGER, a)).toBe(false);
    expect(await reads(OUTSIDER, a)).toBe(false);
    r = await batch({ userrole: 'editors', acl: null, objects: [a] });
    expect(r.status, r.text).toBe(200);
    expect(r.json.objects[0].acl).toEqual([]);
    expect(await reads(OUTSIDER, a)).toBe(true);
    // Removing an entry the object does not have changes nothing.
    const before = await state(a);
    r = await batch({ userrole: 'nobody', acl: null, objects: [a] });
    expect(r.status, r.text).toBe(200);
    expect(await state(a)).toEqual(before);
  });

  it('a member with `a` through a role changes those objects', async () => {
    const r = await batch({ userrole: 'viewers', acl: 'r----', objects: [a, b] }, MANAGER);
    expect(r.status, r.text).toBe(200);
    expect((await state(a)).acl).toContainEqual({ userrole: 'viewers', acl: 'r----' });
    expect((await state(b)).acl).toContainEqual({ userrole: 'viewers', acl: 'r----' });
    const [event] = await events(a);
    expect(event).toMatchObject({ user: MANAGER, detail: { action: 'update' } });
  });

  it('without `a` on one of them → 403 naming it, and nothing changes', async () => {
    const readOnly = await folder('readonly', [{ userrole: 'editors', acl: 'rw---' }]);
    const open = await folder('open', []);
    const before = await Promise.all([a, b, readOnly, open].map(state));
    const version = await modelVersion();
    const r = await batch(
      { userrole: 'viewers', acl: 'r----', objects: [a, readOnly, b, open] },
      MANAGER,
    );
    expect(r.status, r.text).toBe(403);
    expect(r.json.message).toContain(readOnly);
    expect(r.json.message).toContain(open);
    expect(r.json.message).not.toContain(a);
    expect(r.json.context).toMatchObject({ needs: 'a', idents: [readOnly, open] });
    expect(await Promise.all([a, b, readOnly, open].map(state))).toEqual(before);
    expect(await modelVersion()).toBe(version);
    for (const ident of [a, b, readOnly, open]) expect(await events(ident)).toHaveLength(1);
    // A member without any role holds `a` nowhere, not even on an object every member reads.
    const r2 = await batch({ userrole: 'viewers', acl: 'r----', objects: [open] }, OUTSIDER);
    expect(r2.status, r2.text).toBe(403);
  });

  it('an object hidden from the caller, or unknown, → 404 naming the first; nothing changes', async () => {
    const hidden = await folder('hidden', [{ userrole: 'finance', acl: 'r---a' }]);
    const before = await Promise.all([a, hidden].map(state));
    let r = await batch(
      { userrole: 'editors', acl: 'rwdsa', objects: [a, hidden, 'folder.nope'] },
      MANAGER,
    );
    expect(r.status, r.text).toBe(404);
    expect(r.json.message).toContain(`"${hidden}"`);
    expect(r.json.context).toMatchObject({ ident: hidden });
    r = await batch({ userrole: 'editors', acl: 'rwdsa', objects: [a, 'folder.nope', hidden] });
    expect(r.status, r.text).toBe(404);
    expect(r.json.context).toMatchObject({ ident: 'folder.nope' });
    expect(await Promise.all([a, hidden].map(state))).toEqual(before);
  });

  it('records an obj_action event per changed object, with the role and access', async () => {
    const r = await batch({ userrole: 'viewers', acl: 'r---a', objects: [a, b] });
    expect(r.status, r.text).toBe(200);
    for (const ident of [a, b]) {
      const [latest, created] = await events(ident);
      expect(latest).toMatchObject({
        user: ADMIN,
        object: ident,
        detail: {
          action: 'update',
          ident,
          type: 'folder',
          revision: 2,
          userrole: 'viewers',
          acl: 'r---a',
        },
      });
      expect(created!.detail.action).toBe('create');
    }
    // The same call again changes nothing: no revision, no event.
    const again = await batch({ userrole: 'viewers', acl: 'r---a', objects: [a, b] });
    expect(again.status, again.text).toBe(200);
    expect(again.json.objects).toEqual(r.json.objects);
    expect((await state(a)).revisions).toBe(2);
    expect(await events(a)).toHaveLength(2);
  });

  it.each([
    ['acl with a wrong letter', { acl: 'rwx--' }, 'acl'],
    ['acl too short', { acl: 'r---' }, 'acl'],
    ['acl in the wrong order', { acl: 'wr---' }, 'acl'],
    ['acl left out', { acl: undefined }, 'acl'],
    ['acl a number', { acl: 5 }, 'acl'],
    ['userrole empty', { userrole: '' }, 'userrole'],
    ['userrole left out', { userrole: undefined }, 'userrole'],
    ['objects empty', { objects: [] }, 'objects'],
    ['objects not a list', { objects: 'folder.x' }, 'objects'],
    ['objects with an empty ident', { objects: [''] }, 'objects'],
    ['objects over 1000', { objects: Array.from({ length: 1001 }, (_, i) => `f.${i}`) }, 'objects'],
    ['an unknown field', { extra: 1 }, undefined],
  ])('400: %s', async (_name, change, field) => {
    const body = { userrole: 'viewers', acl: 'r----', objects: [a], ...change };
    const r = await batch(body);
    expect(r.status, r.text).toBe(400);
    if (field) {
      expect(r.json.message).toMatch(new RegExp(`: ${field}[.:]`));
      expect(r.json.context.field).toBe(field);
    }
    expect((await state(a)).revisions).toBe(1);
  });

  it('400: an object listed twice, naming it', async () => {
    const r = await batch({ userrole: 'viewers', acl: 'r----', objects: [a, b, a] });
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toContain(`"${a}"`);
    expect(r.json.context).toMatchObject({ field: 'objects', duplicates: [a] });
    expect((await state(a)).revisions).toBe(1);
  });

  it('a body that is not an object → 400', async () => {
    const r = await batch([{ userrole: 'viewers', acl: 'r----', objects: [a] }]);
    expect(r.status, r.text).toBe(400);
  });
});
