// Every example of docs/aql.md on PostgreSQL (issue 22, item 3): the demo's data copied into a
// throwaway PostgreSQL and mapped as a warehouse project, each ```aql block run there and on the
// embedded demo project, the answers compared (same titles, same values; numbers to 1e-9
// relative, since sums of floating point numbers depend on their order; rows as a set where
// the example has no ORDER BY, since the engines order ties and text differently). Every
// ```aql-error block is refused on PostgreSQL as on DuckDB, with the same message: a 400
// before any SQL runs, never a database error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_METRICS } from '../src/engine/data/demo/load-demo.js';
import { waitForDemo } from './helpers/aql-demo.js';
import { errors, firstLine, queries, setup } from './helpers/aql-docs.js';
import { demoWarehouseProject } from './helpers/demo-warehouse.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { startWarehouse, type TestWarehouse } from './helpers/warehouse.js';

let s: TestServer;
let w: TestWarehouse;
let pg: string;

interface Answer {
  status: number;
  titles: string[];
  rows: string[][];
  message?: string;
}

async function answer(project: string, aql: string): Promise<Answer> {
  const r = await s.api('POST', `/projects/${project}/app/aql/execute`, {
    body: { aql },
    headers: { prefer: 'wait=30' },
  });
  if (r.status !== 200) return { status: r.status, titles: [], rows: [], message: r.json?.message };
  const values = r.json.data.values as string;
  return {
    status: 200,
    titles: (r.json.data.visual.column as { title: string }[]).map((c) => c.title),
    rows: values === '' ? [] : values.split('\n').map((row) => row.split('\t')),
  };
}

const NUMBER = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

/** A cell as compared: numbers rounded to 9 significant digits, text as it is. */
const canon = (cell: string) =>
  NUMBER.test(cell) ? Number(Number(cell).toPrecision(9)).toString() : cell;

const ordered = (aql: string) => /\bORDER\s+BY\b/i.test(aql);

beforeAll(async () => {
  w = await startWarehouse();
  s = await startTestServer({
    URSA_DEMO_DATA: 'true',
    URSA_DEFAULT_PLAN: 'enterprise',
    URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1',
    URSA_WAREHOUSE_CACHE_SECONDS: '0',
  });
  await waitForDemo(s, 90_000);
  pg = await demoWarehouseProject(s, w);
  const metrics = await s.api('POST', `/projects/${pg}/pmd/obj`, { body: DEMO_METRICS });
  expect(metrics.status, metrics.text).toBe(201);
  for (const objects of setup)
    for (const project of [s.demo, pg]) {
      const r = await s.api('POST', `/projects/${project}/pmd/obj`, { body: objects });
      expect(r.status, r.text).toBe(201);
    }
}, 180_000);
afterAll(async () => {
  await s?.close();
  await w?.stop();
});

describe('docs/aql.md on a warehouse project (PostgreSQL)', () => {
  it('holds the demo data: the same rows in every dataset', async () => {
    for (const aql of [
      'SELECT COUNT([flights]), COUNT([airports]), COUNT([carriers]), COUNT([calendar])',
      'SELECT SUM([Distance]), SUM([Passengers]), AVG([Departure Delay])',
    ]) {
      const [duck, post] = [await answer(s.demo, aql), await answer(pg, aql)];
      expect(post.status, post.message).toBe(200);
      expect(post.rows.map((r) => r.map(canon))).toEqual(duck.rows.map((r) => r.map(canon)));
    }
    const ex = await s.api('POST', `/projects/${pg}/app/aql/explain`, {
      body: { aql: 'SELECT COUNT([Flight])' },
    });
    expect(JSON.stringify(ex.json)).toContain('\\"demo\\".\\"flights\\"');
  });

  it.each(queries.map((b) => [firstLine(b), b] as const))(
    'answers %s as DuckDB does',
    async (_, b) => {
      const [duck, post] = await Promise.all([answer(s.demo, b.text), answer(pg, b.text)]);
      expect(duck.status, duck.message).toBe(200);
      expect(post.status, post.message).toBe(200);
      expect(post.titles).toEqual(duck.titles);
      const rows = (a: Answer) => a.rows.map((r) => r.map(canon));
      const sorted = (rs: string[][]) =>
        rs.map((r) => JSON.stringify(r)).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
      if (ordered(b.text)) expect(rows(post)).toEqual(rows(duck));
      else expect(sorted(rows(post))).toEqual(sorted(rows(duck)));
    },
  );

  it.each(errors.map((b) => [firstLine(b), b] as const))(
    'refuses %s with the same 400',
    async (_, b) => {
      const expected = /^-- error: (.*)$/m.exec(b.text)![1]!.trim();
      const r = await s.api('POST', `/projects/${pg}/app/aql/execute`, { body: { aql: b.text } });
      expect(r.status, r.text).toBe(400);
      expect(r.json.message).toContain(expected);
      expect(r.json.context).toMatchObject({ line: expect.any(Number) });
    },
  );
});
