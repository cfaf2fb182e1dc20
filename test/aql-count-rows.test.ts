// Counting a dataset's rows in AQL — the trap: a dataset without a key could not be counted
// without a trick, and COUNT(*) was refused with an example naming [Order ID], an object of no
// model. COUNT([dataset]) is a measure anchored at that dataset (joins never fan it out, the
// row-level filter applies), saved AQL keeps it across renames, and every example an error
// gives names objects of the caller's own model (or generic placeholders).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, loadDataset } from './helpers/fixtures.js';
import { connectMcp } from './helpers/mcp-client.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';

const STATES = 'state,region\nTX,South\nCA,West\nFL,South\nNY,Northeast\nWA,West\n';
// No primary key; `state` references states (the id of its primary key).
const STRIKES = [
  'state,species,height,day',
  'TX,Gull,10,2024-01-03',
  'CA,Hawk,20,2024-01-03',
  'TX,Goose,5,2024-01-04',
  'FL,Gull,3,2024-01-05',
  'TX,Gull,7,2024-01-05',
  'CA,Gull,1,2024-02-01',
  'NY,Hawk,2,2024-02-01',
  'FL,Hawk,4,2024-02-02',
  'TX,Hawk,9,2024-02-03',
  'CA,Goose,8,2024-02-03',
  'FL,Goose,6,2024-03-01',
  'TX,Duck,1,2024-03-02',
].join('\n');

const SOUTH = 'south@example.com';
const OUTSIDER = 'outsider@example.com';

let s: TestServer;
let p: string;
let empty: string;

async function run(aql: string, as = ADMIN, project = p) {
  const r = await s.api('POST', `/projects/${project}/app/aql/execute`, {
    as,
    body: { aql },
    headers: { Prefer: 'wait=10' },
  });
  return r;
}

async function rows(aql: string, as = ADMIN): Promise<string[][]> {
  const r = await run(aql, as);
  expect(r.status, `${aql}\n${r.text}`).toBe(200);
  const v = r.json.data.values as string;
  return v === '' ? [] : v.split('\n').map((l) => l.split('\t'));
}

async function refused(aql: string, as = ADMIN, project = p) {
  const r = await run(aql, as, project);
  expect(r.status, `${aql}\n${r.text}`).toBe(400);
  return r.json as { message: string; context: { suggestions?: string[] } };
}

/** DuckDB over the loaded tables, written by hand. */
const sql = async (q: string) =>
  (await s.engine.dbs.read(p, async (c) =>
    (await c.runAndReadAll(q)).getRowsJson(),
  )) as unknown[][];

beforeAll(async () => {
  s = await startTestServer();
  p = await createProject(s, 'birds');
  await loadDataset(s, p, 'states', STATES, 'state', [
    ['state', 'A', 'string', 'State'],
    ['region', 'A', 'string', 'Region'],
  ]);
  await loadDataset(s, p, 'strikes', STRIKES, '', [
    ['state', 'A', 'string', 'Strike State'],
    ['species', 'A', 'string', 'Species'],
    ['height', 'F', 'integer', 'Height'],
    ['day', 'A', 'date', 'Strike Day'],
  ]);
  // The outsider reads neither the states' columns nor the height: analysts only.
  const secret = [{ userrole: 'userrole.analysts', acl: 'r----' }];
  const hide = await Promise.all(
    ['attr.states.state', 'attr.states.region', 'fact.strikes.height'].map(async (id) => {
      const o = (await s.engine.model.get(p, id))!;
      return { ident: o.ident, type: o.type, name: o.name, def: o.def, acl: secret };
    }),
  );
  await s.engine.model.upsert(
    p,
    [
      { ident: 'userrole.analysts', type: 'userrole', name: 'Analysts', def: { members: [] } },
      ...hide,
    ],
    ADMIN,
  );
  await invite(s, p, SOUTH, { filter: '[Region] = "South"', roles: ['userrole.analysts'] });
  await invite(s, p, OUTSIDER);
  empty = await createProject(s, 'nothing');
});
afterAll(() => s?.close());

