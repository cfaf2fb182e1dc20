// Tabular API results as an Excel workbook (.xlsx, Office Open XML): one sheet, the header row
// bold, numbers as numbers and everything else as inline text. With the columns' types, a
// date or date-time is a date (a serial number with a date format) and a measure shows as on
// screen: in its metric's format, else grouped (integers) or with two decimals; the cell keeps
// the whole value. An .xlsx is a zip of a few XML parts; this writes that zip itself (deflate
// from node:zlib), so no dependency is needed. Text is never a formula: cells are values only.
import { crc32, deflateRawSync } from 'node:zlib';
import { spreadsheetFormat } from './number-format.js';

/** What a column holds, for its cells' type and format (a result column). */
export interface SheetColumn {
  dataType: string;
  /** `measure` or `dimension`: only measures are grouped and rounded for show. */
  kind?: string;
  /** A metric's display format (a spreadsheet pattern, shared/number-format.ts). */
  format?: string;
}

/** Plain decimal, no leading zero ("007" is a code), no exponent. */
const DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?$/;
/** A number when a double holds it exactly as written (as the API's JSON cells are). */
const isNumber = (s: string) => DECIMAL.test(s) && String(Number(s)) === s;

// XML 1.0 cannot carry most control characters even escaped: they are dropped.
// eslint-disable-next-line no-control-regex -- control characters are what it removes
const NOT_XML = /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/g;

const esc = (s: string) =>
  s
    .replace(NOT_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/** A1-style column letters: 0 → A, 25 → Z, 26 → AA. */
function column(i: number): string {
  let s = '';
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26))
    s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

// Styles (cellXfs) every workbook has: 0 plain, 1 the bold header; then one per format used.
const HEADER_STYLE = 1;
const DATE = 'yyyy-mm-dd';
const DATE_TIME = 'yyyy-mm-dd hh:mm:ss';
/** Built-in formats: ids Excel knows without a numFmt entry. */
const BUILT_IN: Record<string, number> = { '#,##0': 3, '#,##0.00': 4 };

const DAY_MS = 86_400_000;
/** Days from Excel's day 0 (1899-12-30, counting its 1900 leap day) to 1970-01-01. */
const EPOCH_SERIAL = 25_569;
const DATE_TEXT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]00:?00)?)?$/;

/** A date or date-time cell's text as Excel's serial number; null when it is not one. */
export function serialOf(text: string): number | null {
  const m = DATE_TEXT.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = ''] = m;
  const ms = Date.UTC(+y!, +mo! - 1, +d!, +h, +mi, +sec, Math.round(Number(frac || 0) * 1000));
  const day = new Date(ms);
  if (day.getUTCMonth() !== +mo! - 1 || day.getUTCDate() !== +d!) return null; // 2024-02-30
  const serial = ms / DAY_MS + EPOCH_SERIAL;
  return serial >= 1 ? Number(serial.toFixed(8)) : null; // before 1900: text
}

/**
 * The number format a column's cells get (null: none, General or text), and the one its
 * fractions get: a measure without a metric format shows as the app shows it, a whole number
 * grouped (1,234), a fraction with two decimals.
 */
function formatOf(t: SheetColumn | undefined): [whole: string | null, fraction: string | null] {
  if (!t) return [null, null];
  if (t.dataType === 'date') return [DATE, DATE];
  if (t.dataType === 'datetime') return [DATE_TIME, DATE_TIME];
  if (t.kind !== 'measure' || (t.dataType !== 'integer' && t.dataType !== 'number'))
    return [null, null];
  const own = spreadsheetFormat(t.format);
  return own ? [own, own] : ['#,##0', '#,##0.00'];
}

/** A cell's colours (a table's conditional formatting): `#rrggbb`. */
export interface CellPaint {
  background?: string;
  color?: string;
}
/** The colours of the cell at (row, column) of the data, if any. */
export type Painter = (row: number, column: number) => CellPaint | undefined;

/**
 * Cell styles with colours: each (style, colours) used gets a cell style of its own after the
 * plain ones, with its fill and font.
 */
class Painted {
  readonly fills: string[] = [];
  readonly fonts: string[] = [];
  readonly xfs: { base: number; fill: number; font: number }[] = [];
  private readonly ids = new Map<string, number>();
  constructor(private readonly first: number) {}

