// bench:guess — the structure guess of a 1 MB CSV sample (the most a guess reads), against
// DuckDB reading the same bytes alone (sniff_csv, then read_csv of the file into a table in an
// in-memory DuckDB: what any CSV reader of that sample costs). The guess reads through DuckDB
// too (data/guess/csv-sample.ts) and adds Ursa's rules (header, types, roles, key); the ratio
// says what those rules and the round trips cost. Medians of BENCH_ROUNDS (default 15), each
// side in turn. Goal: the guess under 100 ms on a quiet machine.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { guessStructure } from '../src/engine/data/guess.js';
import { median } from './compare.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);

const lines = ['id,name,amount,when,flag'];
for (let i = 0; i < 30000; i++)
  lines.push(
    `${i},"name ${i % 100}",${(i * 1.5).toFixed(2)},2024-01-${String((i % 28) + 1).padStart(2, '0')} 10:00,${i % 2 ? 'yes' : 'no'}`,
  );
const sample = Buffer.from(lines.join('\n')).subarray(0, 1_000_000);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-bench-guess-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
const file = path.join(tmp, 'sample.csv');
fs.writeFileSync(file, sample);

const duck = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await duck.connect();

async function ours(): Promise<number> {
  const t = performance.now();
  const p = await guessStructure(sample, { fileName: 'big.csv', truncated: true });
  const ms = performance.now() - t;
  if (p.columns.length !== 5) throw new Error(`guessed ${p.columns.length} columns, not 5`);
  return ms;
}

async function baseline(): Promise<number> {
  const t = performance.now();
  const f = `'${file.replaceAll("'", "''")}'`;
  await conn.runAndReadAll(`SELECT * FROM sniff_csv(${f})`);
  await conn.run(`CREATE OR REPLACE TABLE s AS SELECT * FROM read_csv(${f}, ignore_errors=true)`);
  return performance.now() - t;
}

await ours(); // warm up the JIT and the guess's DuckDB
await baseline();
const a: number[] = [];
const b: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  if (r % 2) {
    a.push(await ours());
    b.push(await baseline());
  } else {
    b.push(await baseline());
    a.push(await ours());
  }
}
const [ma, mb] = [median(a), median(b)];
console.log(`cores: ${os.availableParallelism()}, ${ROUNDS} rounds, 1 MB sample (30,000 rows)`);
console.log(`guess (ours):             ${ma.toFixed(1)} ms median`);
console.log(`DuckDB sniff + read_csv:  ${mb.toFixed(1)} ms median`);
console.log(`ratio: ${(ma / mb).toFixed(2)}×   goal: guess < 100 ms`);
conn.closeSync();
duck.closeSync();
