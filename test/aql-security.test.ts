// AQL authorization: a member's row-level filter holds through every query shape (compared
// with an admin's answer to the same query with the condition written in WHERE), cannot be
// escaped, and objects a member's roles cannot read do not exist for them — the same 400 as
// a name nobody defined, with no "did you mean" pointing at them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSaved, rowsOf, runQuery, waitForDemo } from './helpers/aql-demo.js';
import {
  ADMIN,
  invite,
  startTestServer,
  type ApiResponse,
  type TestServer,
} from './helpers/server.js';

const CA = 'ca-member@example.com';
const WEST = 'west-member@example.com';
const FILTERS: Record<string, string> = {
  [CA]: '[Origin State] = "CA"',
  [WEST]: '[Origin Region] = "West"',
};

/** Analysts read the secret objects: by project roles or listed in the userrole. */
const ANALYST = 'analyst@example.com';
const VIA_MEMBERS = 'listed-analyst@example.com';
const OUTSIDER = 'outsider@example.com';

interface Shape {
  name: string;
  select: string;
  where?: string;
  tail?: string;
}

/** Query shapes: the member runs select [WHERE where] tail; the admin adds the filter. */
const SHAPES: Shape[] = [
  { name: 'grand total', select: 'SELECT SUM([Distance]), COUNT([Flight]), AVG([Passengers])' },
  { name: 'metric by state', select: 'SELECT [Origin State], SUM([Distance])' },
  { name: 'dimension only (the filtered attribute)', select: 'SELECT [Origin State]' },
  { name: 'dimension only (its dataset)', select: 'SELECT [Origin City], [Origin Region]' },
  { name: 'dimension only (a fact dataset)', select: 'SELECT [Origin], [Carrier]' },
  { name: 'label', select: 'SELECT [Airport Name], COUNT([Flight])' },
  { name: 'label only', select: 'SELECT [Airport Name]' },
  { name: 'identifiers', select: 'SELECT [attr.airports.state], SUM([fact.flights.distance])' },
  { name: 'calendar and carriers', select: 'SELECT [Year], [Carrier Name], SUM([Passengers])' },
  {
    name: 'BY ALL share and total',
    select:
      'SELECT [Origin], SUM([Distance]) / (SELECT SUM([Distance]) BY ALL) AS "Share", (SELECT SUM([Distance]) BY ALL) AS "Total"',
  },
  {
    name: 'BY ALL one dimension',
    select:
      'SELECT [Origin State], [Year], (SELECT SUM([Distance]) BY ALL [Year]), (SELECT COUNT([Flight]) BY ALL)',
  },
  {
    name: 'saved metrics',
    select: 'SELECT [Origin], [Total Distance], [Distance Share], [All Distance], [Avg Delay]',
  },
  { name: 'saved metric with its own WHERE', select: 'SELECT [Long Haul Passengers]' },
  {
    name: 'saved filter',
    select: 'SELECT [Origin Region], SUM([Distance])',
    where: '([West Only] OR [Origin State] IN ("CA", "TX")) AND [Not Cancelled]',
  },
  {
    name: 'HAVING',
    select: 'SELECT [Origin], SUM([Distance])',
    tail: 'HAVING SUM([Distance]) > 0 OR SUM([Distance]) IS NULL',
  },
  {
    name: 'ORDER BY and LIMIT',
    select: 'SELECT [Origin], COUNT([Flight]) AS "Flights"',
    tail: 'ORDER BY "Flights" DESC LIMIT 3 OFFSET 1',
  },
  {
    name: 'sub-select with its own WHERE on the filtered attribute',
    select:
      'SELECT (SELECT SUM([Distance]) WHERE [Origin State] = "TX"), (SELECT SUM([Distance]) WHERE [Origin State] <> "CA")',
  },
  {
    name: 'counting the filtered attribute and its dataset',
    select:
      'SELECT COUNT([Origin State]), COUNT([Airport Code]), MAX([Origin State]), MIN([Origin City])',
  },
  {
    name: 'OR escape',
    select: 'SELECT [Origin State], COUNT([Flight])',
    where: '[Origin State] = "TX" OR 1 = 1 OR [Origin State] IS NULL',
  },
  {
    name: 'NOT escape',
    select: 'SELECT [Origin State], COUNT([Flight])',
    where: 'NOT ([Origin State] = "CA") OR NOT ([Origin Region] = "West")',
  },
  {
    name: 'IN escape by identifier',
    select: 'SELECT [attr.airports.state], COUNT([Flight])',
    where: '[attr.airports.state] IN ("CA", "TX", "NY", "WA") OR [attr.airports.region] <> "x"',
  },
  {
    name: 'quotes in a value',
    select: 'SELECT [Origin State], COUNT([Flight])',
    where: '[Origin State] = "CA"" OR ""1""=""1" OR [Origin State] = \'CA\'\' OR 1=1 --\'',
  },
  {
    name: 'comments',
    select: 'SELECT [Origin State], COUNT([Flight]) -- WHERE 1 = 1\n',
    tail: '/* OR 1 = 1 */',
  },
];

