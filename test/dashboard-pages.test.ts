// A dashboard as the pages without the app show it (a public share, the dashboard's own HTML
// page), over real HTTP on the demo flights: text items written in Markdown and drawn safely
// (no markup, script or javascript: address of the text ever active), and the filter form
// as a browser submits it: several values of one filter picked from the values offered, each
// its own field, reaching the engine as several values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sitePageHtml } from '../src/web/report-pages.js';
import { rowsOf } from './helpers/aql-demo.js';
import { setUpReports } from './helpers/reports-fixture.js';
import { ADMIN, startTestServer, type ApiResponse, type TestServer } from './helpers/server.js';

const DASH = 'dashboard.pages';
const REGION = 'attr.airports.region';
const TEXT = `## Where the miles go
Read **the notes** at [our wiki](https://wiki.example.com/miles?a=1&b=2) or
[write to us](mailto:ops@example.com). [Not this](javascript:alert(1)), [nor this](data:text/html,x).

- great-circle distances
- <script>alert("text")</script> stays text
<img src=x onerror="alert(1)">`;

let s: TestServer;
let url: string;

/** GET of a page (a public share's without credentials). */
const open = (path: string, as: string | null = null): Promise<ApiResponse> =>
  s.api('GET', path.startsWith('/share/') ? `${s.url}${path}` : path, { as, accept: 'text/html' });

/** The KPI's value as JSON answers it for `query`. */
async function kpi(path: string, query: string, as: string | null): Promise<unknown> {
  const r = await s.api(
    'GET',
    `${path.startsWith('/share/') ? s.url : ''}${path}${query}${query ? '&' : '?'}format=json`,
    { as, accept: '*/*' },
  );
  expect(r.status, r.text).toBe(200);
  return (r.json.items as { id: string; kpi?: { value: unknown } }[]).find((i) => i.id === 'kpi')!
    .kpi!.value;
}

/**
 * The query a browser sends for the page's filter form: each named input's value (a check box
 * only when checked, and as `check` says when given), each select's chosen option.
 */
function formQuery(page: string, check?: Record<string, string[]>): string {
  const form = /<form class="filters"[^>]*>(.*?)<\/form>/s.exec(page);
  expect(form, page).not.toBeNull();
  const attr = (tag: string, name: string) =>
    new RegExp(`\\s${name}="([^"]*)"`)
      .exec(tag)?.[1]
      ?.replace(/&amp;/g, '&')
      .replace(/&quot;/g, '"');
  const fields: [string, string][] = [];
  for (const m of form![1]!.matchAll(/<input[^>]*>|<select[^>]*>.*?<\/select>/gs)) {
    const tag = m[0];
    const name = attr(tag, 'name');
    if (!name) continue;
    if (tag.startsWith('<select')) {
      const chosen =
        /<option value="([^"]*)" selected>/.exec(tag) ?? /<option value="([^"]*)"/.exec(tag);
      fields.push([name, chosen?.[1] ?? '']);
      continue;
    }
    const value = attr(tag, 'value') ?? '';
    if (/type="checkbox"/.test(tag)) {
      const key = /^filter\[(.+)\]$/.exec(name)?.[1] ?? name;
      const on = check?.[key] ? check[key].includes(value) : /\schecked(\s|>)/.test(tag);
      if (on) fields.push([name, value]);
    } else fields.push([name, value]);
  }
  return `?${new URLSearchParams(fields).toString()}`;
}

beforeAll(async () => {
  s = await startTestServer({ URSA_DEMO_DATA: 'true' });
  await setUpReports(s);
  await s.engine.model.upsert(
    s.demo,
    [
      {
        ident: DASH,
        type: 'dashboard',
        name: 'Pages',
        def: {
          items: [
            { id: 'notes', text: TEXT },
            { id: 'kpi', report: 'report.kpi_miles' },
            { id: 'region', report: 'report.by_region' },
          ],
          layout: [
            { item: 'notes', x: 0, y: 0, w: 12, h: 3 },
            { item: 'kpi', x: 0, y: 3, w: 4, h: 2 },
            { item: 'region', x: 4, y: 3, w: 8, h: 5 },
          ],
          filters: [{ attribute: REGION, values: ['West', 'Midwest'] }],
        },
      },
    ],
    ADMIN,
  );
  const on = await s.api('PUT', `/projects/${s.demo}`, { body: { dashboardEmbedding: true } });
  expect(on.status, on.text).toBe(200);
  const r = await s.api('POST', `/projects/${s.demo}/pmd/share`, {
    body: { type: 'public', object: DASH },
  });
  expect(r.status, r.text).toBe(201);
  url = new URL(r.json.share.url).pathname;
}, 180_000);

