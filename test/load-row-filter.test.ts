// Nobody widens their own row-level filter by loading data: a member whose filter reads a
// dataset (names its columns, or restricts another dataset through it) may not load it, or
// they would pick the rows it lets them see (an EU-only MD Admin upserting a US person as EU
// sees that person's sales). One rule for every load: a file load or a flow run → 403 before
// any job; checked again when a run commits (the run ends ERROR, nothing written); a trigger's
// run is checked as the member it acts as (its last editor).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firingsOf } from '../src/engine/flows/triggers/claims.js';
import { createProject, loadDataset, loadPeople, waitFor } from './helpers/fixtures.js';
import { GatedApi } from './helpers/gated-api.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

const MD_EU = 'rowload-md-eu@example.com';
const MD_LATE = 'rowload-md-late@example.com';

let s: TestServer;
let p: string;

/** What `as` sees: each person with the sum of their sales. */
const seen = async (as: string) => {
  const r = await s.api('POST', `/projects/${p}/app/aql/execute`, {
    as,
    body: { aql: 'SELECT [Person], [Region], SUM([Sale Amount])' },
    headers: { prefer: 'wait=20' },
  });
  expect(r.status, r.text).toBe(200);
  return r.json.data.values as string;
};
const ALL = '1\tEU\t5\n2\tUS\t7';
const file = (path: string, csv: string) =>
  rawStorage(s.engine).writeFile(p, path, Buffer.from(csv));
const obj = async (body: unknown, as = ADMIN) => {
  const r = await s.api('POST', `/projects/${p}/pmd/obj`, { as, body });
  expect(r.status, r.text).toBe(201);
};

beforeAll(async () => {
  s = await startTestServer({
    URSA_DEFAULT_PLAN: 'enterprise',
    URSA_TRIGGER_TICK_MS: '100',
    URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1',
  });
  p = await createProject(s, 'rowload', 'Row filter loads');
  await loadPeople(s, p); // 1 EU, 2 US
  // sales references people by person_id: the EU filter restricts it through people.
  await loadDataset(s, p, 'sales', 'sale_id,person_id,amount\n1,1,5\n2,2,7\n', 'sale_id', [
    ['sale_id', 'A', 'integer', 'Sale'],
    ['person_id', 'A', 'integer', 'Sale Person'],
    ['amount', 'F', 'integer', 'Sale Amount'],
  ]);
  await invite(s, p, MD_EU, { mdadmin: true, filter: '[Region] = "EU"' });
  // Person 2 moved to the EU: what the EU MD Admin would load.
  await file('/people-eu.csv', 'person_id,region,dept\n2,EU,IT\n');
  await file('/notes.csv', 'note_id,text\n1,hello\n');
  expect(await seen(MD_EU)).toBe('1\tEU\t5');
});
afterAll(async () => {
  await s?.close();
});

describe('a file load', () => {
  const load = (name: string, source: string, mode: string, as = MD_EU) =>
    s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
      as,
      body: { type: 'cluster', clusters: { [name]: { source_type: 'webdav', source, mode } } },
    });

  it('into a dataset the loader’s own filter reads: 403 naming it, in either mode; nothing runs', async () => {
    for (const mode of ['incremental', 'full']) {
      const r = await load('people', '/people-eu.csv', mode);
      expect(r.status, r.text).toBe(403);
      expect(r.json).toMatchObject({
        statusCode: 403,
        context: { field: 'filter', cluster: 'people', datasets: ['people'] },
      });
      expect(r.json.message).toMatch(
        /^cluster "people": your own row-level filter reads this dataset; .*nobody changes their own rights/,
      );
    }
    expect(await seen(MD_EU)).toBe('1\tEU\t5');
    expect(await seen(ADMIN)).toBe(ALL);
  });

  it('into a dataset it does not read: loads', async () => {
    const r = await load('notes', '/notes.csv', 'full');
    expect(r.status, r.text).toBe(202);
    const job = await s.engine.jobs.waitFor(r.json.link[0].id);
    expect(job.status, job.message).toBe('OK');
  });
});

