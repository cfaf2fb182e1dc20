// What the benchmarks share: medians and quantiles, comparing two answers as text cells, and
// starting the server in-process.
import path from 'node:path';
import { loadConfig } from '../src/engine/config.js';
import { createLogger } from '../src/engine/logger.js';
import { startServer } from '../src/server.js';

export const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export const quantile = (xs: number[], q: number): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

/** Cells equal as text, numbers within a relative 1e-9 (parallel float sums differ in the last bits). */
export function sameRows(a: string[][], b: string[][]): string | null {
  if (a.length !== b.length) return `${a.length} rows vs ${b.length}`;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.length !== y.length) return `row ${i}: ${x.length} cells vs ${y.length}`;
    for (let j = 0; j < x.length; j++) {
      if (x[j] === y[j]) continue;
      // A nested cell (NEST): the same JSON whatever the spacing the database writes it with.
      if (x[j]!.startsWith('[') && y[j]!.startsWith('[')) {
        const diff = sameJson(x[j]!, y[j]!);
        if (diff) return `row ${i} cell ${j}: ${diff}`;
        continue;
      }
      const p = Number(x[j]);
      const q = Number(y[j]);
      const close =
        x[j] !== '' &&
        y[j] !== '' &&
        Math.abs(p - q) <= 1e-9 * Math.max(1, Math.abs(p), Math.abs(q));
      if (!close) return `row ${i} cell ${j}: ${x[j]} vs ${y[j]}`;
    }
  }
  return null;
}

/** Two JSON texts with the same value (numbers within 1e-9 relative); null when they are. */
function sameJson(a: string, b: string): string | null {
  let x: unknown;
  let y: unknown;
  try {
    [x, y] = [JSON.parse(a), JSON.parse(b)];
  } catch {
    return `${a} vs ${b}`;
  }
  const same = (p: unknown, q: unknown): boolean =>
    typeof p === 'number' && typeof q === 'number'
      ? Math.abs(p - q) <= 1e-9 * Math.max(1, Math.abs(p), Math.abs(q))
      : Array.isArray(p) && Array.isArray(q)
        ? p.length === q.length && p.every((v, i) => same(v, q[i]))
        : p && q && typeof p === 'object' && typeof q === 'object'
          ? JSON.stringify(Object.keys(p)) === JSON.stringify(Object.keys(q)) &&
            Object.keys(p).every((k) => same((p as never)[k], (q as never)[k]))
          : p === q;
  return same(x, y) ? null : `${a} vs ${b}`;
}

/** The whole server in-process on a loopback port, with an empty data directory under `dir`. */
export async function startBenchServer(dir: string, env: Record<string, string> = {}) {
  const config = loadConfig({
    ...process.env,
    URSA_DATA_DIR: path.join(dir, 'data'),
    PORT: '0',
    HOST: '127.0.0.1',
    URSA_DEMO_DATA: 'false',
    URSA_DEFAULT_PLAN: 'enterprise',
    URSA_LOG_LEVEL: process.env.URSA_LOG_LEVEL ?? 'warn',
    ...env,
  });
  return { config, running: await startServer(config, createLogger(config.logLevel), false) };
}

/** Median compile time of `aql`, back to back with the compile cache cleared (after 50 warm-ups). */
export function hotCompileMs(
  aqlService: { clearCompileCache(): void; compile(a: never, text: string): unknown },
  actor: unknown,
  aql: string,
  times: number,
): number {
  const xs: number[] = [];
  for (let i = 0; i < times + 50; i++) {
    aqlService.clearCompileCache();
    const t = performance.now();
    aqlService.compile(actor as never, aql);
    if (i >= 50) xs.push(performance.now() - t);
  }
  return median(xs);
}