describe('COUNT([dataset])', () => {
  it('counts the rows of a dataset without a key, by name in any case or identifier', async () => {
    const [[n]] = (await sql('SELECT count(*) FROM ds_strikes')) as [[unknown]];
    expect(
      await rows('SELECT COUNT([strikes]), COUNT([Strikes]), COUNT([dataset.strikes])'),
    ).toEqual([[String(n), String(n), String(n)]]);
  });

  it('is anchored at its dataset: no fan-out next to the "one" side, no rows lost', async () => {
    const got = await rows(
      'SELECT [Region], COUNT([states]) AS "States", COUNT([strikes]) AS "Strikes"',
    );
    const want = await sql(`
      SELECT r.region, r.states, coalesce(k.strikes, 0)
      FROM (SELECT region, count(*) AS states FROM ds_states GROUP BY region) r
      LEFT JOIN (SELECT s.region, count(*) AS strikes
                 FROM ds_strikes k LEFT JOIN ds_states s ON s.state = k.state
                 GROUP BY s.region) k ON k.region = r.region
      ORDER BY r.region`);
    expect(got).toEqual(want.map((r) => r.map(String)));
    // Counting the "one" side by an attribute of the "many" side is refused, never multiplied.
    expect((await refused('SELECT [Species], COUNT([states])')).message).toMatch(
      /cannot be broken down by \[Species\]: no reference path from dataset states to dataset strikes/,
    );
  });

  it('works in shares (BY ALL), metric WHERE and with a counting context', async () => {
    const got = await rows(
      'SELECT [Region], COUNT([strikes]) / (SELECT COUNT([strikes]) BY ALL) AS "Share", (SELECT COUNT([strikes]) WHERE [Species] = "Gull") AS "Gulls", COUNT([Species], [strikes]) AS "Species"',
    );
    const want = await sql(`
      SELECT s.region, count(*) / sum(count(*)) OVER (), count(*) FILTER (WHERE k.species = 'Gull'),
             count(DISTINCT k.species)
      FROM ds_strikes k LEFT JOIN ds_states s ON s.state = k.state GROUP BY s.region ORDER BY 1`);
    expect(got.map((r) => [r[0], Number(r[1]).toFixed(6), r[2], r[3]])).toEqual(
      want.map((r) => [r[0], Number(r[1]).toFixed(6), String(r[2]), String(r[3])]),
    );
  });

  it("applies the member's row-level filter wherever the dataset reaches it", async () => {
    const [[strikes, states]] = (await sql(`
      SELECT (SELECT count(*) FROM ds_strikes k JOIN ds_states s USING (state) WHERE s.region = 'South'),
             (SELECT count(*) FROM ds_states WHERE region = 'South')`)) as [[unknown, unknown]];
    expect(await rows('SELECT COUNT([strikes]), COUNT([states])', SOUTH)).toEqual([
      [String(strikes), String(states)],
    ]);
  });

  it('is not there for a member who reads none of its columns', async () => {
    const r = await refused('SELECT COUNT([states])', OUTSIDER);
    expect(r.message).toMatch(/^unknown object \[states\]/);
  });

  it('outside COUNT a dataset is explained, and an object with its title comes first', async () => {
    const r = await refused('SELECT [strikes]');
    expect(r.message).toMatch(/^\[strikes\] is a dataset: COUNT\(\[strikes\]\) counts its rows/);
    expect(r.context.suggestions).toEqual(['COUNT([strikes])']);
    expect((await refused('SELECT COUNT([strikes], [Species])')).message).toMatch(
      /counts the rows of dataset strikes; it takes no second argument/,
    );
  });

  it('saved AQL keeps it by identifier, and a metric with its title leaves COUNT to it', async () => {
    const created = await s.api('POST', `/projects/${p}/pmd/obj`, {
      body: {
        ident: 'metric.strike_count',
        type: 'metric',
        name: 'Strike Count',
        def: { aql: 'SELECT COUNT([strikes])' },
      },
    });
    expect(created.status, created.text).toBe(201);
    expect((await s.engine.model.get(p, 'metric.strike_count'))!.def.aql).toBe(
      'SELECT COUNT([dataset.strikes])',
    );
    const shown = await s.api('GET', `/projects/${p}/pmd/obj/metric.strike_count`);
    expect(shown.json.object.def.aql).toBe('SELECT COUNT([strikes])');
    const checks = await s.api('GET', `/projects/${p}/pmd/check/obj`);
    expect(checks.json.problems, checks.text).toEqual([]);
    const [[n]] = (await sql('SELECT count(*) FROM ds_strikes')) as [[unknown]];
    expect(await rows('SELECT [Strike Count]')).toEqual([[String(n)]]);

    // A metric titled "Strikes" takes the name — but not in COUNT, which cannot count a
    // metric: there [strikes] stays the dataset, in queries and in the saved metric.
    const metric = await s.api('POST', `/projects/${p}/pmd/obj`, {
      body: {
        ident: 'metric.strikes',
        type: 'metric',
        name: 'Strikes',
        def: { aql: 'SELECT SUM([Height])' },
      },
    });
    expect(metric.status, metric.text).toBe(201);
    const [[height]] = (await sql('SELECT sum(height) FROM ds_strikes')) as [[unknown]];
    expect(await rows('SELECT [Strike Count], COUNT([strikes]), [strikes]')).toEqual([
      [String(n), String(n), String(height)],
    ]);
    expect(
      (await s.api('GET', `/projects/${p}/pmd/obj/metric.strike_count`)).json.object.def.aql,
    ).toBe('SELECT COUNT([strikes])');
    expect((await refused('SELECT SUM([strikes])')).message).toBe(
      '[Strikes] is a metric; it cannot be inside an aggregation',
    );
    expect((await s.api('DELETE', `/projects/${p}/pmd/obj/metric.strikes`)).status).toBe(204);
  });

  it('dataset.<name> identifiers are the loads’ own: the model API refuses them', async () => {
    const r = await s.api('POST', `/projects/${p}/pmd/obj`, {
      body: {
        ident: 'dataset.strikes',
        type: 'metric',
        name: 'X',
        def: { aql: 'SELECT SUM([Height])' },
      },
    });
    expect(r.status, r.text).toBe(400);
    expect(r.json.context.field).toBe('ident');
  });
});

