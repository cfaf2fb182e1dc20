// A metric's `format` (a display hint such as `#,##0.00`, `0.0%`, `$#,##0,"K"`): the
// spreadsheet number patterns people already write. Text outside the digits (currency signs,
// quoted units) is kept; `,` between digits groups thousands, trailing `,` divide by 1000, `%`
// multiplies by 100; `0` after the point is a fixed decimal, `#` an optional one; a second
// `;` section formats negative numbers (without their sign). Values that are not numbers, and
// patterns without digits, are shown as they are.

interface Section {
  prefix: string;
  suffix: string;
  group: boolean;
  scale: number;
  minInt: number;
  fixed: number;
  optional: number;
}

const cache = new Map<string, Section[] | null>();
const CORE = /[#0,]*[#0](?:\.[#0]*)?,*|\.[#0]+,*/;

function literal(text: string): string {
  // Quoted runs are kept without their quotes; `\x` is x; everything else as written.
  return text.replace(/"([^"]*)"|\\(.)/g, (_m, quoted: string | undefined, ch: string) =>
    quoted !== undefined ? quoted : ch,
  );
}

function parseSection(text: string): Section | null {
  // The digits must not be found inside a quoted run.
  const unquoted = text.replace(/"[^"]*"/g, (m) => ' '.repeat(m.length));
  const m = CORE.exec(unquoted);
  if (!m) return null;
  const core = m[0];
  const prefix = literal(text.slice(0, m.index));
  const suffix = literal(text.slice(m.index + core.length));
  const trailingCommas = /,*$/.exec(core)![0].length;
  const body = core.slice(0, core.length - trailingCommas);
  const [intPart = '', decPart = ''] = body.split('.');
  const percent = (prefix + suffix).includes('%') ? 100 : 1;
  return {
    prefix,
    suffix,
    group: intPart.includes(','),
    scale: percent / 1000 ** trailingCommas,
    minInt: (intPart.match(/0/g) ?? []).length,
    fixed: (decPart.match(/0/g) ?? []).length,
    optional: (decPart.match(/#/g) ?? []).length,
  };
}

function sections(pattern: string): Section[] | null {
  if (cache.has(pattern)) return cache.get(pattern)!;
  const parts = pattern
    .split(/;(?=(?:[^"]*"[^"]*")*[^"]*$)/)
    .slice(0, 2)
    .map(parseSection);
  const out = parts.every((p): p is Section => p !== null) ? parts : null;
  if (cache.size > 1000) cache.clear();
  cache.set(pattern, out);
  return out;
}

function digits(n: number, s: Section): string {
  const decimals = s.fixed + s.optional;
  let text = n.toFixed(decimals);
  if (s.optional > 0) {
    // Optional decimals drop their trailing zeros, down to the fixed ones.
    const [i, d = ''] = text.split('.');
    let dec = d;
    while (dec.length > s.fixed && dec.endsWith('0')) dec = dec.slice(0, -1);
    text = dec ? `${i}.${dec}` : i!;
  }
  const [whole = '', dec] = text.split('.');
  let int = whole;
  if (s.minInt === 0 && int === '0' && dec) int = '';
  int = int.padStart(s.minInt, '0');
  if (s.group) int = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return dec ? `${int}.${dec}` : int;
}

/** `value` (a result cell) shown with `pattern`; the cell itself when either does not apply. */
export function formatNumber(value: string, pattern: string | undefined | null): string {
  if (!pattern || value.trim() === '') return value;
  const n = Number(value);
  if (!Number.isFinite(n)) return value;
  const secs = sections(pattern);
  if (!secs) return value;
  const negative = n < 0;
  const own = negative && secs.length > 1;
  const s = own ? secs[1]! : secs[0]!;
  const scaled = Math.abs(n) * s.scale;
  const shown = digits(scaled, s);
  const zero = /^[0.,]*$/.test(shown);
  const sign = negative && !own && !zero ? '-' : '';
  return `${sign}${s.prefix}${shown}${s.suffix}`;
}

/** A number without a pattern: grouped, at most two decimals (KPIs, chart-less tables). */
export function defaultNumber(value: string): string {
  return formatNumber(value, Number.isInteger(Number(value)) ? '#,##0' : '#,##0.##');
}

/**
 * `pattern` as a spreadsheet number format (an XLSX `numFmt`) that shows what formatNumber
 * shows: the digits as parsed, the text around them quoted (so a unit such as `mi` is not
 * read as minutes), `%` left unquoted so the spreadsheet scales by 100 as formatNumber does.
 * null: a pattern formatNumber does not apply.
 */
export function spreadsheetFormat(pattern: string | undefined | null): string | null {
  const secs = pattern ? sections(pattern) : null;
  if (!secs) return null;
  const text = (t: string) =>
    t
      .split('%')
      .map((part) => (part ? `"${part.replace(/"/g, '\\"')}"` : ''))
      .join('%');
  return secs
    .map((s) => {
      const percent = (s.prefix + s.suffix).includes('%') ? 100 : 1;
      const thousands = Math.round(Math.log(percent / s.scale) / Math.log(1000));
      const int = s.minInt > 0 ? '0'.repeat(s.minInt) : '#';
      const core =
        (s.group ? `#,${int.padStart(3, '#')}` : int) +
        (s.fixed + s.optional ? `.${'0'.repeat(s.fixed)}${'#'.repeat(s.optional)}` : '') +
        ','.repeat(Math.max(0, thousands));
      return `${text(s.prefix)}${core}${text(s.suffix)}`;
    })
    .join(';');
}
