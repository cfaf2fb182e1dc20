// Fills the demo project on first start: writes the generated files into its storage
// (/demo/*.csv) and starts the loads as jobs — carriers, airports and flights in one load,
// the calendar package in another — without waiting for them to finish. The demo's saved
// metrics, reports (one of each visualization) and dashboard follow the flights load the
// moment it ends.
import type { Engine } from '../../engine.js';
import { FINAL_STATUSES, type Job } from '../../jobs/jobs.js';
import type { ProjectActor } from '../../access/actor.js';
import { demoDatasets } from './datasets.js';
import { DEMO_FROM, DEMO_TO, generateFlights } from './flights.js';

type DemoEngine = Pick<
  Engine,
  'actor' | 'files' | 'loads' | 'packages' | 'jobs' | 'objects' | 'log'
>;

/** What assistants are asked most, saved (get_model lists them with their AQL). */
export const DEMO_METRICS = [
  {
    ident: 'metric.number_of_flights',
    type: 'metric',
    name: 'Number of Flights',
    description: 'flights, cancelled ones included',
    def: { aql: 'SELECT COUNT([flights])', format: '#,##0' },
  },
  {
    ident: 'metric.total_passengers',
    type: 'metric',
    name: 'Total Passengers',
    description: 'passengers carried (a cancelled flight carries none)',
    def: { aql: 'SELECT SUM([Passengers])', format: '#,##0' },
  },
  {
    ident: 'metric.cancellation_rate',
    type: 'metric',
    name: 'Cancellation Rate',
    description: 'share of flights cancelled, from 0 to 1',
    def: { aql: 'SELECT AVG(CASE WHEN [Cancelled] THEN 1 ELSE 0 END)', format: '0.00%' },
  },
  {
    ident: 'metric.avg_departure_delay',
    type: 'metric',
    name: 'Avg Departure Delay',
    description: 'mean minutes late at departure, over the flights not cancelled',
    def: { aql: 'SELECT AVG([Departure Delay])', format: '#,##0.0' },
  },
  {
    ident: 'metric.avg_arrival_delay',
    type: 'metric',
    name: 'Avg Arrival Delay',
    description: 'mean minutes late at arrival, over the flights that arrived',
    def: { aql: 'SELECT AVG([Arrival Delay])', format: '#,##0.0' },
  },
];

/** Ready-made reports, one of each visualization, on the flights' own columns and metrics. */
export const DEMO_REPORTS = [
  {
    ident: 'report.demo_flights',
    type: 'report',
    name: 'Total flights',
    description: 'all flights, cancelled ones included',
    def: { aql: 'SELECT [Number of Flights]', visualization: { type: 'kpi' } },
  },
  {
    ident: 'report.demo_flights_by_carrier',
    type: 'report',
    name: 'Flights by carrier',
    def: {
      aql: 'SELECT [Carrier Name], [Number of Flights] ORDER BY 2 DESC',
      visualization: { type: 'bar' },
    },
  },
  {
    ident: 'report.demo_flights_by_month',
    type: 'report',
    name: 'Flights by month',
    def: {
      aql: 'SELECT DATE_TRUNC("month", [Flight Date]) AS "Month", [Number of Flights]',
      visualization: { type: 'line' },
    },
  },
  {
    ident: 'report.demo_passengers_by_month',
    type: 'report',
    name: 'Passengers by month',
    def: {
      aql: 'SELECT DATE_TRUNC("month", [Flight Date]) AS "Month", [Total Passengers]',
      visualization: { type: 'area' },
    },
  },
  {
    ident: 'report.demo_passengers_by_region',
    type: 'report',
    name: 'Passengers by origin region',
    def: {
      aql: 'SELECT [Origin Region], [Total Passengers]',
      visualization: { type: 'pie' },
    },
  },
  {
    ident: 'report.demo_delay_by_carrier',
    type: 'report',
    name: 'Delay against flights, by carrier',
    def: {
      aql: 'SELECT [Carrier Name], [Number of Flights], [Avg Departure Delay]',
      visualization: { type: 'scatter', x: 'Number of Flights', y: 'Avg Departure Delay' },
    },
  },
  {
    ident: 'report.demo_carriers',
    type: 'report',
    name: 'Carriers',
    def: {
      aql: 'SELECT [Carrier Name], [Number of Flights], [Cancellation Rate], [Avg Arrival Delay] ORDER BY 2 DESC',
      visualization: { type: 'table' },
    },
  },
];

