// The new chart types over real HTTP on the demo flights: saved as reports (their keys checked:
// a bad one is a 400 naming it), computed as JSON (the spec the app draws), drawn as SVG on
// the report page, a map's unplaceable values said as a warning, and a KPI over months
// compared with the month before, in JSON, on the page and in the MCP answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { rowsOf } from './helpers/aql-demo.js';
import { connectMcp } from './helpers/mcp-client.js';
import { setUpReports, VIEWER } from './helpers/reports-fixture.js';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;
const acl = [{ userrole: 'viewers', acl: 'r----' }];
const save = (ident: string, aql: string, visualization: Record<string, unknown>) =>
  s.api('POST', `/projects/${s.demo}/pmd/obj`, {
    body: { ident, type: 'report', name: ident, def: { aql, visualization }, acl },
  });
const run = (id: string, as = ADMIN) =>
  s.api('GET', `/projects/${s.demo}/app/reports/${id}`, {
    as,
    headers: { accept: 'application/json' },
  });
const page = (id: string) =>
  s.api('GET', `/projects/${s.demo}/app/reports/${id}`, { headers: { accept: 'text/html' } });

const MONTHLY = 'SELECT DATE_TRUNC("month", [Flight Date]) AS "Month", [Flights Flown]';

beforeAll(async () => {
  s = await startTestServer({ URSA_DEMO_DATA: 'true' });
  await setUpReports(s);
  const saved = await Promise.all([
    save('report.stacked', 'SELECT [Origin Region], [Carrier Name], [Flights Flown]', {
      type: 'bar',
      stack: 'percent',
    }),
    save('report.combo', 'SELECT [Origin Region], [Flights Flown], [Average Delay]', {
      type: 'combo',
    }),
    save('report.funnel', 'SELECT [Origin Region], [Flights Flown]', { type: 'funnel' }),
    save('report.gauge', 'SELECT [Average Delay]', { type: 'gauge', max: 60, target: 15 }),
    save('report.states', 'SELECT [Origin State], [Flights Flown]', { type: 'map' }),
    save('report.cities', 'SELECT [Origin City], [Flights Flown]', {
      type: 'map',
      map: 'us-states',
    }),
    save('report.monthly', MONTHLY, { type: 'kpi' }),
  ]);
  for (const r of saved) expect(r.status, r.text).toBe(201);
}, 120_000);
afterAll(() => s?.close());

describe('chart types saved as reports', () => {
  it.each([
    ['a stacking that is none of normal and percent', { type: 'bar', stack: 'sideways' }, 'stack'],
    ['a gauge whose min is not below its max', { type: 'gauge', min: 10, max: 5 }, 'max'],
    ['a target that is not a number', { type: 'gauge', target: 'high' }, 'target'],
    ['a map of unknown boundaries', { type: 'map', map: 'mars' }, 'map'],
    ['a latitude that is no column reference', { type: 'map', latitude: true }, 'latitude'],
    ['an unknown type', { type: 'sankey' }, 'type'],
  ])('400: %s, naming the key', async (_name, visualization, key) => {
    const r = await save(`report.bad_${key}`, 'SELECT [Flights Flown]', visualization);
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toContain(`visualization.${key}`);
    const back = await s.api('GET', `/projects/${s.demo}/pmd/obj/report.bad_${key}`);
    expect(back.status).toBe(404);
  });

  it('100% stacked bars: the spec says percent, the page draws the % axis', async () => {
    const r = await run('report.stacked');
    expect(r.status, r.text).toBe(200);
    expect(r.json.chart.spec).toMatchObject({ mark: 'bar', stack: 'percent' });
    expect(r.json.chart.spec.color.title).toBe('Carrier Name');
    expect(r.json.chart.svg).toContain('>100%<');
    const html = await page('report.stacked');
    expect(html.status).toBe(200);
    expect(html.text).toContain('>100%<');
  });

  it('combo, funnel and gauge as their specs and SVG', async () => {
    const combo = (await run('report.combo')).json.chart;
    expect(combo.spec).toMatchObject({ mark: 'bar', lines: [1] });
    expect(combo.svg).toMatch(/fill="none"[^>]*stroke="#e8793a"/);
    const funnel = (await run('report.funnel')).json;
    expect(funnel.chart.spec.mark).toBe('funnel');
    for (const [region, n] of await rowsOf(s, ADMIN, 'SELECT [Origin Region], [Flights Flown]'))
      expect(funnel.chart.svg).toContain(`>${region}: ${Number(n).toLocaleString('en-US')}<`);
    const gauge = (await run('report.gauge')).json.chart;
    expect(gauge.spec).toMatchObject({ mark: 'gauge', gauge: { min: 0, max: 60, target: 15 } });
    const delay = Number((await rowsOf(s, ADMIN, 'SELECT [Average Delay]'))[0]![0]);
    const shown = delay.toLocaleString('en-US', { maximumFractionDigits: 2 });
    expect(gauge.svg).toMatch(new RegExp(`font-size="28px"[^>]*>${shown}<`));
  });

  it('maps the states by their codes; a value that is no state is a warning, not dropped silently', async () => {
    const states = (await run('report.states')).json;
    expect(states.chart.spec.map).toEqual({ regions: 'us-states' });
    expect(states.warnings).toBeUndefined();
    // A shaded state per state in the result.
    const n = (await rowsOf(s, ADMIN, 'SELECT [Origin State], [Flights Flown]')).length;
    const shaded = new Set(
      [...states.chart.svg.matchAll(/<path d="M[^"]{100,}" fill="(rgb\([^)]*\))"/g)].map(
        (m: RegExpMatchArray) => m[0],
      ),
    );
    expect(shaded.size).toBe(n);
    const cities = (await run('report.cities')).json;
    expect(cities.warnings).toHaveLength(1);
    expect(cities.warnings[0].message).toMatch(/^The map has no US state for "[^"]+"/);
    expect(cities.warnings[0].message).toContain('(Origin City)');
    const html = await page('report.cities');
    expect(html.text).toContain('The map has no US state for');
  });
});