  id(base: number, paint: CellPaint | undefined): number {
    const bg =
      paint?.background && /^#[0-9a-f]{6}$/i.test(paint.background) ? paint.background : '';
    const fg = paint?.color && /^#[0-9a-f]{6}$/i.test(paint.color) ? paint.color : '';
    if (!bg && !fg) return base;
    const key = `${base}/${bg}/${fg}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      const at = (list: string[], v: string) => {
        if (!v) return -1;
        const i = list.indexOf(v);
        return i >= 0 ? i : list.push(v) - 1;
      };
      this.xfs.push({ base, fill: at(this.fills, bg), font: at(this.fonts, fg) });
      id = this.first + this.xfs.length - 1;
      this.ids.set(key, id);
    }
    return id;
  }
}

const argb = (hex: string) => `FF${hex.slice(1).toUpperCase()}`;

/** A cell; `style` is its column's, `fraction` the one a number with a fraction gets. */
function cell(
  value: unknown,
  ref: string,
  whole: number,
  fraction: number,
  date: boolean,
  paint: (style: number) => number = (n) => n,
): string {
  if (value === null || value === undefined || value === '') return '';
  const style = paint(whole);
  fraction = paint(fraction);
  const s = style ? ` s="${style}"` : '';
  if (typeof value === 'number' && Number.isFinite(value))
    return `<c r="${ref}"${Number.isInteger(value) ? s : ` s="${fraction}"`}><v>${value}</v></c>`;
  if (typeof value === 'bigint') return cell(value.toString(), ref, style, fraction, date);
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'object'
        ? JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))
        : String(value);
  const serial = date ? serialOf(text) : null;
  if (serial !== null) return `<c r="${ref}"${s}><v>${serial}</v></c>`;
  if (!date && isNumber(text))
    return `<c r="${ref}"${/[.eE]/.test(text) ? ` s="${fraction}"` : s}><v>${text}</v></c>`;
  return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${esc(text)}</t></is></c>`;
}

/** How wide a column shows its title and cells (in characters, as Excel measures widths). */
function widthOf(title: string, rows: unknown[][], i: number, format: string | null): number {
  let w = title.length;
  const shown = format === DATE ? 10 : format === DATE_TIME ? 19 : 0;
  for (const r of rows.slice(0, 1000)) {
    const v = r[i];
    if (v === null || v === undefined) continue;
    // A formatted number gains separators and decimals: a little wider than its digits.
    const n = shown || String(v).length + (typeof v === 'number' && format ? 4 : 0);
    if (n > w) w = n;
  }
  return Math.min(60, Math.ceil(w) + 2);
}

function sheetXml(
  columns: string[],
  rows: unknown[][],
  styles: [whole: number, fraction: number][],
  formats: (string | null)[],
  painter?: Painter,
  painted?: Painted,
): string {
  const dates = formats.map((f) => f === DATE || f === DATE_TIME);
  const line = (cells: readonly unknown[], r: number) =>
    `<row r="${r}">${columns
      .map((_, i) => {
        const paint = painter?.(r - 2, i);
        const restyle = paint && painted ? (n: number) => painted.id(n, paint) : undefined;
        return cell(cells[i], `${column(i)}${r}`, styles[i]![0], styles[i]![1], dates[i]!, restyle);
      })
      .join('')}</row>`;
  // The header row is always text, even a column titled "2024".
  const head = `<row r="1">${columns
    .map(
      (c, i) =>
        `<c r="${column(i)}1" s="${HEADER_STYLE}" t="inlineStr"><is><t>${esc(c)}</t></is></c>`,
    )
    .join('')}</row>`;
  const cols = columns
    .map(
      (c, i) =>
        `<col min="${i + 1}" max="${i + 1}" width="${widthOf(c, rows, i, formats[i]!)}" customWidth="1"/>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${columns.length ? `<cols>${cols}</cols>` : ''}<sheetData>${head}${rows
    .map((r, i) => line(r, i + 2))
    .join('')}</sheetData></worksheet>`;
}

/**
 * The styles part: the plain and header styles, then one cell style per number format, then
 * the painted ones (a number format's style with a fill, a font colour or both).
 */
function stylesXml(used: string[], painted?: Painted): string {
  const custom = used.filter((f) => !(f in BUILT_IN));
  const idOf = (f: string) => BUILT_IN[f] ?? 164 + custom.indexOf(f);
  const xf = (numFmt: number, font = 0, fill = 0) =>
    `<xf numFmtId="${numFmt}" fontId="${font}" fillId="${fill}" borderId="0" xfId="0"${numFmt ? ' applyNumberFormat="1"' : ''}${font ? ' applyFont="1"' : ''}${fill ? ' applyFill="1"' : ''}/>`;
  const fmtOf = (style: number) => (style < 2 ? 0 : idOf(used[style - 2]!));
  const xfs = painted?.xfs ?? [];
  const fills = painted?.fills ?? [];
  const fonts = painted?.fonts ?? [];
  const paintedXfs = xfs
    .map((p) =>
      xf(
        fmtOf(p.base),
        p.font >= 0 ? 2 + p.font : p.base === HEADER_STYLE ? 1 : 0,
        p.fill >= 0 ? 2 + p.fill : 0,
      ),
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${
    custom.length
      ? `<numFmts count="${custom.length}">${custom.map((f) => `<numFmt numFmtId="${idOf(f)}" formatCode="${esc(f)}"/>`).join('')}</numFmts>`
      : ''
  }<fonts count="${2 + fonts.length}"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font>${fonts.map((c) => `<font><color rgb="${argb(c)}"/><sz val="11"/><name val="Calibri"/></font>`).join('')}</fonts><fills count="${2 + fills.length}"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill>${fills.map((c) => `<fill><patternFill patternType="solid"><fgColor rgb="${argb(c)}"/><bgColor indexed="64"/></patternFill></fill>`).join('')}</fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="${2 + used.length + xfs.length}">${xf(0)}${xf(0, 1)}${used.map((f) => xf(idOf(f))).join('')}${paintedXfs}</cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`;
}

/** A sheet name Excel accepts: ≤ 31 characters, none of []:*?/\ . */
const sheetName = (s: string) => s.replace(/[[\]:*?/\\]/g, ' ').slice(0, 31) || 'Data';

/**
 * The workbook of `rows` under `columns`; `types` (one per column, optional) makes dates dates
 * and gives measures their number format; `paint` colours cells (conditional formatting).
 */
export function toXlsx(
  columns: string[],
  rows: unknown[][],
  name = 'Data',
  types: (SheetColumn | undefined)[] = [],
  paint?: Painter,
): Buffer {
  const both = columns.map((_, i) => formatOf(types[i]));
  const formats = both.map(([whole]) => whole);
  const used = [...new Set(both.flat().filter((f): f is string => f !== null))];
  const styleOf = (f: string | null) => (f === null ? 0 : 2 + used.indexOf(f));
  const styles = both.map(([w, f]) => [styleOf(w), styleOf(f)] as [number, number]);
  const painted = paint ? new Painted(2 + used.length) : undefined;
  const parts: [string, string][] = [
    [
      '[Content_Types].xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`,
    ],
    [
      '_rels/.rels',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [
      'xl/workbook.xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="${esc(sheetName(name))}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`,
    ],
    ['xl/worksheets/sheet1.xml', sheetXml(columns, rows, styles, formats, paint, painted)],
    ['xl/styles.xml', stylesXml(used, painted)],
  ];
  return zip(parts.map(([path, text]) => [path, Buffer.from(text, 'utf8')]));
}

/** A zip archive (deflated entries, no time stamps worth keeping: 1980-01-01). */
function zip(files: [string, Buffer][]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [path, data] of files) {
    const name = Buffer.from(path, 'utf8');
    const packed = deflateRawSync(data);
    const crc = crc32(data);
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    head.writeUInt16LE(20, 4); // version needed
    head.writeUInt16LE(0x0800, 6); // UTF-8 names
    head.writeUInt16LE(8, 8); // deflate
    head.writeUInt16LE(0, 10);
    head.writeUInt16LE(0x21, 12); // 1980-01-01
    head.writeUInt32LE(crc, 14);
    head.writeUInt32LE(packed.length, 18);
    head.writeUInt32LE(data.length, 22);
    head.writeUInt16LE(name.length, 26);
    head.writeUInt16LE(0, 28);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    head.copy(dir, 8, 6, 26); // flags … uncompressed size, as in the local header
    dir.writeUInt16LE(name.length, 28);
    dir.writeUInt32LE(offset, 42);
    locals.push(head, name, packed);
    central.push(dir, name);
    offset += head.length + name.length + packed.length;
  }
  const size = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(size, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...central, end]);
}
