// docs/aql.md is executable: every ```aql block runs on the demo project over REST
// (execute → job OK → data) and must answer at least one column; a markdown table right after
// a block is its exact result; every ```aql-error block must be refused with 400 and a
// message holding the text of its `-- error:` line. The ```json block of saved metrics and
// filters is created first, as the doc says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFinal, jobsPath, pollJob, sleep, type JobJson } from './helpers/jobs.js';
import { errors, firstLine, queries, setup } from './helpers/aql-docs.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/** Waits until the demo project's two load jobs have ended, and checks they succeeded. */
async function demoLoaded(s: TestServer): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const r = await s.api('GET', `${jobsPath(s.demo)}?type=transform`);
    expect(r.status, r.text).toBe(200);
    const jobs = r.json.jobs as JobJson[];
    if (jobs.length === 2 && jobs.every(isFinal)) {
      for (const j of jobs) expect(j.status, j.message).toBe('OK');
      return;
    }
    if (Date.now() > deadline) throw new Error(`demo jobs not finished: ${r.text}`);
    await sleep(100);
  }
}

describe('docs/aql.md', () => {
  let s: TestServer;
  const aql = (path: string) => `/projects/${s.demo}/app/aql/${path}`;

  beforeAll(async () => {
    s = await startTestServer({ URSA_DEMO_DATA: 'true' });
    await demoLoaded(s);
    for (const objects of setup) {
      const r = await s.api('POST', `/projects/${s.demo}/pmd/obj`, { body: objects });
      expect(r.status, r.text).toBe(201);
    }
  }, 120_000);
  afterAll(() => s?.close());

  it('has examples of both kinds and the saved objects they use', () => {
    expect(queries.length).toBeGreaterThanOrEqual(25);
    expect(errors.length).toBeGreaterThanOrEqual(15);
    expect(setup).toHaveLength(1);
    for (const b of errors) expect(b.text, firstLine(b)).toMatch(/^-- error: \S/m);
  });

  it.each(queries.map((b) => [firstLine(b), b] as const))('runs %s', async (_, b) => {
    const r = await s.api('POST', aql('execute'), { body: { aql: b.text } });
    expect(r.status, r.text).toBe(201);
    const jobId = (r.json.link as { rel: string; id: string }[]).find(
      (l) => l.rel === 'scache.created',
    )!.id;
    const job = await pollJob(s.api, s.demo, jobId, isFinal, { timeoutMs: 20_000 });
    expect(job.status, job.message).toBe('OK');
    const d = await s.api('GET', aql(`data/${jobId}`));
    expect(d.status, d.text).toBe(200);
    const titles = (d.json.data.visual.column as { title: string }[]).map((c) => c.title);
    expect(titles.length).toBeGreaterThanOrEqual(1);
    if (b.table) {
      const values = d.json.data.values as string;
      const rows = values === '' ? [] : values.split('\n').map((row) => row.split('\t'));
      expect([titles, ...rows]).toEqual(b.table);
    }
  });

  it.each(errors.map((b) => [firstLine(b), b] as const))('refuses %s', async (_, b) => {
    const expected = /^-- error: (.*)$/m.exec(b.text)![1]!.trim();
    const r = await s.api('POST', aql('execute'), { body: { aql: b.text } });
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toContain(expected);
    expect(r.json.context).toMatchObject({ line: expect.any(Number), column: expect.any(Number) });
  });
});