describe('a KPI over months', () => {
  it("shows the last month's flights against the month before, with the series", async () => {
    const rows = (await rowsOf(s, VIEWER, MONTHLY)).sort((a, b) => a[0]!.localeCompare(b[0]!));
    expect(rows.length).toBeGreaterThan(2);
    const [last, prev] = [rows[rows.length - 1]!, rows[rows.length - 2]!];
    const r = await run('report.monthly', VIEWER);
    expect(r.status, r.text).toBe(200);
    const k = r.json.kpi;
    const month = (d: string) =>
      new Date(`${d.slice(0, 10)}T00:00:00Z`).toLocaleString('en-US', {
        month: 'short',
        year: 'numeric',
        timeZone: 'UTC',
      });
    expect(k.value).toBe(Number(last[1]));
    expect(k.period).toBe(month(last[0]!));
    expect(k.previous).toMatchObject({ period: month(prev[0]!), value: Number(prev[1]) });
    const delta = Number(last[1]) - Number(prev[1]);
    expect(k.change.value).toBe(delta);
    expect(k.change.percent).toBeCloseTo((delta / Number(prev[1])) * 100, 10);
    expect(k.series.map((p: { value: number }) => p.value)).toEqual(rows.map((x) => Number(x[1])));
    const html = await page('report.monthly');
    expect(html.text).toContain(`vs ${month(prev[0]!)}`);
    expect(html.text).toMatch(/<svg [^>]*class="sparkline"[^>]*><polyline points="[\d., ]+"/);
    expect(html.text).toContain(`class="change ${delta > 0 ? 'up' : 'down'}"`);
  });

  it('run_report over MCP answers the comparison and an image of the KPI', async () => {
    let c: Client | undefined;
    try {
      c = await connectMcp(s, VIEWER, 'chart-types-test');
      const out = (await c.callTool({
        name: 'run_report',
        arguments: { project: s.demo, report: 'report.monthly' },
      })) as CallToolResult;
      expect(out.isError).not.toBe(true);
      const data = out.structuredContent as {
        kpi: { change: unknown; series: unknown[] };
        image: boolean;
      };
      expect(data.kpi.change).toBeDefined();
      expect(data.kpi.series.length).toBeGreaterThan(2);
      expect(data.image).toBe(true);
      const images = out.content.filter((b) => b.type === 'image');
      expect(images).toHaveLength(1);
      expect(
        Buffer.from((images[0] as { data: string }).data, 'base64')
          .subarray(1, 4)
          .toString(),
      ).toBe('PNG');
    } finally {
      await c?.close();
    }
  });
});
