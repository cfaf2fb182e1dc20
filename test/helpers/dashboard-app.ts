// What the dashboard browser tests share: a server with the demo data and the reports
// fixture, a Chromium, and a dashboard's KPI as REST computes it (the number the screen must
// show).
import type { Browser } from 'playwright-core';
import { expect } from 'vitest';
import { launch } from './app-browser.js';
import { setUpReports } from './reports-fixture.js';
import { ADMIN, startTestServer, type TestServer } from './server.js';

/** The demo project with the reports fixture saved, and a browser. */
export async function startWithReports(): Promise<{ s: TestServer; browser: Browser }> {
  const [s, browser] = await Promise.all([startTestServer({ URSA_DEMO_DATA: 'true' }), launch()]);
  await setUpReports(s);
  return { s, browser };
}

/** The formatted value of item `item` of dashboard `dash` for `query`, as `as` sees it. */
export async function restKpi(
  s: TestServer,
  dash: string,
  query: string,
  as = ADMIN,
  item = 'kpi',
): Promise<string> {
  const r = await s.api('GET', `/projects/${s.demo}/app/dashboards/${dash}${query}`, { as });
  expect(r.status, r.text).toBe(200);
  return (r.json.items as { id: string; kpi?: { formatted: string } }[]).find((i) => i.id === item)!
    .kpi!.formatted;
}