describe('a flow output', () => {
  const widen = {
    boxes: [
      { id: 'src', type: 'input.storage', path: '/people-eu.csv' },
      {
        id: 'out',
        type: 'output.dataset',
        dataset: 'people',
        mode: 'incremental',
        primarykey: 'person_id',
      },
      { id: 'copy', type: 'output.storage', path: '/out/widen.csv', format: 'csv' },
    ],
    edges: [
      { from: 'src', to: 'out' },
      { from: 'src', to: 'copy' },
    ],
  };
  const refused =
    /^box "out" \(dataset\): dataset "people": your own row-level filter reads this dataset/;
  const nothingWritten = async () => {
    expect(await seen(ADMIN)).toBe(ALL);
    expect(await rawStorage(s.engine).stat(p, '/out/widen.csv')).toBeNull();
  };

  beforeAll(async () => {
    await obj({ ident: 'flow.widen', type: 'flow', name: 'Widen', def: widen });
    await obj({
      ident: 'flow.first',
      type: 'flow',
      name: 'First',
      def: {
        boxes: [
          { id: 'src', type: 'input.storage', path: '/notes.csv' },
          { id: 'out', type: 'output.storage', path: '/out/first.csv', format: 'csv' },
        ],
        edges: [{ from: 'src', to: 'out' }],
      },
    });
  });

  const startRefused = /^cluster "people": your own row-level filter reads this dataset; /;

  it('started by a member whose filter reads the dataset: 403 naming it; nothing runs', async () => {
    const r = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
      as: MD_EU,
      body: { type: 'flow', id: 'flow.widen' },
    });
    expect(r.status, r.text).toBe(403);
    expect(r.json.message).toMatch(startRefused);
    expect(r.json.context).toMatchObject({ field: 'filter', cluster: 'people' });
    await nothingWritten();
    expect(await seen(MD_EU)).toBe('1\tEU\t5');
  });

  it('a filter that comes to read it while the run runs: ERROR at commit, nothing written', async () => {
    const api = new GatedApi([{ person_id: 2, region: 'EU', dept: 'IT' }]);
    await api.start();
    try {
      await obj({
        ident: 'flow.late',
        type: 'flow',
        name: 'Late',
        def: {
          boxes: [
            { id: 'src', type: 'input.http', url: `${api.url}/slow` },
            { ...widen.boxes[1], id: 'out' },
            { id: 'copy', type: 'output.storage', path: '/out/late.csv', format: 'csv' },
          ],
          edges: [
            { from: 'src', to: 'out' },
            { from: 'src', to: 'copy' },
          ],
        },
      });
      await invite(s, p, MD_LATE, { mdadmin: true });
      const r = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
        as: MD_LATE,
        body: { type: 'flow', id: 'flow.late' },
      });
      expect(r.status, r.text).toBe(201);
      await waitFor(() => api.holding || undefined, 10_000);
      const put = await s.api('PUT', `/projects/${p}/users/${MD_LATE}`, {
        body: { filter: '[Region] = "EU"' },
      });
      expect(put.status, put.text).toBe(200);
      api.release();
      const job = await s.engine.jobs.waitFor(r.json.link[0].id, 30_000);
      expect(job.status).toBe('ERROR');
      expect(job.message).toMatch(refused);
      await nothingWritten();
      expect(await rawStorage(s.engine).stat(p, '/out/late.csv')).toBeNull();
    } finally {
      await api.stop();
    }
  });

  it('started by a trigger: checked as the member it runs as, its last editor', async () => {
    const trigger = {
      type: 'flowSequence',
      flow: 'flow.widen',
      after: 'flow.first',
      enabled: true,
    };
    await obj({ ident: 'trigger.widen', type: 'trigger', name: 'Widen', def: trigger }, MD_EU);
    const first = async () => {
      const r = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
        body: { type: 'flow', id: 'flow.first' },
      });
      expect(r.status, r.text).toBe(201);
      expect((await s.engine.jobs.waitFor(r.json.link[0].id, 30_000)).status).toBe('OK');
      const slot = `after:${r.json.link[0].id}`;
      const f = await waitFor(
        async () =>
          (await firingsOf(s.engine.db, p, 'trigger.widen')).find(
            (x) => x.slot === slot && x.outcome !== 'pending',
          ),
        10_000,
      );
      return f;
    };
    // Run as MD_EU, the trigger's last editor: refused when it would start, a failed firing.
    const asEu = await first();
    expect(asEu.outcome).toBe('failed');
    expect(asEu.message).toMatch(startRefused);
    await nothingWritten();

    // Last edited by an Admin without a filter: the same run loads (the flow itself is fine).
    const put = await s.api('PUT', `/projects/${p}/pmd/obj/trigger.widen`, {
      body: { name: 'Widen, by the Admin', def: trigger },
    });
    expect(put.status, put.text).toBe(200);
    const fired = await first();
    expect(fired.outcome, fired.message ?? '').toBe('started');
    const asAdmin = await s.engine.jobs.waitFor(fired.jobId!, 30_000);
    expect(asAdmin.createdBy).toBe(ADMIN);
    expect(asAdmin.status, asAdmin.message).toBe('OK');
    expect(await seen(ADMIN)).toBe('1\tEU\t5\n2\tEU\t7');
    expect(await rawStorage(s.engine).stat(p, '/out/widen.csv')).toMatchObject({ type: 'file' });
  });
});
