// The demo project for AQL tests: wait for its loads, add saved metrics and filters, and
// list its objects as a fuzzing vocabulary.
import type { ProjectActor } from '../../src/engine/access/actor.js';
import type { ObjectInput } from '../../src/engine/model/store.js';
import type { Vocabulary } from './aql-gen.js';
import { isFinal, jobsPath, sleep, type JobJson } from './jobs.js';
import { ADMIN, type ApiResponse, type TestServer } from './server.js';

/** Polls the job list until no job of the demo project is still under way. */
export async function waitForDemo(s: TestServer, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await s.api('GET', `${jobsPath(s.demo)}?limit=100`);
    if (r.status !== 200) throw new Error(`jobs list answered ${r.status}: ${r.text}`);
    const jobs = r.json.jobs as JobJson[];
    if (jobs.length >= 2 && jobs.every(isFinal)) {
      const failed = jobs.filter((j) => j.status !== 'OK');
      if (failed.length) throw new Error(`demo loads failed: ${JSON.stringify(failed)}`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`demo jobs not finished: ${r.text}`);
    await sleep(100);
  }
}

/** Saved metrics and filters on the demo model (every one compiles). */
export const SAVED: ObjectInput[] = [
  {
    ident: 'metric.avg_delay',
    type: 'metric',
    name: 'Avg Delay',
    def: { aql: 'SELECT AVG([Departure Delay])' },
  },
  {
    ident: 'metric.total_distance',
    type: 'metric',
    name: 'Total Distance',
    def: { aql: 'SELECT SUM([Distance])' },
  },
  {
    ident: 'metric.flights',
    type: 'metric',
    name: 'Flight Count',
    def: { aql: 'SELECT COUNT([Flight])' },
  },
  {
    ident: 'metric.distance_share',
    type: 'metric',
    name: 'Distance Share',
    def: { aql: 'SELECT SUM([Distance]) / (SELECT SUM([Distance]) BY ALL)' },
  },
  {
    ident: 'metric.all_distance',
    type: 'metric',
    name: 'All Distance',
    def: { aql: 'SELECT SUM([Distance]) BY ALL' },
  },
  {
    ident: 'metric.long_haul_passengers',
    type: 'metric',
    name: 'Long Haul Passengers',
    def: { aql: 'SELECT SUM([Passengers]) WHERE [Distance] > 1000' },
  },
  {
    ident: 'filter.west',
    type: 'filter',
    name: 'West Only',
    def: { aql: '[Origin Region] = "West"' },
  },
  {
    ident: 'filter.not_cancelled',
    type: 'filter',
    name: 'Not Cancelled',
    def: { aql: '[Cancelled] = FALSE' },
  },
];

export async function addSaved(s: TestServer, objects: ObjectInput[] = SAVED): Promise<void> {
  await s.engine.model.upsert(s.demo, objects, ADMIN);
}

/** The demo model's objects by kind, titles and identifiers (for generated queries). */
export async function vocabulary(s: TestServer): Promise<Vocabulary> {
  const all = await s.engine.model.all(s.demo);
  const name = (o: (typeof all)[number]) => ({
    title: o.name,
    ident: o.ident,
    dataType: (o.def as { dataType?: string }).dataType,
  });
  const of = (...types: string[]) => all.filter((o) => types.includes(o.type)).map(name);
  return {
    attributes: of('attribute', 'label'),
    dates: of('attribute').filter((n) => n.dataType === 'date'),
    facts: of('fact'),
    metrics: of('metric'),
    filters: of('filter'),
  };
}

/** The engine's view of a project member, as the REST layer resolves it per request. */
export const actorOf = (s: TestServer, email: string): Promise<ProjectActor> =>
  s.engine.actor({ email }, s.demo);

export interface QueryAnswer {
  /** The execute response: 201, or 400 with the error body. */
  execute: ApiResponse;
  job?: JobJson;
  /** The data response once the job is final. */
  data?: ApiResponse;
  /** Rows of cells (data.values split), when the data answered 200. */
  rows?: string[][];
  titles?: string[];
}

/** Runs AQL over HTTP as `as`: execute, poll the job to a final status, GET the data. */
export async function runQuery(s: TestServer, as: string, aql: string): Promise<QueryAnswer> {
  const execute = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
    as,
    body: { aql },
  });
  if (execute.status !== 201) return { execute };
  const links = execute.json.link as { rel: string; href: string }[];
  const jobHref = links.find((l) => l.rel === 'scache.created')!.href;
  const dataHref = links.find((l) => l.rel === 'data.created')!.href;
  let job: JobJson;
  const deadline = Date.now() + 20_000;
  for (;;) {
    const j = await s.api('GET', jobHref, { as });
    if (j.status !== 200) throw new Error(`GET ${jobHref} answered ${j.status}: ${j.text}`);
    job = j.json as JobJson;
    if (isFinal(job)) break;
    if (Date.now() > deadline) throw new Error(`query job still ${job.status}: ${aql}`);
    await sleep(10);
  }
  const data = await s.api('GET', dataHref, { as });
  if (data.status !== 200) return { execute, job, data };
  const values = data.json.data.values as string;
  return {
    execute,
    job,
    data,
    rows: values === '' ? [] : values.split('\n').map((r) => r.split('\t')),
    titles: (data.json.data.visual.column as { title: string }[]).map((c) => c.title),
  };
}

/** The rows of a query that must succeed (throws with the error otherwise). */
export async function rowsOf(s: TestServer, as: string, aql: string): Promise<string[][]> {
  const a = await runQuery(s, as, aql);
  if (!a.rows)
    throw new Error(
      `${aql} as ${as}: execute ${a.execute.status} ${a.execute.text.slice(0, 400)}; job ${a.job?.status} ${a.job?.message ?? ''}; data ${a.data?.status}`,
    );
  return a.rows;
}

/** JSON rows (numbers typed, null for an empty number cell) as the TSV text of AQL data. */
export const asText = (rows: unknown[][]): string[][] =>
  rows.map((r) => r.map((c) => (c === null ? '' : String(c))));
