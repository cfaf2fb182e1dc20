// bench:app — the web application (/app) as a person meets it, in the system's Chromium
// against a server started in-process (demo project; the chat answered by the loopback fake
// model, which waits 1 s before each reply so the progress is what is measured). Three goals:
//   size   — dist/app/app.js gzipped ≤ 150 KB (the first load's JavaScript; the bundle is
//            built first);
//   first  — a signed-in member opens /app in a fresh browser context (nothing cached) until
//            the projects list is on screen and clickable, against opening the API's own
//            server-rendered index page (/api/v1) in the same way; goal < 1 s;
//   chat   — from pressing Send to the progress the server reports for the `ai` job (its
//            status, then steps) on screen; against the same question's POST answering over
//            plain fetch in the page; goal < 300 ms.
// Settings: BENCH_APP_ROUNDS (default 15).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type BrowserContext } from 'playwright-core';
import { startFakeLlm } from '../test/helpers/fake-llm.js';
import { median, quantile, startBenchServer } from './compare.js';

const ROUNDS = Number(process.env.BENCH_APP_ROUNDS ?? 15);
const GOAL_GZIP_KB = 150;
const GOAL_FIRST_MS = 1000;
const GOAL_PROGRESS_MS = 300;
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

async function main(): Promise<void> {
  // ---- size -------------------------------------------------------------------------------
  execFileSync('npx', ['tsx', 'scripts/build-app.ts', '--quiet'], { cwd: ROOT, stdio: 'inherit' });
  const js = fs.readFileSync(path.join(ROOT, 'dist/app/app.js'));
  const css = fs.readFileSync(path.join(ROOT, 'dist/app/app.css'));
  const gz = gzipSync(js).length / 1024;
  console.log(
    `\nsize: app.js ${(js.length / 1024).toFixed(1)} KB, ${gz.toFixed(1)} KB gzipped (app.css ${(gzipSync(css).length / 1024).toFixed(1)} KB gzipped); goal ≤ ${GOAL_GZIP_KB} KB ${gz <= GOAL_GZIP_KB ? 'PASS' : 'ABOVE GOAL'}`,
  );

  const llm = await startFakeLlm([], {
    respond: () => ({ text: 'About 42.', delayMs: 1000 }),
  });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-bench-app-'));
  process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
  Object.assign(process.env, {
    URSA_AI_PROVIDER: 'openai',
    URSA_AI_BASE_URL: `${llm.url}/v1`,
    URSA_AI_API_KEY: 'k-bench',
    URSA_AI_MODEL: 'gpt-bench',
    URSA_ADMIN_PASSWORD: 'bench-admin-password-1',
  });
  const { config, running } = await startBenchServer(tmp);
  const browser = await chromium.launch({
    executablePath: config.export.chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-sync'],
  });
  try {
    const project = running.bootstrap.demoProjectId!;
    const login = await fetch(`${running.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ email: config.adminEmail, password: 'bench-admin-password-1' }),
    });
    if (login.status !== 200) throw new Error(`sign-in answered ${login.status}`);
    const [name, value] = login.headers.get('set-cookie')!.split(';')[0]!.split('=') as [
      string,
      string,
    ];
    const cookie = { name, value, url: running.url };
    const fresh = async (): Promise<BrowserContext> => {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await ctx.addCookies([cookie]);
      return ctx;
    };
    const timed = async (open: (ctx: BrowserContext) => Promise<void>) => {
      const ctx = await fresh();
      try {
        const t = performance.now();
        await open(ctx);
        return performance.now() - t;
      } finally {
        await ctx.close();
      }
    };

    // ---- first screen -------------------------------------------------------------------
    const app = (ctx: BrowserContext) =>
      ctx.newPage().then(async (page) => {
        await page.goto(`${running.url}/app`, { waitUntil: 'commit' });
        await page.getByRole('link', { name: /Demo/ }).first().waitFor({ state: 'visible' });
      });
    const index = (ctx: BrowserContext) =>
      ctx.newPage().then(async (page) => {
        await page.goto(`${running.url}/api/v1`, { waitUntil: 'commit' });
        await page.locator('h1').first().waitFor({ state: 'visible' });
      });
    await timed(app);
    await timed(index);
    const ours: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      ours.push(await timed(app));
      base.push(await timed(index));
    }
    const first = median(ours);
    console.log(
      `first: /app to the projects list, fresh context, median ${first.toFixed(0)} ms (p90 ${quantile(ours, 0.9).toFixed(0)}); the API's index page ${median(base).toFixed(0)} ms; ratio ${(first / median(base)).toFixed(2)}× (goal < ${GOAL_FIRST_MS} ms) ${first < GOAL_FIRST_MS ? 'PASS' : 'ABOVE GOAL'}`,
    );

    // ---- chat progress --------------------------------------------------------------------
    const ctx = await fresh();
    const page = await ctx.newPage();
    await page.goto(`${running.url}/app/p/${project}/chat`);
    const box = page.locator('#chat-question');
    await box.waitFor();
    const progress: number[] = [];
    const post: number[] = [];
    for (let i = 0; i < Math.min(ROUNDS, 10); i++) {
      await page.goto(`${running.url}/app/p/${project}/chat`);
      await box.fill(`How many flights? (${i})`);
      const t = performance.now();
      await page.getByRole('button', { name: 'Send' }).click();
      // The job's own state: "waiting to start" or "step n", not the instant "sending".
      await page
        .locator('.chat-progress')
        .getByText(/waiting to start|step \d/)
        .waitFor();
      progress.push(performance.now() - t);
      await page.getByText('About 42.', { exact: true }).waitFor({ timeout: 10_000 });
      post.push(
        await page.evaluate(async (p) => {
          const t0 = performance.now();
          const r = await fetch(`/api/v1/projects/${p}/app/ai/messages`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json' },
            body: JSON.stringify({ question: 'How many flights? (baseline)' }),
          });
          await r.json();
          return performance.now() - t0;
        }, project),
      );
    }
    await ctx.close();
    const shown = median(progress);
    console.log(
      `chat: Send to the job's progress on screen median ${shown.toFixed(0)} ms (p90 ${quantile(progress, 0.9).toFixed(0)}); the question's POST alone ${median(post).toFixed(0)} ms; goal < ${GOAL_PROGRESS_MS} ms ${shown < GOAL_PROGRESS_MS ? 'PASS' : 'ABOVE GOAL'}`,
    );
  } finally {
    await browser.close();
    await running.close();
    await llm.close();
  }
}

await main();
