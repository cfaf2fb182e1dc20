// Fills the demo project on first start: writes the generated files into its storage
// (/demo/*.csv) and starts the loads as jobs — carriers, airports and flights in one load,
// the calendar package in another — without waiting for them to finish.
import type { Engine } from '../../engine.js';
import type { Job } from '../../jobs/jobs.js';
import { demoDatasets } from './datasets.js';
import { DEMO_FROM, DEMO_TO, generateFlights } from './flights.js';

export async function startDemoLoads(
  engine: Pick<Engine, 'actor' | 'files' | 'loads' | 'packages'>,
  projectId: string,
  email: string,
): Promise<Job[]> {
  const actor = engine.actor({ email }, projectId);
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
  // flights.flight_date declares its reference to `calendar`; whichever job ends last
  // resolves it in the model.
  const calendar = await engine.packages.load(actor, {
    package: 'calendar',
    parameters: { from: DEMO_FROM, to: DEMO_TO },
  });
  return [data, calendar];
}
