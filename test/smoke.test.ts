import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

describe('first start', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  it('creates the default organization, the admin and a demo project the admin can open', async () => {
    const list = await s.api('GET', '/projects');
    expect(list.status).toBe(200);
    expect(Object.keys(list.json.projects)).toEqual([s.demo]);
    expect(s.demo).toMatch(/^demo-[a-z0-9]{6}$/);
    const details = await s.api('GET', `/projects/${s.demo}`);
    expect(details.status).toBe(200);
    expect(details.json.project).toMatchObject({
      id: s.demo,
      label: 'Demo',
      entity: 'default',
      plan: 'free',
    });
    expect(details.json.project.access.admin).toBe(true);
  });
});
