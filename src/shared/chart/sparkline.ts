// A KPI's sparkline: its periods' values as a polyline in a box, the same on the server's
// pages, PDFs and chat images and in the app. Also the words of the KPI's change.

/** What of a KPI (the API's `kpi`) the change's words need. */
interface KpiChange {
  change?: { value: number; formatted: string; percent: number | null };
  previous?: { period: string };
}

/** The points ("x,y x,y …") of values in a width × height box; a gap (null) is skipped. */
export function sparkPoints(values: (number | null)[], width: number, height: number): string {
  const pad = 3;
  const present = values.filter((v): v is number => v !== null);
  if (present.length < 2) return '';
  const [lo, hi] = [Math.min(...present), Math.max(...present)];
  const x = (i: number) => pad + (i / (values.length - 1)) * (width - 2 * pad);
  const y = (v: number) =>
    hi === lo ? height / 2 : height - pad - ((v - lo) / (hi - lo)) * (height - 2 * pad);
  return values
    .flatMap((v, i) => (v === null ? [] : [`${x(i).toFixed(1)},${y(v).toFixed(1)}`]))
    .join(' ');
}

/** Which way the KPI moved: up, down or flat (no comparison: undefined). */
export const kpiTrend = (k: KpiChange): 'up' | 'down' | 'flat' | undefined =>
  k.change ? (k.change.value > 0 ? 'up' : k.change.value < 0 ? 'down' : 'flat') : undefined;

/** "+1,234 (+5.2%) vs Dec 2025" */
export function kpiChangeText(k: KpiChange): string | undefined {
  if (!k.change || !k.previous) return undefined;
  const p = k.change.percent;
  const pct =
    p === null
      ? ''
      : ` (${p > 0 ? '+' : p < 0 ? '−' : ''}${Math.abs(p).toLocaleString('en-US', { maximumFractionDigits: 1 })}%)`;
  return `${k.change.formatted}${pct} vs ${k.previous.period}`;
}