/** A dashboard of those reports, filtered by region and date, to open first. */
export const DEMO_DASHBOARD = {
  ident: 'dashboard.demo_flights',
  type: 'dashboard',
  name: 'Flights overview',
  description: 'Flights, passengers and delays of the demo airline data, 2024–2025',
  def: {
    items: [
      { id: 'flights', report: 'report.demo_flights' },
      { id: 'by_month', report: 'report.demo_flights_by_month' },
      { id: 'by_carrier', report: 'report.demo_flights_by_carrier' },
      { id: 'by_region', report: 'report.demo_passengers_by_region' },
      { id: 'passengers', report: 'report.demo_passengers_by_month' },
      { id: 'delay', report: 'report.demo_delay_by_carrier' },
      { id: 'carriers', report: 'report.demo_carriers' },
    ],
    layout: [
      { item: 'flights', x: 0, y: 0, w: 3, h: 3 },
      { item: 'by_month', x: 3, y: 0, w: 9, h: 5 },
      { item: 'by_carrier', x: 0, y: 5, w: 6, h: 5 },
      { item: 'by_region', x: 6, y: 5, w: 6, h: 5 },
      { item: 'passengers', x: 0, y: 10, w: 6, h: 5 },
      { item: 'delay', x: 6, y: 10, w: 6, h: 5 },
      { item: 'carriers', x: 0, y: 15, w: 12, h: 5 },
    ],
    filters: [{ attribute: 'attr.airports.region' }, { attribute: 'attr.flights.flight_date' }],
  },
};

export async function startDemoLoads(
  engine: DemoEngine,
  projectId: string,
  email: string,
): Promise<Job[]> {
  const actor = await engine.actor({ email }, projectId);
  const sets = demoDatasets(generateFlights());
  for (const d of sets) {
    await engine.files.writeFile(actor, d.source, Buffer.from(d.csv, 'utf8'), {
      createParents: true,
    });
  }
  const clusters = Object.fromEntries(
    sets.map((d) => [
      d.name,
      { source_type: 'webdav', source: d.source, prescription: d.prescription },
    ]),
  );
  const data = await engine.loads.start(actor, { type: 'cluster', clusters });
  await saveMetricsAfter(engine, actor, data);
  // flights.flight_date declares its reference to `calendar`; whichever job ends last
  // resolves it in the model.
  const calendar = await engine.packages.load(actor, {
    package: 'calendar',
    parameters: { from: DEMO_FROM, to: DEMO_TO },
  });
  return [data, calendar];
}

/**
 * The metrics (and the reports and dashboard) name the flights' columns, which the load creates: they are saved as it ends,
 * in the same turn as its final status (so whoever sees the load done sees them too).
 */
async function saveMetricsAfter(engine: DemoEngine, actor: ProjectActor, load: Job): Promise<void> {
  const save = async (job: Job) => {
    if (job.status !== 'OK') return;
    try {
      await engine.objects.create(actor, [...DEMO_METRICS, ...DEMO_REPORTS, DEMO_DASHBOARD]);
    } catch (err) {
      engine.log.error(
        { err, project: actor.projectId },
        'saving the demo metrics and reports failed',
      );
    }
  };
  const stop = engine.jobs.onFinish(async (job) => {
    if (job.id !== load.id) return;
    stop();
    await save(job);
  });
  // Ended already (it cannot have, but then it is not missed).
  const now = await engine.jobs.peek(load.id);
  if (now && FINAL_STATUSES.includes(now.status)) {
    stop();
    await save(now);
  }
}
