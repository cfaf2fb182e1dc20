// What the benchmarks share: medians and quantiles, and comparing two answers as text cells.

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
