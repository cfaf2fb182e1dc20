// `entity` (the organization a project belongs to) defaults to the caller's organization when
// they administer exactly one; otherwise a 400 says what it is and which ids are theirs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';

describe('POST /projects: entity', () => {
  let s: TestServer;
  const create = (body: Record<string, unknown>, as = ADMIN) =>
    s.api('POST', '/projects', { as, body: { id: 'ent', label: 'Entity', ...body } });

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s.close();
  });

  it('left out: the one organization the caller administers', async () => {
    const r = await create({});
    expect(r.status, r.text).toBe(201);
    expect(r.json.project.entity).toBe('default');
  });

  it('several organizations: left out or empty → 400 naming the caller’s ids', async () => {
    await s.engine.orgs.create('acme', 'Acme', 'free');
    await s.engine.orgs.addAdmin('acme', ADMIN);
    for (const body of [{}, { entity: '' }, { entity: 7 }]) {
      const r = await create(body);
      expect(r.status, `${JSON.stringify(body)}: ${r.text}`).toBe(400);
      expect(r.json.message).toContain('entity: the organization id (yours: acme, default)');
      expect(r.json.context.issues[0].path).toBe('entity');
    }
    const chosen = await create({ entity: 'acme' });
    expect(chosen.status, chosen.text).toBe(201);
    expect(chosen.json.project.entity).toBe('acme');
  });

  it('one the caller does not administer → 403 naming theirs; none at all → 403 saying so', async () => {
    const r = await create({ entity: 'nope' });
    expect(r.status, r.text).toBe(403);
    expect(r.json.message).toContain('(yours: acme, default)');
    const stranger = await create({}, 'stranger@example.com');
    expect(stranger.status, stranger.text).toBe(403);
    expect(stranger.json.message).toMatch(/administer no organization.*org admin add/);
  });
});
