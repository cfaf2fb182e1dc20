// bench:http — requests/s and p99 latency of an authenticated GET /api/v1/projects against a
// bare express hello-world, measured in the same run (servers in child processes, load from
// this one), printed as ratios. Goal: Ursa ≥ 0.5× the baseline's requests/s.
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import autocannon from 'autocannon';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

interface Target {
  url: string;
  headers: Record<string, string>;
  child: ChildProcess;
}

async function startTarget(kind: 'ursa' | 'express'): Promise<Target> {
  const child = spawn(process.execPath, ['bin/run.mjs', 'bench/http-target.ts', kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, URSA_LOG_LEVEL: process.env.URSA_LOG_LEVEL ?? 'info' },
  });
  const rl = readline.createInterface({ input: child.stdout! });
  for await (const line of rl) {
    if (line.startsWith('{"url"')) {
      // Keep draining the child's stdout (its request log) so it never blocks on a full pipe.
      child.stdout!.resume();
      return { ...(JSON.parse(line) as { url: string; headers: Record<string, string> }), child };
    }
  }
  throw new Error(`${kind} target exited before it was ready`);
}

async function load(t: Target) {
  const r = await autocannon({
    url: t.url,
    headers: t.headers,
    connections: CONNECTIONS,
    duration: DURATION,
  });
  if (r.non2xx > 0 || r.errors > 0)
    throw new Error(`${t.url}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  return { rps: r.requests.average, p99: r.latency.p99 };
}

const ursa = await startTarget('ursa');
const base = await startTarget('express');
try {
  // Warm both (JIT, token cache) before measuring; then alternate so drift hits both equally.
  await autocannon({ url: ursa.url, headers: ursa.headers, connections: CONNECTIONS, duration: 2 });
  await autocannon({ url: base.url, headers: base.headers, connections: CONNECTIONS, duration: 2 });
  const rows: {
    round: number;
    ursaRps: number;
    baseRps: number;
    ursaP99: number;
    baseP99: number;
  }[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const u = await load(ursa);
    const b = await load(base);
    rows.push({ round, ursaRps: u.rps, baseRps: b.rps, ursaP99: u.p99, baseP99: b.p99 });
  }
  const sum = (k: keyof (typeof rows)[number]) => rows.reduce((a, r) => a + r[k], 0) / rows.length;
  const rpsRatio = sum('ursaRps') / sum('baseRps');
  console.log(
    `\nbench:http — ${CONNECTIONS} connections, ${ROUNDS} × ${DURATION} s each, same machine, same run`,
  );
  console.table(
    rows.map((r) => ({ ...r, ursaRps: Math.round(r.ursaRps), baseRps: Math.round(r.baseRps) })),
  );
  console.log(
    `GET /api/v1/projects (authenticated): ${Math.round(sum('ursaRps'))} req/s, p99 ${sum('ursaP99').toFixed(1)} ms`,
  );
  console.log(
    `express hello-world baseline:         ${Math.round(sum('baseRps'))} req/s, p99 ${sum('baseP99').toFixed(1)} ms`,
  );
  console.log(
    `ratio requests/s: ${rpsRatio.toFixed(2)}× (goal ≥ 0.5×) ${rpsRatio >= 0.5 ? 'PASS' : 'BELOW GOAL'}`,
  );
  console.log(`ratio p99: ${(sum('ursaP99') / sum('baseP99')).toFixed(2)}× the baseline's latency`);
} finally {
  ursa.child.kill('SIGTERM');
  base.child.kill('SIGTERM');
}
