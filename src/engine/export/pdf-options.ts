// The options of a PDF export, checked before anything is launched: the page (a pageType,
// turned by `landscape`, or its own width and height), the margins, the scale and whether
// backgrounds print. Every refusal is an 'invalid' error whose message and `context.field`
// name the option. What comes out is absolute: sizes in inches, the page already turned.
import { z } from 'zod';
import { invalid } from '../errors.js';
import { zBool } from '../validate.js';

export const PAGE_TYPES = ['A3', 'A4', 'A5', 'Letter', 'Legal', 'Tabloid'] as const;
export type PageType = (typeof PAGE_TYPES)[number];

const MM = 1 / 25.4;
/** Portrait sizes in inches: ISO 216 in millimetres, the US sizes in inches. */
const PAGE_SIZES: Record<PageType, { width: number; height: number }> = {
  A3: { width: 297 * MM, height: 420 * MM },
  A4: { width: 210 * MM, height: 297 * MM },
  A5: { width: 148 * MM, height: 210 * MM },
  Letter: { width: 8.5, height: 11 },
  Legal: { width: 8.5, height: 14 },
  Tabloid: { width: 11, height: 17 },
};

/** Inches per unit of a CSS length (CSS: 1in = 96px = 2.54cm). */
const UNITS = { px: 1 / 96, in: 1, cm: 1 / 2.54, mm: MM } as const;

/** The smallest and largest side of a page (200 in is the largest page PDF readers show). */
export const MIN_SIDE_IN = 1;
export const MAX_SIDE_IN = 200;
/** Room the margins must leave for the content, in each direction. */
export const MIN_CONTENT_IN = 0.5;
export const MIN_SCALE = 0.1;
export const MAX_SCALE = 2;

export const OPTION_NAMES = [
  'landscape',
  'pageType',
  'width',
  'height',
  'margin',
  'scale',
  'printBackground',
] as const;

export interface Margins {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/** Options as Chromium gets them: inches, the page already turned for `landscape`. */
export interface PdfOptions {
  width: number;
  height: number;
  margin: Margins;
  scale: number;
  printBackground: boolean;
  /** What was asked, for messages and logs. */
  pageType: PageType;
  landscape: boolean;
}

export const DEFAULT_MARGIN_IN = 1 / 2.54; // 1 cm

const LENGTH_HELP =
  'must be a CSS length: a number of pixels, or a string of a number and a unit px, in, cm or mm ("210mm", "8.5in")';

type Unit = keyof typeof UNITS;

/**
 * A CSS length: a number (pixels) or a string such as "21cm", "8.5in", "800px", "12"
 * (pixels), as inches and the unit it was written in; null when it is not one. Negative
 * lengths are not lengths here.
 */
function cssLength(v: unknown): { inches: number; unit: Unit } | null {
  if (typeof v === 'number')
    return Number.isFinite(v) && v >= 0 ? { inches: v * UNITS.px, unit: 'px' } : null;
  if (typeof v !== 'string') return null;
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(px|in|cm|mm)?\s*$/i.exec(v);
  if (!m) return null;
  const unit = (m[2]?.toLowerCase() ?? 'px') as Unit;
  return { inches: Number(m[1]) * UNITS[unit], unit };
}

/** A CSS length in inches (see cssLength); null when it is not one. */
export function cssLengthInches(v: unknown): number | null {
  return cssLength(v)?.inches ?? null;
}

/** `inches` written in `unit`, as a CSS length rounded to 2 decimals ("635cm", "24000px"). */
export function lengthIn(inches: number, unit: Unit): string {
  return `${Math.round((inches / UNITS[unit]) * 100) / 100}${unit}`;
}

/** The unit the first of `values` that is a CSS length was written in. */
function unitOf(...values: unknown[]): Unit | undefined {
  for (const v of values) {
    const unit = cssLength(v)?.unit;
    if (unit) return unit;
  }
  return undefined;
}

const length = z.unknown().transform((v, ctx) => {
  const inches = cssLengthInches(v);
  if (inches === null) {
    ctx.addIssue({ code: 'custom', message: LENGTH_HELP });
    return z.NEVER;
  }
  return inches;
});

const pageType = z.unknown().transform((v, ctx) => {
  const found =
    typeof v === 'string'
      ? PAGE_TYPES.find((t) => t.toLowerCase() === v.trim().toLowerCase())
      : undefined;
  if (!found) {
    ctx.addIssue({ code: 'custom', message: `must be one of ${PAGE_TYPES.join(', ')}` });
    return z.NEVER;
  }
  return found;
});

const bool = z.unknown().transform((v, ctx) => {
  const r = zBool.safeParse(v);
  if (!r.success) {
    ctx.addIssue({ code: 'custom', message: 'must be true or false' });
    return z.NEVER;
  }
  return r.data;
});

const scale = z.unknown().transform((v, ctx) => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < MIN_SCALE || n > MAX_SCALE) {
    ctx.addIssue({ code: 'custom', message: `must be a number from ${MIN_SCALE} to ${MAX_SCALE}` });
    return z.NEVER;
  }
  return n;
});

const SIDES = ['top', 'right', 'bottom', 'left'] as const;

