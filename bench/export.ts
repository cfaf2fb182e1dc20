// bench:export — dashboards on 3,000,000 real flights (vega-datasets, see flights-data.ts):
// a server starts in-process, both files are loaded over REST, six reports (a KPI, four
// charts, a table) go on one dashboard. Three goals, each measured against its baseline in
// the same run:
//   render — GET the dashboard's HTML (queries, charts, page) with cold result and compile
//            caches, against running its six queries the way a client does (POST
//            app/aql/execute with Prefer: wait, all six at once) with the same cold caches;
//            goal: HTML adds ≤ 20%;
//   pdf    — warm POST app/export/url of that dashboard (browser running, results cached),
//            against printing the very same HTML with playwright-core on the same Chromium
//            with the same flags (a fresh context per print, as ours; no server); goal p50 ≤ 1.5 s;
//   burst  — 10 exports at once all succeed (timed), then again with the memory of the
//            server and its Chromium processes sampled (PSS, see treeMemory); goal peak
//            growth < 800 MB.
// Settings: BENCH_EXPORT_ROUNDS (default 11), BENCH_PDF_ROUNDS (default 21), BENCH_SAMPLE_MS
// (memory samples, default 250).
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../src/engine/export/browser.js';
import { median, quantile, startBenchServer } from './compare.js';
import { AIRPORT_ROWS, FLIGHT_ROWS, flightFiles, Rest } from './flights-data.js';

const ROUNDS = Number(process.env.BENCH_EXPORT_ROUNDS ?? 11);
const PDF_ROUNDS = Number(process.env.BENCH_PDF_ROUNDS ?? 21);
const BURST = 10;
const GOAL_RENDER = 1.2;
const GOAL_PDF_MS = 1500;
const GOAL_MEMORY_MB = 800;
const SAMPLE_MS = Number(process.env.BENCH_SAMPLE_MS ?? 250);

const REPORTS = [
  ['kpi', 'Flights', 'SELECT COUNT([Distance]) AS "Flights"', { type: 'kpi' }],
  ['states', 'Miles by state', 'SELECT [State], SUM([Distance]) AS "Miles"', { type: 'bar' }],
  [
    'monthly',
    'Flights and delay by month',
    'SELECT MONTH([Date]) AS "Month", COUNT([Distance]) AS "Flights", AVG([Delay]) AS "Avg Delay"',
    { type: 'line', x: 1, y: [2] },
  ],
  [
    'share',
    'Top origins',
    'SELECT [Origin], COUNT([Distance]) AS "Flights" ORDER BY "Flights" DESC LIMIT 8',
    { type: 'pie' },
  ],
  [
    'scatter',
    'Delay against distance by state',
    'SELECT [State], AVG([Distance]) AS "Avg Distance", AVG([Delay]) AS "Avg Delay"',
    { type: 'scatter', x: 'Avg Distance', y: 'Avg Delay' },
  ],
  [
    'table',
    'Busiest airports',
    'SELECT [Airport Name], COUNT([Distance]) AS "Flights", AVG([Delay]) AS "Avg Delay" ORDER BY "Flights" DESC LIMIT 25',
    { type: 'table' },
  ],
] as const;

/**
 * Memory of a process and every process under it (Chromium's), in MB: the sums of their
 * proportional set sizes (Pss of /proc/<pid>/smaps_rollup) and of their RSS, which counts the
 * pages Chromium's processes share (libraries, shared memory) once per process. Plain
 * JavaScript, as it also runs in the sampler thread (a worker does not go through tsx).
 */
const TREE_MEMORY = `(root) => {
  const children = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync('/proc/' + name + '/stat', 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {}
  }
  const kb = { pss: 0, rss: 0 };
  const visit = (pid) => {
    try {
      const rollup = fs.readFileSync('/proc/' + pid + '/smaps_rollup', 'utf8');
      kb.pss += Number(/^Pss:\\s+(\\d+)/m.exec(rollup)?.[1] ?? 0);
      kb.rss += Number(/^Rss:\\s+(\\d+)/m.exec(rollup)?.[1] ?? 0);
    } catch {
      return;
    }
    for (const c of children.get(pid) ?? []) visit(c);
  };
  visit(root);
  return { pss: kb.pss / 1024, rss: kb.rss / 1024 };
}`;
const treeMemory = new Function('fs', `return ${TREE_MEMORY}`)(fs) as (root: number) => {
  pss: number;
  rss: number;
};

