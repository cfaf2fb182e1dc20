// A spec read into what a chart draws: the categories in order (dates at their grain, bars of
// names tallest first), one series per measure or per value of the second breakdown, and what
// each mark stands for (the values a click filters by, the text a tooltip shows).
import { dateLabel, dateMs, grainOf, groupedNumber } from './format.js';
import type { ChartSpec } from './spec.js';

export interface ChartSeries {
  name: string;
  /** The measure it draws (index into spec.y). */
  measure: number;
  /** The value of the second breakdown it draws, as the result wrote it. */
  colorValue?: string;
  axis: 0 | 1;
  /** One value per category; a scatter of numbers: [x, y] per row. */
  values: (number | null)[] | [number, number][];
}

export interface ChartModel {
  /** Category values as the result wrote them (empty for a scatter of numbers). */
  categories: string[];
  /** What the axis (or a slice) shows for each category. */
  labels: string[];
  series: ChartSeries[];
  /** x is a number: a scatter on two value axes. */
  numericX: boolean;
}

/** One mark: what it filters by (column title → value as written) and what it says. */
export interface ChartMarkInfo {
  values: Record<string, string>;
  /** "Origin Region: West" — the values a click filters by. */
  label: string;
  /** "West · Flights: 12,000" — the tooltip's text. */
  text: string;
}

const num = (s: string | undefined): number | null => {
  const n = s === undefined || s.trim() === '' ? NaN : Number(s);
  return Number.isFinite(n) ? n : null;
};

export function chartModel(spec: ChartSpec): ChartModel {
  // Points on a map: one mark per row (x its label; y latitude, longitude and a size).
  if (spec.mark === 'map' && spec.map?.points) {
    const categories = spec.data.map((r) => r[0] ?? '');
    return {
      categories,
      labels: categories.map((c) => (c === '' ? '(empty)' : c)),
      series: [
        {
          name: (spec.y[2] ?? spec.x).title,
          measure: spec.y[2] ? 2 : 0,
          axis: 0,
          values: spec.data.map((r) => (spec.y[2] ? num(r[3]) : num(r[1]))),
        },
      ],
      numericX: false,
    };
  }
  const ny = spec.y.length;
  const ci = 1 + ny; // the color column
  if (spec.x.type === 'quantitative' && spec.mark === 'point') {
    const groups = spec.color ? [...new Set(spec.data.map((r) => r[ci] ?? ''))] : [undefined];
    const series = groups.flatMap((g) =>
      spec.y.map((y, k): ChartSeries => ({
        name: g ?? y.title,
        measure: k,
        ...(g !== undefined ? { colorValue: g } : {}),
        axis: 0,
        values: spec.data.flatMap((r): [number, number][] => {
          const [a, b] = [num(r[0]), num(r[1 + k])];
          return (g === undefined || r[ci] === g) && a !== null && b !== null ? [[a, b]] : [];
        }),
      })),
    );
    return { categories: [], labels: [], series, numericX: true };
  }

  let categories = [...new Set(spec.data.map((r) => r[0] ?? ''))];
  if (spec.x.type === 'temporal') categories.sort((a, b) => dateMs(a) - dateMs(b));
  else if (spec.x.type === 'ordinal' || spec.x.type === 'quantitative')
    categories.sort((a, b) => (num(a) ?? 0) - (num(b) ?? 0) || a.localeCompare(b));
  const at = new Map(categories.map((c, i) => [c, i]));
  const column = (k: number, keep: (r: string[]) => boolean) => {
    const out: (number | null)[] = categories.map(() => null);
    for (const r of spec.data) if (keep(r)) out[at.get(r[0] ?? '')!] = num(r[1 + k]);
    return out;
  };
  const series: ChartSeries[] = spec.color
    ? [...new Set(spec.data.map((r) => r[ci] ?? ''))].map((g) => ({
        name: g,
        measure: 0,
        colorValue: g,
        axis: 0,
        values: column(0, (r) => r[ci] === g),
      }))
    : spec.y.map((y, k) => ({
        name: y.title,
        measure: k,
        axis: spec.dual && k === 1 ? 1 : 0,
        values: column(k, () => true),
      }));
  // Bars of names read tallest first (a year or a date keeps its order).
  if (spec.mark === 'bar' && spec.x.type === 'nominal') {
    const total = (i: number) =>
      series.reduce((s, x) => s + (x.axis === 0 ? ((x.values[i] as number | null) ?? 0) : 0), 0);
    const order = categories.map((_, i) => i).sort((a, b) => total(b) - total(a) || a - b);
    categories = order.map((i) => categories[i]!);
    for (const s of series) s.values = order.map((i) => s.values[i] as number | null);
  }
  const grain = spec.x.type === 'temporal' ? grainOf(categories) : undefined;
  const labels = categories.map((c) => (grain ? dateLabel(c, grain) : c === '' ? '(empty)' : c));
  return { categories, labels, series, numericX: false };
}

/** What the mark of series `s` at `index` stands for; undefined when nothing is there. */
export function markInfo(
  spec: ChartSpec,
  model: ChartModel,
  s: number,
  index: number,
): ChartMarkInfo | undefined {
  const series = model.series[s];
  if (!series) return undefined;
  const values: Record<string, string> = {};
  let value: number | null;
  let where: string;
  if (model.numericX) {
    const p = (series.values as [number, number][])[index];
    if (!p) return undefined;
    value = p[1];
    where = `${spec.x.title}: ${groupedNumber(p[0])}`;
  } else {
    if (index < 0 || index >= model.categories.length) return undefined;
    value = (series.values as (number | null)[])[index] ?? null;
    values[spec.x.title] = model.categories[index]!;
    where = model.labels[index]!;
  }
  if (spec.color && series.colorValue !== undefined) values[spec.color.title] = series.colorValue;
  const label = Object.entries(values)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
  if (spec.map?.points) {
    const r = spec.data[index]!;
    const at = `${where} (${r[1]}, ${r[2]})`;
    const size = spec.y[2]
      ? ` · ${spec.y[2].title}: ${value === null ? '–' : groupedNumber(value)}`
      : '';
    return { values, label, text: `${at}${size}` };
  }
  const measure = spec.y[series.measure]!.title;
  // A gauge of a result with no dimension: its one value is all there is to say.
  if (spec.mark === 'gauge' && spec.x.title === measure)
    return {
      values: {},
      label: '',
      text: `${measure}: ${value === null ? '–' : groupedNumber(value)}`,
    };
  const name = spec.color ? `${series.name} · ${measure}` : measure;
  const text = `${where} · ${name}: ${value === null ? '–' : groupedNumber(value)}`;
  return { values, label, text };
}
