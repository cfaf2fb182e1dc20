// Result cells as text: numbers without trailing zeros or exponent for ordinary magnitudes,
// dates as YYYY-MM-DD, null as an empty cell.

export function formatCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return formatNumber(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') {
    // DuckDB's JSON form gives big integers and decimals as strings.
    if (/^-?\d+\.\d+$/.test(v)) return v.replace(/\.?0+$/, '');
    return v;
  }
  return JSON.stringify(v);
}

export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? '' : n > 0 ? 'Infinity' : '-Infinity';
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return n.toFixed(0);
  // 15 significant digits hide binary noise (0.1 + 0.2 → 0.3).
  // JavaScript writes 1e-6 ≤ |n| < 1e21 without an exponent and without trailing zeros.
  const rounded = Number(n.toPrecision(15));
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

/** The spec's values: rows joined by "\n", cells by "\t" (tabs and line breaks in cells become spaces). */
export function toValues(rows: string[][]): string {
  return rows.map((r) => r.map((c) => c.replace(/[\t\r\n]/g, ' ')).join('\t')).join('\n');
}