const margin = z.unknown().transform((v, ctx) => {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const given = v as Record<string, unknown>;
    const unknown = Object.keys(given).filter((k) => !(SIDES as readonly string[]).includes(k));
    if (unknown.length) {
      ctx.addIssue({ code: 'unrecognized_keys', keys: unknown, message: 'unknown sides' } as never);
      return z.NEVER;
    }
    // A side left out keeps the default margin.
    const out: Margins = {
      top: DEFAULT_MARGIN_IN,
      right: DEFAULT_MARGIN_IN,
      bottom: DEFAULT_MARGIN_IN,
      left: DEFAULT_MARGIN_IN,
    };
    for (const side of SIDES) {
      if (given[side] === undefined) continue;
      const inches = cssLengthInches(given[side]);
      if (inches === null) {
        ctx.addIssue({ code: 'custom', message: LENGTH_HELP, path: [side] });
        return z.NEVER;
      }
      out[side] = inches;
    }
    return out;
  }
  const all = cssLengthInches(v);
  if (all === null) {
    ctx.addIssue({ code: 'custom', message: `${LENGTH_HELP}, or { top, right, bottom, left }` });
    return z.NEVER;
  }
  return { top: all, right: all, bottom: all, left: all };
});

const schema = z.strictObject({
  landscape: bool.optional(),
  pageType: pageType.optional(),
  width: length.optional(),
  height: length.optional(),
  margin: margin.optional(),
  scale: scale.optional(),
  printBackground: bool.optional(),
});

/**
 * Checks the options of a PDF export and resolves them to a page. Defaults: A4 portrait,
 * 1 cm margins, scale 1, backgrounds printed. `width`/`height` replace the pageType's sides
 * (one alone keeps the pageType's other side); `landscape` then turns the page (swaps width
 * and height), as Chromium does.
 */
export function parsePdfOptions(input: unknown): PdfOptions {
  const value = input ?? {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalid('the export options must be an object', { field: '(body)' });
  const r = schema.safeParse(value);
  if (!r.success) {
    // Unknown names first: a misspelt option explains the rest.
    const issue = r.error.issues.find((i) => i.code === 'unrecognized_keys') ?? r.error.issues[0]!;
    if (issue.code === 'unrecognized_keys') {
      const where = issue.path.map(String).join('.');
      const keys = issue.keys.map((k) => (where ? `${where}.${k}` : k));
      const allowed: string[] = where ? [...SIDES] : [...OPTION_NAMES];
      throw invalid(
        `unknown option${keys.length > 1 ? 's' : ''} ${keys.join(', ')}; ${where || 'the options'} may hold ${allowed.join(', ')}`,
        { field: keys[0], unknown: keys, allowed },
      );
    }
    const field = issue.path.map(String).join('.');
    throw invalid(`${field} ${issue.message}`, { field });
  }
  const o = r.data;
  // Messages give lengths in the unit they were asked in.
  const given = value as Record<string, unknown>;
  const type = o.pageType ?? 'A4';
  const landscape = o.landscape ?? false;
  const portrait = PAGE_SIZES[type];
  let width = o.width ?? portrait.width;
  let height = o.height ?? portrait.height;
  for (const [field, inches] of [
    ['width', width],
    ['height', height],
  ] as const) {
    if (inches < MIN_SIDE_IN - 1e-9 || inches > MAX_SIDE_IN + 1e-9) {
      // Only a given side can be out of range: every pageType fits.
      const unit = unitOf(given[field]) ?? 'in';
      const got = `${lengthIn(inches, unit)}${unit === 'in' ? '' : ` (${lengthIn(inches, 'in')})`}`;
      throw invalid(
        `${field} must be from ${MIN_SIDE_IN}in to ${MAX_SIDE_IN}in (${MIN_SIDE_IN * 96}px to ${MAX_SIDE_IN * 96}px); got ${got}`,
        { field, min: `${MIN_SIDE_IN}in`, max: `${MAX_SIDE_IN}in`, got: lengthIn(inches, unit) },
      );
    }
  }
  if (landscape) [width, height] = [height, width];
  const m = o.margin ?? {
    top: DEFAULT_MARGIN_IN,
    right: DEFAULT_MARGIN_IN,
    bottom: DEFAULT_MARGIN_IN,
    left: DEFAULT_MARGIN_IN,
  };
  // Lengths in the unit of the margins asked for, else of the page's sides, else the
  // default margin's (cm).
  const sides = (typeof given.margin === 'object' && given.margin ? given.margin : {}) as Record<
    string,
    unknown
  >;
  for (const [a, b, page, dimension] of [
    ['left', 'right', width, 'width'],
    ['top', 'bottom', height, 'height'],
  ] as const) {
    if (page - m[a] - m[b] >= MIN_CONTENT_IN - 1e-9) continue;
    const unit = unitOf(given.margin, sides[a], sides[b], given[dimension]) ?? 'cm';
    const len = (inches: number) => lengthIn(inches, unit);
    throw invalid(
      `margin leaves no room on the page: ${a} + ${b} is ${len(m[a] + m[b])}; the page ${dimension} (${len(page)}) less ${len(MIN_CONTENT_IN)} for the content leaves at most ${len(page - MIN_CONTENT_IN)}`,
      { field: 'margin', [dimension === 'width' ? 'pageWidth' : 'pageHeight']: len(page) },
    );
  }
  return {
    width,
    height,
    margin: m,
    scale: o.scale ?? 1,
    printBackground: o.printBackground ?? true,
    pageType: type,
    landscape,
  };
}
