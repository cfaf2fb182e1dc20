// bench:delivery — subscriptions and alerts (issue 35) on the demo project, a server
// in-process with a real SMTP server on loopback (smtp-server) receiving every mail:
//   send   — one subscription of the demo dashboard to BENCH_RECIPIENTS members (default 200),
//            each with a row filter of their own (a state and a distance floor: no two alike),
//            sent now; against one dashboard render for one member (the same steps for one:
//            the dashboard computed as them with cold caches, its page printed to PDF and PNG
//            in one Chromium page load), timed alone BENCH_SINGLE times. Goal: the whole send
//            within recipients × one render (ratio ≤ 1.0; the render pool is
//            URSA_EXPORT_CONCURRENCY wide, so it is less). Prints renders (mails) per second.
//   alerts — the demo's flights reloaded (a transform job) BENCH_LOAD_ROUNDS times without
//            alerts and as many with BENCH_ALERTS after-load alerts (each telling 5 members),
//            interleaved (the alerts paused, then resumed); the load's own time (started →
//            finished) with them against without. Goal ≤ 1.10×.
//            Also prints when the last alert evaluation after the load ended.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { demoDatasets } from '../src/engine/data/demo/datasets.js';
import { generateFlights } from '../src/engine/data/demo/flights.js';
import type { Engine } from '../src/engine/engine.js';
import { median, startBenchServer } from './compare.js';