afterAll(async () => {
  await s?.close();
});

describe('text items', () => {
  for (const where of ['the public share', 'the dashboard’s HTML page'])
    it(`are Markdown on ${where}: headings, emphasis, lists, safe links; nothing of the text active`, async () => {
      const path =
        where === 'the public share' ? url : `/projects/${s.demo}/app/dashboards/${DASH}`;
      const r = await open(path, where === 'the public share' ? null : ADMIN);
      expect(r.status, r.text).toBe(200);
      const card = /<section class="card text[^"]*">(.*?)<\/section>/s.exec(r.text)?.[1] ?? '';
      expect(card).toContain('<h3>Where the miles go</h3>');
      expect(card).toContain('<strong>the notes</strong>');
      expect(card).toContain(
        '<a href="https://wiki.example.com/miles?a=1&amp;b=2" target="_blank" rel="noopener noreferrer">our wiki</a>',
      );
      expect(card).toContain(
        '<a href="mailto:ops@example.com" target="_blank" rel="noopener noreferrer">write to us</a>',
      );
      expect(card).toContain('<li>great-circle distances</li>');
      // Other addresses are their text only; markup in the text is text.
      expect(card).toContain('Not this, nor this.');
      expect(card).not.toMatch(/javascript:|data:text/);
      expect(card).toContain('&lt;script&gt;alert(&quot;text&quot;)&lt;/script&gt; stays text');
      expect(card).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;');
      expect(r.text).not.toMatch(/<script>alert|<img src=x/);
    });
});

describe('a filter with several values', () => {
  for (const where of ['the public share', 'the dashboard’s HTML page'])
    it(`on ${where}: the form keeps them, and values picked are applied as several`, async () => {
      const share = where === 'the public share';
      const path = share ? url : `/projects/${s.demo}/app/dashboards/${DASH}`;
      const as = share ? null : ADMIN;
      const app = `/projects/${s.demo}/app/dashboards/${DASH}`;
      const both = await kpi(app, `?filter=${REGION}:West&filter=${REGION}:Midwest`, ADMIN);
      const west = await kpi(app, `?filter=${REGION}:West`, ADMIN);
      const all = await kpi(app, `?filter=${REGION}:`, ADMIN);
      expect(new Set([both, west, all]).size).toBe(3);

      const page = await open(path, as);
      expect(page.status, page.text).toBe(200);
      // Sent as it is, the form keeps the dashboard's two values (it once sent "all").
      const again = await open(`${path}${formQuery(page.text)}`, as);
      expect(await kpi(path, formQuery(page.text), as)).toBe(both);
      expect(again.text).not.toContain('No rows.');
      // Picked from the offered values, with their counts: several values are several.
      expect(page.text).toMatch(
        /<input type="checkbox" name="filter\[attr\.airports\.region\]" value="South">/,
      );
      expect(page.text).toMatch(/value="West" checked> West <span class="count">[\d,]+<\/span>/);
      const picked = formQuery(page.text, { [REGION]: ['West', 'Midwest'] });
      const shown = await open(`${path}${picked}`, as);
      expect(shown.text).not.toContain('No rows.');
      expect(await kpi(path, picked, as)).toBe(both);
      expect(await kpi(path, formQuery(page.text, { [REGION]: ['West'] }), as)).toBe(west);
      // None checked: every value.
      expect(await kpi(path, formQuery(page.text, { [REGION]: [] }), as)).toBe(all);
    });
});

