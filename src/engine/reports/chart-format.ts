// Numbers on a chart's axes written as the app writes them (src/app/format.ts tickFormat):
// when the axis reaches ten thousand every label is compact (12K, 1.2M), else grouped with at
// most two decimals. Vega's own formats cannot say "compact" (d3's `~s` writes 1.2G), so the
// labels call a registered expression function with the axis's domain.
import * as vega from 'vega';

// The server writes numbers in one style (src/shared/number-format.ts groups with commas): en-US.
const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

/** An axis label: compact when the axis's domain reaches ten thousand. */
export function axisNumber(value: unknown, domain: unknown): string {
  const n = Number(value);
  if (!Number.isFinite(n)) return String(value);
  const big = Array.isArray(domain) && domain.some((d) => Math.abs(Number(d)) >= 10_000);
  return (big ? compact : grouped).format(n);
}

vega.expressionFunction('ursaAxisNumber', axisNumber);

/** The label expression for the axis of scale `x` or `y`. */
export const AXIS_NUMBER = (scale: 'x' | 'y'): string =>
  `ursaAxisNumber(datum.value, domain('${scale}'))`;