/** The one cell of a one-row, one-column answer. */
async function cell(s: TestServer, as: string, aql: string): Promise<string> {
  const rows = await rowsOf(s, as, aql);
  expect(rows, aql).toHaveLength(1);
  return rows[0]![0]!;
}

const memberText = (q: Shape) =>
  `${q.select}${q.where ? ` WHERE ${q.where}` : ''}${q.tail ? ` ${q.tail}` : ''}`;
const adminText = (q: Shape, filter: string) =>
  `${q.select} WHERE ${q.where ? `(${q.where}) AND ` : ''}(${filter})${q.tail ? ` ${q.tail}` : ''}`;

describe('AQL row-level filters', () => {
  let s: TestServer;
  const allowedStates: Record<string, Set<string>> = {};

  beforeAll(async () => {
    s = await startTestServer({ URSA_DEMO_DATA: 'true' });
    await waitForDemo(s);
    await addSaved(s);
    for (const [email, filter] of Object.entries(FILTERS)) {
      await invite(s, s.demo, email, { filter });
      const rows = await rowsOf(s, ADMIN, `SELECT [Origin State] WHERE ${filter}`);
      allowedStates[email] = new Set(rows.map((r) => r[0]!));
    }
    expect([...allowedStates[CA]!]).toEqual(['CA']);
    expect(allowedStates[WEST]!.size).toBeGreaterThan(1);
  });
  afterAll(() => s?.close());

  for (const member of [CA, WEST]) {
    for (const q of SHAPES) {
      it(`${member.split('-')[0]}: ${q.name} equals the admin's answer with the filter in WHERE`, async () => {
        const mine = await rowsOf(s, member, memberText(q));
        const admins = await rowsOf(s, ADMIN, adminText(q, FILTERS[member]!));
        expect(mine).toEqual(admins);
        // Nothing outside the filter shows as a state, and never more rows than exist.
        if (/^SELECT \[(Origin State|attr\.airports\.state)\]/.test(q.select))
          for (const r of mine)
            expect(allowedStates[member]!.has(r[0]!), `state ${r[0]}`).toBe(true);
        const everything = await rowsOf(s, ADMIN, memberText(q));
        expect(mine.length).toBeLessThanOrEqual(everything.length);
        // And the filter did restrict something (the test is not vacuous).
        if (everything.length) expect(mine, 'the filter changed nothing').not.toEqual(everything);
      });
    }
  }

  it('BY ALL gives the filtered total, and shares add up to 1 within the filter', async () => {
    const rows = await rowsOf(
      s,
      CA,
      'SELECT [Origin], SUM([Distance]) / (SELECT SUM([Distance]) BY ALL), (SELECT SUM([Distance]) BY ALL)',
    );
    const caTotal = await cell(s, ADMIN, 'SELECT SUM([Distance]) WHERE [Origin State] = "CA"');
    const allTotal = await cell(s, ADMIN, 'SELECT SUM([Distance])');
    expect(Number(caTotal)).toBeLessThan(Number(allTotal));
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r[2]).toBe(caTotal);
    expect(rows.reduce((a, r) => a + Number(r[1]), 0)).toBeCloseTo(1, 9);
  });

  it('dimension-only queries show only the allowed values of the filtered attribute', async () => {
    expect(await rowsOf(s, CA, 'SELECT [Origin State]')).toEqual([['CA']]);
    const west = await rowsOf(s, WEST, 'SELECT [Origin Region], [Origin State]');
    expect(new Set(west.map((r) => r[0]))).toEqual(new Set(['West']));
    expect(await rowsOf(s, CA, 'SELECT [Origin State] WHERE [Origin State] <> "CA"')).toEqual([]);
  });

  it('the filtered attribute named by its identifier or a label cannot widen the rows', async () => {
    for (const text of [
      'SELECT [attr.airports.state] WHERE [attr.airports.state] <> "CA"',
      'SELECT [Airport Name] WHERE [Origin State] = "TX"',
      'SELECT COUNT([Flight]) WHERE [attr.airports.state] = "TX"',
    ]) {
      const rows = await rowsOf(s, CA, text);
      expect(
        rows.every((r) => r.every((c) => c === '' || c === '0')),
        text,
      ).toBe(true);
    }
  });

  it('explain shows the member their own filter and plan, and no rows', async () => {
    const r = await s.api('POST', `/projects/${s.demo}/app/aql/explain`, {
      as: CA,
      body: { aql: 'SELECT [Origin State], SUM([Distance])' },
    });
    expect(r.status, r.text).toBe(200);
    const e = r.json.explain;
    expect(e.rowFilter).toBe(FILTERS[CA]);
    expect(e.params).toContain('CA');
    expect(r.json.data).toBeUndefined();
    expect(JSON.stringify(e)).not.toContain('"TX"');
    const a = await s.api('POST', `/projects/${s.demo}/app/aql/explain`, {
      body: { aql: 'SELECT [Origin State], SUM([Distance])' },
    });
    expect(a.json.explain.rowFilter).toBeNull();
    expect(a.json.explain.params).not.toContain('CA');
  });

  it('the same text gives each caller their own answer (cache keyed by the filter)', async () => {
    const text = 'SELECT [Origin State], COUNT([Flight])';
    const admin = await rowsOf(s, ADMIN, text);
    const ca = await rowsOf(s, CA, text);
    const again = await rowsOf(s, ADMIN, text);
    expect(ca).toEqual([['CA', expect.any(String)]]);
    expect(admin.length).toBeGreaterThan(1);
    expect(again).toEqual(admin);
  });

  it('a comment cannot open a way past the filter, and unclosed ones are a 400', async () => {
    const r = await runQuery(s, CA, 'SELECT [Origin State] /* WHERE');
    expect(r.execute.status).toBe(400);
    expect(r.execute.json.context).toMatchObject({ line: 1, column: expect.any(Number) });
  });
});

