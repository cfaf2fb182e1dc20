// References between datasets made from loads: declared, implicit by a shared key id, and
// none when a key id is shared by two datasets (linking to either would be a guess).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

describe('references from loads', () => {
  let s: TestServer;
  const load = async (cluster: string, csv: string) => {
    await rawStorage(s.engine).writeFile(s.demo, `/${cluster}.csv`, Buffer.from(csv));
    const r = await s.api('POST', `/projects/${s.demo}/kodiak/transform/execute`, {
      body: {
        type: 'cluster',
        clusters: { [cluster]: { source_type: 'webdav', source: `/${cluster}.csv` } },
      },
    });
    expect(r.status, r.text).toBe(202);
    const job = await s.engine.jobs.waitFor(r.json.link[0].id);
    expect(job.status, job.message).toBe('OK');
  };
  const ref = async (ident: string) =>
    ((await s.engine.model.get(s.demo, ident))?.def as { reference?: unknown }).reference;

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  it('links a column to the one dataset whose primary key has its id', async () => {
    await load('carriers', 'carrier_code,carrier_name\nAA,American\nDL,Delta\n');
    await load('flights', 'flight_id,carrier_code,distance\n1,AA,100\n2,DL,200\n');
    expect(await ref('attr.flights.carrier_code')).toEqual({
      dataset: 'carriers',
      attribute: 'attr.carriers.carrier_code',
    });
    // A dataset's own key never references another dataset.
    expect(await ref('attr.carriers.carrier_code')).toBeUndefined();
  });

  it('makes no implicit reference when two datasets share that key id', async () => {
    await load('airlines', 'carrier_code,alliance\nAA,oneworld\nDL,SkyTeam\n');
    expect(await ref('attr.flights.carrier_code')).toBeUndefined();
  });

  it('keeps a title renamed through the model unless the load renames the column itself', async () => {
    const o = (await s.engine.model.get(s.demo, 'label.carriers.carrier_name'))!;
    await s.engine.model.upsert(
      s.demo,
      [{ ident: o.ident, type: o.type, name: 'Airline', def: o.def }],
      'admin@example.com',
    );
    await load('carriers', 'carrier_code,carrier_name\nAA,American\nDL,Delta\nUA,United\n');
    expect((await s.engine.model.get(s.demo, 'label.carriers.carrier_name'))?.name).toBe('Airline');
    // A new label in the load's prescription is the newer word on the title.
    const g = await s.api(
      'GET',
      `/projects/${s.demo}/data/guessupload/${Buffer.from('carriers.csv|/').toString('base64url')}`,
    );
    const prescription = g.json.prescription;
    prescription.columns[1].label = 'Carrier Full Name';
    expect(
      (
        await s.api(
          'PUT',
          `/projects/${s.demo}/data/guessupload/${Buffer.from('carriers.csv|/').toString('base64url')}`,
          { body: prescription },
        )
      ).status,
    ).toBe(200);
    await load('carriers', 'carrier_code,carrier_name\nAA,American\nDL,Delta\nUA,United\n');
    const label = (await s.engine.model.all(s.demo)).find((x) =>
      x.ident.endsWith('carriers.carrier_name'),
    )!;
    expect(label.name).toBe('Carrier Full Name');
  });
});