const RECIPIENTS = Number(process.env.BENCH_RECIPIENTS ?? 200);
const SINGLE = Number(process.env.BENCH_SINGLE ?? 7);
const LOAD_ROUNDS = Number(process.env.BENCH_LOAD_ROUNDS ?? 5);
const ALERTS = Number(process.env.BENCH_ALERTS ?? 20);
const DASH = 'dashboard.demo_flights';
const STATES = ['CA', 'TX', 'FL', 'NY', 'IL', 'GA', 'WA', 'CO', 'AZ', 'NV'];

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-delivery-'));
  let mails = 0;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => undefined);
      stream.on('end', () => {
        mails++;
        callback();
      });
    },
  });
  smtp.on('error', (err) => console.error('smtp', err));
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
  const port = (smtp.server.address() as { port: number }).port;
  const { config, running } = await startBenchServer(dir, {
    URSA_DEMO_DATA: 'true',
    URSA_SMTP_URL: `smtp://127.0.0.1:${port}`,
  });
  const engine = running.engine as Engine;
  const project = running.bootstrap.demoProjectId!;
  const admin = config.adminEmail;
  try {
    await demoLoaded(engine, project, admin);
    const adminActor = await engine.actor({ email: admin }, project);
    const members: string[] = [];
    for (let i = 0; i < RECIPIENTS; i++) {
      const email = `member${i}@bench.example.com`;
      await engine.members.invite(adminActor, {
        id: email,
        filter: `[Origin State] = "${STATES[i % STATES.length]}" AND [Distance] > ${Math.floor(i / STATES.length) * 10}`,
      });
      members.push(email);
    }
    console.log(`${RECIPIENTS} members invited, each with their own row filter`);

    // ---- one render, alone ----------------------------------------------------------------
    const { dashboardPage } = await import('../src/web/report-pages.js');
    const single: number[] = [];
    for (let i = 0; i < SINGLE + 1; i++) {
      engine.aql.clearResultCache();
      const member = await engine.actor({ email: members[i % members.length]! }, project);
      const t = performance.now();
      const run = await engine.reports.dashboard(member, DASH, []);
      await engine.exports.pdfAndImage(
        member,
        dashboardPage(run, { print: true }).html,
        { title: run.name },
        {
          widthPx: 1000,
          maxHeightPx: 4000,
        },
      );
      if (i > 0) single.push(performance.now() - t); // the first launches Chromium
    }
    const one = median(single);

    // ---- the subscription, sent now ---------------------------------------------------------
    const [sub] = await engine.objects.create(adminActor, {
      type: 'subscription',
      name: 'Bench',
      def: { dashboard: DASH, recipients: members, schedule: { cron: '0 8 * * 1' } },
    });
    engine.aql.clearResultCache();
    const before = mails;
    const t0 = performance.now();
    const job = await engine.delivery.run(adminActor, sub!.ident);
    const done = await engine.jobs.waitFor(job.id, 3_600_000);
    const sendMs = performance.now() - t0;
    const outcomes = Object.values((done.result as { outcomes: Record<string, string> }).outcomes);
    const sent = outcomes.filter((o) => o === 'sent').length;
    if (done.status !== 'OK' || sent !== RECIPIENTS || mails - before !== RECIPIENTS)
      throw new Error(
        `the send did not deliver every mail: ${done.status} ${done.message ?? ''}, ${sent} sent, ${mails - before} received`,
      );
    const ratio = sendMs / (RECIPIENTS * one);

    // ---- alerts after a load --------------------------------------------------------------
    const sets = demoDatasets(generateFlights());
    const loadMs = async (): Promise<{ load: number; alertsDone: number }> => {
      const started = Date.now();
      // The demo's files reloaded as the demo loads them (one transform job).
      const clusters = Object.fromEntries(
        sets.map((d) => [
          d.name,
          { source_type: 'webdav', source: d.source, prescription: d.prescription },
        ]),
      );
      const load = await engine.loads.start(adminActor, { type: 'cluster', clusters });
      const data = await engine.jobs.waitFor(load.id, 600_000);
      if (data.status !== 'OK') throw new Error(`the load failed: ${data.message}`);
      await engine.delivery.schedule.settled();
      let last = Date.parse(data.finished!);
      for (;;) {
        const evals = (
          await engine.jobs.list(adminActor, { type: 'delivery', limit: 1000, offset: 0 })
        ).items.filter((j) => Date.parse(j.created) >= started);
        if (evals.every((j) => ['OK', 'ERROR', 'CANCELLED'].includes(j.status))) {
          for (const j of evals) last = Math.max(last, Date.parse(j.finished!));
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      return {
        load: Date.parse(data.finished!) - Date.parse(data.started!),
        alertsDone: last - started,
      };
    };
    const alerts: string[] = [];
    for (let i = 0; i < ALERTS; i++) {
      const [alert] = await engine.objects.create(adminActor, {
        type: 'alert',
        name: `Bench alert ${i}`,
        def: {
          aql: 'SELECT COUNT([flights])',
          condition: { op: '>', value: i },
          afterLoads: true,
          email: members.slice(i * 5, i * 5 + 5),
        },
      });
      alerts.push(alert!.ident);
    }
    const armed = async (on: boolean) => {
      for (const ident of alerts) await engine.delivery.pause(adminActor, ident, !on);
    };
    // Rounds without and with the alerts interleaved (ABBA), so what drifts over the run (the
    // data file growing with each reload, caches warming) falls on both sides alike.
    const without: number[] = [];
    const withAlerts: number[] = [];
    const alertsDone: number[] = [];
    for (let i = 0; i < LOAD_ROUNDS; i++) {
      for (const on of i % 2 ? [true, false] : [false, true]) {
        await armed(on);
        const r = await loadMs();
        if (!on) without.push(r.load);
        else {
          withAlerts.push(r.load);
          alertsDone.push(r.alertsDone);
        }
      }
    }
    const loadRatio = median(withAlerts) / median(without);

    console.log(
      `\nbench:delivery — demo dashboard (7 items), ${os.cpus().length} cores, render pool ${config.export.concurrency}`,
    );
    console.table([
      {
        measure: 'one render (dashboard as a member + PDF + PNG), median',
        value: `${one.toFixed(0)} ms`,
      },
      {
        measure: `subscription to ${RECIPIENTS} members, each their own rows`,
        value: `${(sendMs / 1000).toFixed(1)} s (${(RECIPIENTS / (sendMs / 1000)).toFixed(2)} renders/s)`,
      },
      {
        measure: 'send ÷ (recipients × one render)',
        value: `${ratio.toFixed(3)}× (goal ≤ 1.0) ${ratio <= 1 ? 'PASS' : 'ABOVE GOAL'}`,
      },
      { measure: 'load alone, median', value: `${median(without).toFixed(0)} ms` },
      {
        measure: `load with ${ALERTS} after-load alerts (${ALERTS * 5} recipients), median`,
        value: `${median(withAlerts).toFixed(0)} ms`,
      },
      {
        measure: 'load with alerts ÷ load alone',
        value: `${loadRatio.toFixed(3)}× (goal ≤ 1.10) ${loadRatio <= 1.1 ? 'PASS' : 'ABOVE GOAL'}`,
      },
      {
        measure: 'load start → last alert evaluated, median',
        value: `${median(alertsDone).toFixed(0)} ms`,
      },
    ]);
  } finally {
    await running.close();
    await new Promise<void>((r) => smtp.close(() => r()));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function demoLoaded(engine: Engine, project: string, email: string) {
  const a = await engine.actor({ email }, project);
  for (let i = 0; i < 1200; i++) {
    const { items: jobs } = await engine.jobs.list(a, { limit: 100, offset: 0 });
    if (jobs.length >= 2 && jobs.every((j) => ['OK', 'ERROR', 'CANCELLED'].includes(j.status))) {
      if (!(await engine.model.get(project, DASH))) throw new Error('no demo dashboard');
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the demo data did not load');
}

await main();