describe('AQL object access', () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer({ URSA_DEMO_DATA: 'true' });
    await waitForDemo(s);
    await addSaved(s);
    const secret = [{ userrole: 'userrole.analysts', acl: 'r----' }];
    await s.engine.model.upsert(
      s.demo,
      [
        {
          ident: 'userrole.analysts',
          type: 'userrole',
          name: 'Analysts',
          def: { members: [VIA_MEMBERS] },
        },
        {
          ident: 'metric.secret_revenue',
          type: 'metric',
          name: 'Secret Revenue',
          def: { aql: 'SELECT SUM([Passengers]) * 100' },
          acl: secret,
        },
        {
          ident: 'filter.secret',
          type: 'filter',
          name: 'Secret Filter',
          def: { aql: '[Origin State] = "TX"' },
          acl: secret,
        },
      ],
      ADMIN,
    );
    // A loaded fact hidden too: its ACL changed in place.
    const fact = (await s.engine.model.get(s.demo, 'fact.flights.arr_delay'))!;
    await s.engine.model.upsert(
      s.demo,
      [
        {
          ident: fact.ident,
          type: fact.type,
          name: fact.name,
          description: fact.description,
          def: fact.def,
          tags: fact.tags,
          acl: secret,
        },
      ],
      ADMIN,
    );
    await invite(s, s.demo, ANALYST, { roles: ['userrole.analysts'] });
    await invite(s, s.demo, VIA_MEMBERS);
    await invite(s, s.demo, OUTSIDER);
  });
  afterAll(() => s?.close());

  const hidden = [
    { text: 'SELECT [Secret Revenue]', name: 'Secret Revenue' },
    { text: 'SELECT [metric.secret_revenue]', name: 'metric.secret_revenue' },
    { text: 'SELECT [Origin], SUM([Arrival Delay])', name: 'Arrival Delay' },
    { text: 'SELECT AVG([fact.flights.arr_delay])', name: 'fact.flights.arr_delay' },
    { text: 'SELECT COUNT([Flight]) WHERE [Secret Filter]', name: 'Secret Filter' },
    { text: 'SELECT [Origin] HAVING [secret revenue] > 0', name: 'secret revenue' },
  ];

  /** A 400 "unknown object" that names nothing the caller cannot read. */
  function expectUnknown(r: ApiResponse, name: string) {
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toMatch(
      new RegExp(`^unknown object \\[${name.replace(/[.[\]]/g, '\\$&')}\\]`),
    );
    expect(Object.keys(r.json.context).sort()).toEqual(['column', 'found', 'line', 'suggestions']);
    const said = JSON.stringify(r.json).toLowerCase();
    for (const secret of ['secret revenue', 'secret_revenue', 'secret filter', 'filter.secret'])
      if (!name.toLowerCase().includes(secret))
        expect(said, `${name} leaks ${secret}`).not.toContain(secret);
    // The demo's metric [Avg Arrival Delay] is readable by everyone: a fair suggestion.
    for (const s of r.json.context.suggestions as string[])
      expect(s.toLowerCase()).not.toMatch(/secret|^arrival delay|arr_delay/);
  }

  it('a member whose roles cannot read an object gets the 400 of a nonexistent one', async () => {
    for (const h of hidden) {
      const r = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
        as: OUTSIDER,
        body: { aql: h.text },
      });
      expectUnknown(r, h.name);
      const x = await s.api('POST', `/projects/${s.demo}/app/aql/explain`, {
        as: OUTSIDER,
        body: { aql: h.text },
      });
      expectUnknown(x, h.name);
    }
    // A name nobody defined answers the same way.
    const none = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
      as: OUTSIDER,
      body: { aql: 'SELECT [Secret Revenue]' },
    });
    const ghost = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
      as: OUTSIDER,
      body: { aql: 'SELECT [Ghost Revenue]' },
    });
    expect(ghost.status).toBe(none.status);
    expect(Object.keys(ghost.json.context).sort()).toEqual(Object.keys(none.json.context).sort());
  });

  it('"did you mean" points at readable objects only', async () => {
    const typo = 'SELECT [Secret Revenu]';
    const outsider = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
      as: OUTSIDER,
      body: { aql: typo },
    });
    expectUnknown(outsider, 'Secret Revenu');
    const analyst = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
      as: ANALYST,
      body: { aql: typo },
    });
    expect(analyst.status).toBe(400);
    expect(analyst.json.context.suggestions).toContain('Secret Revenue');
    const delay = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
      as: OUTSIDER,
      body: { aql: 'SELECT SUM([Arrival Delai])' },
    });
    expectUnknown(delay, 'Arrival Delai');
  });

  it('members whose roles read the objects use them (project roles or userrole members)', async () => {
    const total = await cell(s, ADMIN, 'SELECT SUM([Passengers]) * 100');
    for (const who of [ANALYST, VIA_MEMBERS]) {
      expect(await rowsOf(s, who, 'SELECT [Secret Revenue]')).toEqual([[total]]);
      expect(await rowsOf(s, who, 'SELECT COUNT([Flight]) WHERE [Secret Filter]')).toHaveLength(1);
    }
  });

  it('what one member compiled is not served to another who cannot read it', async () => {
    // The listed analyst and the outsider hold the same project roles (none): only the
    // userrole's member list tells them apart.
    for (const h of hidden) {
      const ok = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
        as: VIA_MEMBERS,
        body: { aql: h.text },
      });
      expect(ok.status, `${h.text}: ${ok.text}`).toBe(201);
      const r = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
        as: OUTSIDER,
        body: { aql: h.text },
      });
      expectUnknown(r, h.name);
    }
  });

  it('a readable saved metric may use what the member cannot name', async () => {
    await s.engine.model.upsert(
      s.demo,
      [
        {
          ident: 'metric.public_delay',
          type: 'metric',
          name: 'Public Delay',
          def: { aql: 'SELECT AVG([Arrival Delay])' },
        },
      ],
      ADMIN,
    );
    const avg = await cell(s, ADMIN, 'SELECT AVG([Arrival Delay])');
    expect(await rowsOf(s, OUTSIDER, 'SELECT [Public Delay]')).toEqual([[avg]]);
  });
});