describe('tabs, filters wired to items, auto-refresh: stored through the API', () => {
  const WIRED = 'dashboard.wired';
  const def = {
    items: [
      { id: 'kpi', report: 'report.kpi_miles', tab: 'overview' },
      { id: 'region', report: 'report.by_region', tab: 'detail' },
      { id: 'note', text: '# Detail' },
    ],
    layout: [
      { item: 'kpi', x: 0, y: 0, w: 4, h: 2 },
      { item: 'region', x: 0, y: 0, w: 8, h: 5 },
      { item: 'note', x: 0, y: 2, w: 12, h: 2 },
    ],
    // The region filter narrows the KPI only; the chart by region keeps every region.
    filters: [{ attribute: REGION, items: ['kpi'] }],
    tabs: [
      { id: 'overview', title: 'Overview' },
      { id: 'detail', title: 'Detail' },
    ],
    refresh: 300,
  };
  const path = () => `/projects/${s.demo}/pmd/obj`;
  const regionRows = (r: ApiResponse) =>
    (r.json.items as { id: string; rows?: unknown[][] }[]).find((i) => i.id === 'region')!.rows!
      .length;
  let shareUrl: string;

  beforeAll(async () => {
    const r = await s.api('POST', path(), {
      body: { ident: WIRED, type: 'dashboard', name: 'Wired', def },
    });
    expect(r.status, r.text).toBe(201);
    const sh = await s.api('POST', `/projects/${s.demo}/pmd/share`, {
      body: { type: 'public', object: WIRED },
    });
    expect(sh.status, sh.text).toBe(201);
    shareUrl = new URL(sh.json.share.url).pathname;
  });

  it('are kept as written, and refused with a 400 naming the field when wrong', async () => {
    const got = await s.api('GET', `${path()}/${WIRED}`);
    expect(got.json.object.def).toEqual(def);
    const bad = async (change: Record<string, unknown>, field: RegExp, message: RegExp) => {
      const r = await s.api('PUT', `${path()}/${WIRED}`, {
        body: { name: 'Wired', def: { ...def, ...change } },
      });
      expect(r.status, r.text).toBe(400);
      expect(r.text).toMatch(field);
      expect(r.json.message).toMatch(message);
    };
    await bad({ refresh: 5 }, /refresh/, /60/);
    await bad({ refresh: 'often' }, /refresh/, /number/i);
    await bad(
      { filters: [{ attribute: REGION, items: ['nope'] }] },
      /filters\.0\.items\.0/,
      /"nope" is not an item/,
    );
    await bad({ filters: [{ attribute: REGION, items: [] }] }, /filters\.0\.items/, /1/);
    await bad(
      { items: [{ id: 'kpi', report: 'report.kpi_miles', tab: 'elsewhere' }], layout: [] },
      /items\.0\.tab/,
      /"elsewhere" is not a tab of this dashboard; its tabs: overview, detail/,
    );
    await bad(
      {
        tabs: [
          { id: 'overview', title: 'A' },
          { id: 'overview', title: 'B' },
        ],
      },
      /tabs\.1\.id/,
      /twice/,
    );
    await bad({ tabs: [{ id: 'x', title: ' ' }] }, /tabs\.0\.title/, /1/);
    // Nothing of a refused change was written.
    expect((await s.api('GET', `${path()}/${WIRED}`)).json.object.def).toEqual(def);
  });

  it('a wired filter narrows its items only: in the app’s JSON, on the public share and in print', async () => {
    const app = `/projects/${s.demo}/app/dashboards/${WIRED}`;
    const west = `?filter=${REGION}:West`;
    const all = await s.api('GET', app);
    expect(all.json.dashboard.refresh).toBe(300);
    expect(all.json.tabs).toEqual(def.tabs);
    expect(all.json.items.map((i: { id: string; tab: string }) => [i.id, i.tab])).toEqual([
      ['kpi', 'overview'],
      ['region', 'detail'],
      ['note', 'overview'],
    ]);
    expect(all.json.filters[0].items).toEqual(['kpi']);
    const everyRegion = regionRows(all);
    expect(everyRegion).toBeGreaterThan(1);
    const narrowed = await s.api('GET', app + west);
    // The KPI is the West's (what the unwired dashboard shows for West), the chart all regions.
    expect(await kpi(app, west, ADMIN)).toBe(
      await kpi(`/projects/${s.demo}/app/dashboards/${DASH}`, west, ADMIN),
    );
    expect(await kpi(app, west, ADMIN)).not.toBe(await kpi(app, '', ADMIN));
    expect(regionRows(narrowed)).toBe(everyRegion);

    const pub = await s.api('GET', `${s.url}${shareUrl}${west}&format=json`, { as: null });
    expect(pub.status, pub.text).toBe(200);
    expect(regionRows(pub)).toBe(everyRegion);
    expect(await kpi(shareUrl, west, null)).toBe(await kpi(app, west, ADMIN));
    // The pages say what the filter narrows, and show each tab as a section of its own.
    const page = await open(`${shareUrl}${west}`);
    expect(page.text).toContain('<p class="note narrows">Narrows Miles flown only</p>');
    expect(page.text).toMatch(
      /<nav class="tabs" aria-label="Tabs"><ul><li><a href="#tab-overview">Overview<\/a><\/li><li><a href="#tab-detail">Detail<\/a><\/li><\/ul><\/nav>/,
    );
    const sections = [
      ...page.text.matchAll(
        /<section class="tab" id="(tab-\w+)"(.*?)<\/section>\s*(?=<section class="tab"|<\/main>)/gs,
      ),
    ];
    expect(sections.map((m) => m[1])).toEqual(['tab-overview', 'tab-detail']);
    expect(sections[0]![2]).toContain('Miles flown');
    expect(sections[0]![2]).toContain('<h3>Detail</h3>');
    expect(sections[1]![2]).toContain('Flights by region');
    // Printed (app/export/url): the same engine, the same wiring.
    const actor = await s.engine.actor({ email: ADMIN }, s.demo);
    const printed = await sitePageHtml(s.engine, actor, new URL(`${s.url}${shareUrl}${west}`));
    expect(printed?.html).toContain('<strong>Origin Region:</strong> West (Miles flown only)');
    const url = new URL(`${s.url}/api/v1/projects/${s.demo}/app/dashboards/${WIRED}${west}`);
    const own = await sitePageHtml(s.engine, actor, url);
    expect(own?.html).toContain('<strong>Origin Region:</strong> West (Miles flown only)');
    expect(own?.html).toContain('<section class="tab" id="tab-detail"');
  });
});