/**
 * The sampler thread (plain JavaScript: a worker does not go through tsx): the peaks of the
 * tree's memory until told to stop, then the peaks and the mean time of a sample.
 */
const SAMPLER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const treeMemory = ${TREE_MEMORY};
const peaks = { pss: 0, rss: 0, samples: 0, ms: 0 };
const take = () => {
  const t = performance.now();
  const m = treeMemory(workerData.root);
  peaks.ms += performance.now() - t;
  peaks.samples++;
  peaks.pss = Math.max(peaks.pss, m.pss);
  peaks.rss = Math.max(peaks.rss, m.rss);
};
take();
parentPort.postMessage('ready');
const timer = setInterval(take, workerData.everyMs);
parentPort.once('message', () => {
  clearInterval(timer);
  take();
  parentPort.postMessage({ ...peaks, ms: peaks.ms / peaks.samples });
});
`;

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-bench-export-'));
  process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
  const files = await flightFiles();
  const { config, running } = await startBenchServer(tmp);
  const { engine } = running;
  try {
    const project = running.bootstrap.demoProjectId!;
    const token = await engine.issueToken(config.adminEmail);
    const rest = new Rest(running.url, project, token);
    await rest.upload(files.airports, 'airports.csv');
    await rest.upload(files.flights, 'flights.csv');
    const loaded = await rest.load(100);
    if (loaded.rows.flights !== FLIGHT_ROWS || loaded.rows.airports !== AIRPORT_ROWS)
      throw new Error(`loaded ${JSON.stringify(loaded.rows)}`);

    const objects = [
      ...REPORTS.map(([id, name, aql, visualization]) => ({
        ident: `report.bench_${id}`,
        type: 'report',
        name,
        def: { aql, visualization },
      })),
      {
        ident: 'dashboard.bench',
        type: 'dashboard',
        name: 'Flights overview',
        def: {
          items: REPORTS.map(([id]) => ({ id, report: `report.bench_${id}` })),
          layout: REPORTS.map(([id], i) => ({
            item: id,
            x: (i % 2) * 6,
            y: Math.floor(i / 2) * 5,
            w: 6,
            h: 5,
          })),
        },
      },
    ];
    const created = await rest.call('POST', '/pmd/obj', objects);
    if (created.status !== 200 && created.status !== 201)
      throw new Error(
        `creating the reports answered ${created.status}: ${JSON.stringify(created.json)}`,
      );

    const page = `${rest.base}/app/dashboards/dashboard.bench`;
    const get = async (url: string, accept: string) => {
      const r = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept } });
      const body = Buffer.from(await r.arrayBuffer());
      if (r.status !== 200) throw new Error(`${url} answered ${r.status}: ${body.toString()}`);
      return body;
    };
    const cold = () => {
      engine.aql.clearResultCache();
      engine.aql.clearCompileCache();
    };
    const queries = () =>
      Promise.all(
        REPORTS.map(async ([, , aql]) => {
          const r = await rest.call('POST', '/app/aql/execute', { aql }, { prefer: 'wait=60' });
          if (r.status !== 200) throw new Error(`execute answered ${r.status}`);
        }),
      );
    const timed = async (f: () => Promise<unknown>) => {
      const t = performance.now();
      await f();
      return performance.now() - t;
    };

    // ---- render: HTML against its queries, cold, alternating ---------------------------
    const html = await get(page, 'text/html'); // warm-up (JIT, Vega)
    const items = (
      JSON.parse((await get(page, 'application/json')).toString()) as {
        items: { error?: string }[];
      }
    ).items;
    const failed = items.filter((i) => i.error);
    if (items.length !== 6 || failed.length)
      throw new Error(`the dashboard has ${items.length} items, errors: ${JSON.stringify(failed)}`);
    await queries();
    const ours: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const order = i % 2 === 0 ? ['html', 'queries'] : ['queries', 'html'];
      for (const side of order) {
        cold();
        if (side === 'html') ours.push(await timed(() => get(page, 'text/html')));
        else base.push(await timed(queries));
      }
    }
    const renderRatio = median(ours) / median(base);
    console.log(
      `\nrender: dashboard HTML (6 items on ${FLIGHT_ROWS} flights, cold caches) median ${median(ours).toFixed(0)} ms; its six queries over REST ${median(base).toFixed(0)} ms; ratio ${renderRatio.toFixed(2)}× (goal ≤ ${GOAL_RENDER}×) ${renderRatio <= GOAL_RENDER ? 'PASS' : 'ABOVE GOAL'}`,
    );

    // ---- pdf: warm export/url against Chromium printing the same HTML -----------------
    const exportPdf = async () => {
      const r = await fetch(`${rest.base}/app/export/url`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/pdf',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ url: page, landscape: true }),
      });
      const body = Buffer.from(await r.arrayBuffer());
      if (r.status !== 200 || body.subarray(0, 5).toString() !== '%PDF-')
        throw new Error(`export/url answered ${r.status}: ${body.toString().slice(0, 300)}`);
      return body;
    };
    await exportPdf(); // launches the browser
    const browser = await chromium.launch({
      executablePath: config.export.chromiumPath,
      args: CHROMIUM_ARGS,
    });
    const direct = async () => {
      const ctx = await browser.newContext({ javaScriptEnabled: false });
      const p = await ctx.newPage();
      await p.setContent(html.toString());
      await p.pdf({ landscape: true, format: 'A4', printBackground: true });
      await ctx.close();
    };
    await direct();
    const pdfOurs: number[] = [];
    const pdfBase: number[] = [];
    for (let i = 0; i < PDF_ROUNDS; i++) {
      pdfOurs.push(await timed(exportPdf));
      pdfBase.push(await timed(direct));
    }
    await browser.close();
    const p50 = median(pdfOurs);
    console.log(
      `pdf: warm export/url p50 ${p50.toFixed(0)} ms, p90 ${quantile(pdfOurs, 0.9).toFixed(0)} ms; Chromium printing the same HTML alone p50 ${median(pdfBase).toFixed(0)} ms; ratio ${(p50 / median(pdfBase)).toFixed(2)}× (goal p50 ≤ ${GOAL_PDF_MS} ms) ${p50 <= GOAL_PDF_MS ? 'PASS' : 'ABOVE GOAL'}`,
    );

    // ---- burst: 10 at once, all succeed; timed alone, then again with memory sampled -----
    const burst = async () => {
      const t = performance.now();
      const results = await Promise.allSettled(Array.from({ length: BURST }, exportPdf));
      for (const r of results)
        if (r.status === 'rejected') console.log(`  failed: ${String(r.reason)}`);
      return {
        ok: results.filter((r) => r.status === 'fulfilled').length,
        ms: performance.now() - t,
      };
    };
    const timedBurst = await burst();
    console.log(
      `burst: ${timedBurst.ok}/${BURST} concurrent exports succeeded in ${timedBurst.ms.toFixed(0)} ms (one export alone ${p50.toFixed(0)} ms, ${config.export.concurrency} printed at once)`,
    );
    global.gc?.();
    const start = treeMemory(process.pid);
    // Reading smaps_rollup of every process takes tens of milliseconds of CPU: a worker thread
    // does it every SAMPLE_MS, so the server's event loop (this thread) does not wait for it,
    // though the cores are shared (which is why the burst is timed without it above).
    const sampler = new Worker(SAMPLER, {
      eval: true,
      workerData: { root: process.pid, everyMs: SAMPLE_MS },
    });
    await new Promise((r) => sampler.once('message', r)); // first sample taken
    const sampled = await burst();
    const peaks = await new Promise<{ pss: number; rss: number; samples: number; ms: number }>(
      (r) => {
        sampler.once('message', r);
        sampler.postMessage('stop');
      },
    );
    await sampler.terminate();
    const end = treeMemory(process.pid);
    const peak = Math.max(peaks.pss, end.pss);
    const rssPeak = Math.max(peaks.rss, end.rss);
    const growth = peak - start.pss;
    const ok = timedBurst.ok === BURST && sampled.ok === BURST;
    console.log(
      `memory: ${sampled.ok}/${BURST} again, memory (PSS) of server + Chromium ${start.pss.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB: growth ${growth.toFixed(0)} MB (goal < ${GOAL_MEMORY_MB} MB, all succeed) ${ok && growth < GOAL_MEMORY_MB ? 'PASS' : 'FAIL'}`,
    );
    console.log(
      `  (${peaks.samples} samples every ${SAMPLE_MS} ms, ${peaks.ms.toFixed(0)} ms each; summed RSS, which counts the pages Chromium's processes share once per process: ${start.rss.toFixed(0)} MB before, peak ${rssPeak.toFixed(0)} MB, growth ${(rssPeak - start.rss).toFixed(0)} MB)`,
    );
  } finally {
    await running.close();
  }
}

await main();
