// Conditional formatting of a table's cells (`visualization.conditional`): colour scales and
// thresholds. The engine resolves the rules against a result once (column positions, each
// scale's min and max over every row); `cellStyle` then colours one cell from its value, and
// is the one function the app, the pages, the PDF and the XLSX all call, so the same cells
// are coloured everywhere. Colours are only `#rrggbb`: nothing a page could have injected.

/** A colour as rules hold it: `#rrggbb`. */
export const COLOR = /^#[0-9a-fA-F]{6}$/;

export const THRESHOLD_OPS = ['>', '>=', '<', '<=', '=', 'between'] as const;
export type ThresholdOp = (typeof THRESHOLD_OPS)[number];

/** A rule as saved: its column by title or 1-based position. */
export type ConditionalRule =
  | { column: string | number; type: 'scale'; colors: string[] }
  | {
      column: string | number;
      type: 'threshold';
      op: ThresholdOp;
      value: number;
      /** The upper end of `between` (both ends included). */
      to?: number;
      background?: string;
      color?: string;
    };

/** A rule resolved against a result: its column's position, a scale's domain. */
export type ResolvedRule =
  | { column: number; type: 'scale'; colors: string[]; min: number; max: number }
  | {
      column: number;
      type: 'threshold';
      op: ThresholdOp;
      value: number;
      to?: number;
      background?: string;
      color?: string;
    };

export interface CellStyle {
  background?: string;
  color?: string;
}

const rgb = (hex: string): [number, number, number] => [
  parseInt(hex.slice(1, 3), 16),
  parseInt(hex.slice(3, 5), 16),
  parseInt(hex.slice(5, 7), 16),
];
const hex = (c: number[]) =>
  `#${c
    .map((v) =>
      Math.round(Math.min(255, Math.max(0, v)))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;

/** The colour at t (0…1) along the scale's two or three colours. */
function along(colors: string[], t: number): string {
  const stops = colors.map(rgb);
  const span = stops.length - 1;
  const at = Math.min(span - 1, Math.floor(t * span));
  const local = t * span - at;
  const [a, b] = [stops[at]!, stops[at + 1]!];
  return hex(a.map((v, i) => v + (b[i]! - v) * local));
}

/** Dark text on a light background, white on a dark one (WCAG relative luminance). */
function textOn(background: string): string {
  const lin = rgb(background).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const l = 0.2126 * lin[0]! + 0.7152 * lin[1]! + 0.0722 * lin[2]!;
  return l > 0.18 ? '#1d2330' : '#ffffff';
}

const matches = (r: Extract<ResolvedRule, { type: 'threshold' }>, n: number): boolean => {
  switch (r.op) {
    case '>':
      return n > r.value;
    case '>=':
      return n >= r.value;
    case '<':
      return n < r.value;
    case '<=':
      return n <= r.value;
    case '=':
      return n === r.value;
    case 'between':
      return n >= r.value && n <= (r.to ?? r.value);
  }
};

/**
 * The style of the cell in `column` holding `value` (a JSON cell or its text): every rule on
 * that column in order, a later rule's colour over an earlier one's. A scale colours the
 * background (and picks a readable text colour); a cell without a number gets nothing.
 */
export function cellStyle(
  rules: readonly ResolvedRule[] | undefined,
  column: number,
  value: unknown,
): CellStyle | undefined {
  if (!rules?.length || value === null || value === '' || value === undefined) return undefined;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n)) return undefined;
  let out: CellStyle | undefined;
  for (const r of rules) {
    if (r.column !== column) continue;
    if (r.type === 'scale') {
      const t = r.max > r.min ? Math.min(1, Math.max(0, (n - r.min) / (r.max - r.min))) : 0.5;
      out = { ...out, background: along(r.colors, t) };
      delete out.color;
    } else if (matches(r, n)) {
      out = {
        ...out,
        ...(r.background ? { background: r.background } : {}),
        ...(r.color ? { color: r.color } : {}),
      };
    }
  }
  // A background without its own text colour gets a readable one (the theme's may be light).
  if (out?.background && !out.color) out.color = textOn(out.background);
  return out;
}

/** A style as CSS declarations (`background:#…;color:#…`); the colours are `#rrggbb` only. */
export function styleCss(s: CellStyle | undefined): string {
  if (!s) return '';
  const ok = (c: string | undefined) => c !== undefined && COLOR.test(c);
  return [
    ok(s.background) ? `background:${s.background}` : '',
    ok(s.color) ? `color:${s.color}` : '',
  ]
    .filter(Boolean)
    .join(';');
}

/**
 * Rules resolved against a result: each column found by `columnIndex` (which answers the
 * caller's error for a missing one), each scale's min and max over the column's numbers.
 */
export function resolveRules(
  rules: readonly ConditionalRule[],
  columnIndex: (ref: string | number, role: string) => number,
  rows: readonly (readonly unknown[])[],
): ResolvedRule[] {
  return rules.map((r, i) => {
    const column = columnIndex(r.column, `conditional[${i}].column`);
    if (r.type === 'threshold') return { ...r, column };
    let [min, max] = [Infinity, -Infinity];
    for (const row of rows) {
      const v = row[column];
      const n = typeof v === 'number' ? v : v === '' || v === null ? NaN : Number(v);
      if (!Number.isFinite(n)) continue;
      if (n < min) min = n;
      if (n > max) max = n;
    }
    if (min > max) [min, max] = [0, 0];
    return { column, type: 'scale', colors: r.colors, min, max };
  });
}