// ---- every example in an error comes from the caller's model ----

/** Names in brackets that a reader may be shown: their objects, datasets, placeholders. */
async function readable(as: string, project = p): Promise<Set<string>> {
  const a = await s.engine.actor({ email: as }, project);
  const scope = await s.engine.objects.scope(a);
  const names = new Set<string>();
  for (const o of scope.rows()) {
    names.add(o.ident.toLowerCase());
    names.add(o.name.toLowerCase());
  }
  for (const d of scope.visibleDatasets()) names.add(d).add(`dataset.${d}`);
  return names;
}

/** The optional parts of a syntax in brackets: `[WHERE condition]`, `[LIMIT n …]`. */
const SYNTAX = /^(WHERE|HAVING|QUALIFY|ORDER BY|LIMIT|OFFSET|BY ALL|AS|ELSE|WHEN|NOT)\b/;

/** Every `[x]` of a text that is neither a placeholder `[<…>]` nor readable, nor in the query. */
function foreign(text: string, allowed: Set<string>, query: string): string[] {
  return [...text.matchAll(/\[([^\]<>\n]+)\]/g)]
    .map((m) => m[1]!.trim())
    .filter((n) => !SYNTAX.test(n) && !allowed.has(n.toLowerCase()) && !query.includes(`[${n}]`));
}

const BAD = [
  'SELECT [Strike State], COUNT(*)',
  'SELECT *',
  'SELECT YEAR([Species]), COUNT([strikes])',
  'SELECT [Species], RANK()',
  'SELECT [Species], LAG(COUNT([strikes]), -1) OVER (ORDER BY [Species])',
  'SELECT [Species], ROW_NUMBER() OVER ()',
  'SELECT DATE_TRUNC("fortnight", [Strike Day]), COUNT([strikes])',
  'SELECT COUNT([Species], 1)',
  'SELECT 1',
  'SELECT SUM(1)',
  'SELECT COUNT(CASE WHEN [Species] = "Gull" THEN 1 END)',
  'SELECT [Species], SUM(SUM([Height]))',
  'SELECT [Species], COUNT([strikes]) HAVING RANK() OVER (ORDER BY COUNT([strikes])) < 3',
  'SELECT [Species], COUNT([strikes]) QUALIFY COUNT([strikes]) > 1',
  'SELECT [Species], (SELECT COUNT([strikes]) BY ALL 1)',
  'SELECT PERCENTILE([Height], 2)',
  'SELECT ROUND(SUM([Height]), 1.5)',
  'SELECT [Species], COUNT(DISTINCT [Species])',
  'SELECT [strikes]',
  ' ',
];

describe('examples in errors come from the caller’s model', () => {
  it('name only objects and datasets the caller reads, or placeholders', async () => {
    for (const as of [ADMIN, OUTSIDER]) {
      const allowed = await readable(as);
      for (const aql of BAD) {
        const r = await refused(aql, as);
        const said = [r.message, ...(r.context.suggestions ?? [])].join('\n');
        expect(foreign(said, allowed, aql), `${as}: ${aql}\n${r.message}`).toEqual([]);
      }
    }
  });

  it('hidden objects are never the example, and an empty model gets placeholders', async () => {
    const outsider = await refused('SELECT [Strike State], SUM(1)', OUTSIDER);
    expect(outsider.message).toContain('SUM([<fact>])');
    const admin = await refused('SELECT [Strike State], SUM(1)');
    expect(admin.message).toContain('SUM([Height])');
    const none = await refused('SELECT COUNT(*)', ADMIN, empty);
    expect(none.message).toContain('COUNT([<dataset>])');
    expect(foreign(none.message, new Set(), '')).toEqual([]);
  });

  it('COUNT(*) suggests counting a dataset of the model, and the suggestion runs', async () => {
    const aql = 'SELECT [Species], COUNT(*)';
    const r = await refused(aql);
    expect(r.message).toMatch(
      /there is no COUNT\(\*\) in AQL: count the rows of a dataset with COUNT\(\[<dataset>\]\), e\.g\. COUNT\(\[strikes\]\)/,
    );
    const fix = r.context.suggestions![0]!;
    expect(fix).toBe('COUNT([strikes])');
    const fixed = await run(aql.replace('COUNT(*)', fix));
    expect(fixed.status, fixed.text).toBe(200);
  });

  it('the rules after an MCP error name no other model either', async () => {
    const mcp: Client = await connectMcp(s, ADMIN, 'count-rows');
    try {
      const allowed = await readable(ADMIN);
      for (const aql of ['SELECT [Species], COUNT(*)', 'SELECT [Speciez]']) {
        const r = (await mcp.callTool({
          name: 'run_aql',
          arguments: { project: p, aql },
        })) as CallToolResult;
        expect(r.isError).toBe(true);
        const text = r.content.map((c) => (c as { text?: string }).text ?? '').join('\n');
        expect(text).toContain('AQL in brief');
        expect(foreign(text, allowed, aql), text).toEqual([]);
      }
    } finally {
      await mcp.close();
    }
  });
});
