// Reports and a dashboard on the demo project (flights), and members who see them differently:
// `viewer` reads the dashboard but not the finance table, `west` also has a row-level filter,
// `outsider` is a member whose roles open nothing. Shared by the rendering, sharing, export and
// MCP tests.
import type { ObjectInput } from '../../src/engine/model/store.js';
import { waitForDemo } from './aql-demo.js';
import { ADMIN, invite, type TestServer } from './server.js';

export const VIEWER = 'viewer@example.com';
export const WEST = 'west@example.com';
export const OUTSIDER = 'outsider@example.com';
export const WEST_FILTER = '[Origin Region] = "West"';

const viewers = [{ userrole: 'viewers', acl: 'r----' }];

export const REPORT_OBJECTS: ObjectInput[] = [
  {
    ident: 'metric.rpt_flights',
    type: 'metric',
    name: 'Flights Flown',
    def: { aql: 'SELECT COUNT([Flight])', format: '#,##0 "flights"' },
    acl: viewers,
  },
  {
    ident: 'metric.rpt_miles',
    type: 'metric',
    name: 'Total Miles',
    def: { aql: 'SELECT SUM([Distance])', format: '#,##0,"K mi"' },
    acl: viewers,
  },
  {
    ident: 'metric.rpt_delay',
    type: 'metric',
    name: 'Average Delay',
    def: { aql: 'SELECT AVG([Departure Delay])', format: '0.0 "min"' },
    acl: viewers,
  },
  {
    ident: 'report.by_region',
    type: 'report',
    name: 'Flights by region',
    def: {
      aql: 'SELECT [Origin Region], [Flights Flown]',
      visualization: { type: 'bar', x: 'Origin Region', y: 'Flights Flown' },
    },
    acl: viewers,
  },
  {
    ident: 'report.by_month',
    type: 'report',
    name: 'Flights and miles by month',
    def: {
      aql: 'SELECT [Month], [Flights Flown], [Average Delay]',
      visualization: { type: 'line', x: 1, y: [2, 3] },
    },
    acl: viewers,
  },
  {
    ident: 'report.carrier_pie',
    type: 'report',
    name: 'Miles by carrier',
    def: {
      aql: 'SELECT [Carrier Name], [Total Miles]',
      visualization: { type: 'pie', x: 'Carrier Name', y: 'Total Miles' },
    },
    acl: viewers,
  },
  {
    ident: 'report.delay_scatter',
    type: 'report',
    name: 'Delay against flights',
    def: {
      aql: 'SELECT [Carrier Name], [Flights Flown], [Average Delay]',
      visualization: { type: 'scatter', x: 'Flights Flown', y: 'Average Delay' },
    },
    acl: viewers,
  },
  {
    ident: 'report.kpi_miles',
    type: 'report',
    name: 'Miles flown',
    def: { aql: 'SELECT [Total Miles]', visualization: { type: 'kpi' } },
    acl: viewers,
  },
  {
    ident: 'report.finance_table',
    type: 'report',
    name: 'Carrier finance table',
    def: {
      aql: 'SELECT [Carrier Name], [Flights Flown], [Total Miles]',
      visualization: { type: 'table' },
    },
    acl: [{ userrole: 'finance', acl: 'r----' }],
  },
  {
    ident: 'dashboard.ops',
    type: 'dashboard',
    name: 'Operations',
    description: 'Flights, miles and delays',
    def: {
      items: [
        { id: 'kpi', report: 'report.kpi_miles' },
        { id: 'region', report: 'report.by_region', title: 'By region' },
        { id: 'month', report: 'report.by_month' },
        { id: 'pie', report: 'report.carrier_pie' },
        { id: 'scatter', report: 'report.delay_scatter' },
        { id: 'finance', report: 'report.finance_table' },
      ],
      layout: [
        { item: 'kpi', x: 0, y: 0, w: 3, h: 2 },
        { item: 'region', x: 3, y: 0, w: 9, h: 5 },
        { item: 'month', x: 0, y: 5, w: 6, h: 5 },
        { item: 'pie', x: 6, y: 5, w: 6, h: 5 },
        { item: 'scatter', x: 0, y: 10, w: 6, h: 5 },
        { item: 'finance', x: 6, y: 10, w: 6, h: 5 },
      ],
      filters: [{ attribute: 'attr.airports.region' }, { attribute: 'attr.flights.cancelled' }],
    },
    acl: viewers,
  },
];

/** Waits for the demo data, saves the reports and dashboard, and invites the members. */
export async function setUpReports(s: TestServer): Promise<void> {
  await waitForDemo(s);
  await s.engine.model.upsert(s.demo, REPORT_OBJECTS, ADMIN);
  await invite(s, s.demo, VIEWER, { roles: ['viewers'] });
  await invite(s, s.demo, WEST, { roles: ['viewers'], filter: WEST_FILTER });
  await invite(s, s.demo, OUTSIDER, { roles: ['nobody'] });
}
