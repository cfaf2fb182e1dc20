// bench:flow's data, deterministic: a sales CSV written from a seeded PRNG, a fact and a
// dimension Parquet file written by DuckDB from `range()` and `hash()`, and the pages of a
// paged JSON API (serialized once, served from memory).
import fs from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const REGIONS = [
  'North',
  'South',
  'East',
  'West',
  'Central',
  'Alpine',
  'Coast',
  'Lakes',
  'Plains',
  'Islands',
];
export const PRODUCTS = 1000;
const DAY0 = Date.UTC(2024, 0, 1);

/** `id,region,product,amount,qty,day`: 10 regions, 1,000 products, 2024's days. */
export function writeSalesCsv(file: string, rows: number): void {
  let seed = 20240601;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const days = Array.from({ length: 366 }, (_, d) =>
    new Date(DAY0 + d * 86_400_000).toISOString().slice(0, 10),
  );
  const products = Array.from({ length: PRODUCTS }, (_, i) => `P${String(i + 1).padStart(4, '0')}`);
  const fd = fs.openSync(file, 'w');
  let buf = 'id,region,product,amount,qty,day\n';
  for (let i = 1; i <= rows; i++) {
    const region = REGIONS[Math.floor(rnd() * REGIONS.length)]!;
    const product = products[Math.floor(rnd() * PRODUCTS)]!;
    const amount = (rnd() * 100).toFixed(2);
    const qty = 1 + Math.floor(rnd() * 20);
    buf += `${i},${region},${product},${amount},${qty},${days[Math.floor(rnd() * 366)]}\n`;
    if (buf.length > 1 << 20) {
      fs.writeSync(fd, buf);
      buf = '';
    }
  }
  fs.writeSync(fd, buf);
  fs.closeSync(fd);
}

/**
 * Orders (`rows`: order_id, customer_id, product, amount, qty, day) referencing customers
 * (`customers`: customer_id, name, segment, country, since), both Parquet.
 */
export async function writeJoinParquet(
  fact: string,
  dim: string,
  rows: number,
  customers: number,
): Promise<void> {
  const db = await DuckDBInstance.create(':memory:', { threads: '2' });
  const c = await db.connect();
  try {
    await c.run(`COPY (
      SELECT i AS order_id,
             CAST(hash(i, 'c') % ${customers} AS BIGINT) + 1 AS customer_id,
             'P' || lpad(CAST(hash(i, 'p') % ${PRODUCTS} + 1 AS VARCHAR), 4, '0') AS product,
             round(CAST(hash(i, 'a') % 1000000 AS DOUBLE) / 10000, 2) AS amount,
             CAST(hash(i, 'q') % 20 + 1 AS INTEGER) AS qty,
             DATE '2024-01-01' + CAST(hash(i, 'd') % 366 AS INTEGER) AS day
      FROM range(1, ${rows + 1}) t(i)) TO '${fact}' (FORMAT parquet)`);
    await c.run(`COPY (
      SELECT i AS customer_id,
             'Customer ' || i AS name,
             ['Consumer', 'Corporate', 'Home office', 'Small business', 'Public'][CAST(hash(i, 's') % 5 + 1 AS INTEGER)] AS segment,
             'Country ' || CAST(hash(i, 'k') % 30 + 1 AS VARCHAR) AS country,
             DATE '2015-01-01' + CAST(hash(i, 'y') % 3000 AS INTEGER) AS since
      FROM range(1, ${customers + 1}) t(i)) TO '${dim}' (FORMAT parquet)`);
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

/** `pages` pages of `perPage` JSON records each, serialized once; then one empty page. */
export function apiPages(pages: number, perPage: number): Buffer[] {
  let seed = 777;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const cats = ['tools', 'garden', 'kitchen', 'toys', 'books', 'audio', 'sports', 'office'];
  const out: Buffer[] = [];
  for (let p = 0; p < pages; p++) {
    const records = [];
    for (let i = 0; i < perPage; i++) {
      const id = p * perPage + i + 1;
      records.push({
        id,
        sku: `SKU-${String(id).padStart(7, '0')}`,
        name: `Item ${id}`,
        category: cats[Math.floor(rnd() * cats.length)],
        qty: Math.floor(rnd() * 500),
        price: Math.round(rnd() * 100_000) / 100,
        active: rnd() < 0.9,
        updated: new Date(Date.UTC(2024, 0, 1) + Math.floor(rnd() * 366 * 86_400) * 1000)
          .toISOString()
          .slice(0, 19),
      });
    }
    out.push(Buffer.from(JSON.stringify(records)));
  }
  out.push(Buffer.from('[]'));
  return out;
}
