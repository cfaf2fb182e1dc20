// A dashboard as the pages without the app show it (a public share, the dashboard's own HTML
// page), over real HTTP on the demo flights: text items written in Markdown and drawn safely
// (no markup, script or javascript: address of the text ever active), and the filter form
// as a browser submits it: several values of one filter picked from the values offered, each
// its own field, reaching the engine as several values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