describe('the values a filter offers', () => {
  it('count the facts (flights per origin region), not the rows of the attribute’s dataset', async () => {
    const r = await s.api('GET', `/projects/${s.demo}/pmd/obj/${REGION}/values`);
    expect(r.status, r.text).toBe(200);
    expect(r.json.counts).toBe('flights');
    const flights = await rowsOf(
      s,
      ADMIN,
      'SELECT [Origin Region], COUNT([Flight]) ORDER BY 2 DESC, 1',
    );
    expect(r.json.values).toEqual(flights.map(([value, n]) => ({ value, count: Number(n) })));
    // The airports' own rows are far fewer: what the list counted before.
    const airports = await rowsOf(s, ADMIN, 'SELECT COUNT([dataset.airports])');
    const total = r.json.values.reduce((n: number, v: { count: number }) => n + v.count, 0);
    expect(total).toBeGreaterThan(Number(airports[0]![0]));
    // The public page's picker shows the same counts.
    const page = await open(url);
    const west = r.json.values.find((v: { value: string }) => v.value === 'West').count;
    expect(page.text).toContain(
      `value="West" checked> West <span class="count">${west.toLocaleString('en-US')}</span>`,
    );
  });
});

describe('charts without their SVG (svg=false, what the app asks)', () => {
  it('gives each chart its spec only, the same spec as with its SVG; a bad value is a 400', async () => {
    const app = `/projects/${s.demo}/app/dashboards/${DASH}`;
    type Items = { id: string; chart?: { spec: unknown; svg?: string } }[];
    const full = await s.api('GET', app);
    const bare = await s.api('GET', `${app}?filter=${REGION}:West&svg=false`);
    const west = await s.api('GET', `${app}?filter=${REGION}:West`);
    for (const r of [full, bare, west]) expect(r.status, r.text).toBe(200);
    const chart = (r: ApiResponse) =>
      (r.json.items as Items).find((i) => i.id === 'region')!.chart!;
    expect(chart(full).svg).toMatch(/^<svg/);
    expect(chart(bare)).not.toHaveProperty('svg');
    // The filter still applies, and the spec is the one the SVG was drawn from.
    expect(chart(bare).spec).toEqual(chart(west).spec);
    expect(chart(bare).spec).not.toEqual(chart(full).spec);
    expect(bare.text.length).toBeLessThan(west.text.length / 2);
    const bad = await s.api('GET', `${app}?svg=no`);
    expect(bad.status, bad.text).toBe(400);
    expect(bad.json.message).toMatch(/svg/);
  });
});
