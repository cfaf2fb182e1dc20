// Names the structure guess gives: column ids and the dataset name slugged from headers and
// the file name (also used for warehouse tables and flow outputs).

// Letters NFKD does not decompose into ASCII.
const TRANSLITERATE: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
};

/** Lowercase ASCII id `[a-z][a-z0-9_]{0,62}`: accents stripped, a leading digit prefixed. */
export function slugId(text: string, fallback: string): string {
  const ascii = text
    .toLowerCase()
    .replace(/[ßæœøłđðþ]/g, (ch) => TRANSLITERATE[ch] ?? '')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '');
  let s = ascii.replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  if (s === '') return fallback;
  if (/^[0-9]/.test(s)) s = `c_${s}`;
  return s.slice(0, 63).replace(/_+$/, '');
}

/** `id`, `id_2`, `id_3`…, kept within 63 characters. */
export function uniqueId(base: string, used: Set<string>): string {
  let id = base;
  for (let n = 2; used.has(id); n++) id = `${base.slice(0, 63 - `_${n}`.length)}_${n}`;
  used.add(id);
  return id;
}

/** Words of a header, splitting camelCase too (`CarrierID` → carrier, id). */
export function words(header: string): string[] {
  const split = header
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
  return slugId(split, '').split('_').filter(Boolean);
}

export const baseName = (fileName: string) => fileName.split(/[\\/]/).pop() ?? fileName;

export function stripExtension(name: string): string {
  const once = name.replace(/\.[A-Za-z0-9]{1,5}$/, '');
  // `data.csv.gz`: drop the inner data extension as well.
  return once.replace(/\.(csv|tsv|txt|psv|dat)$/i, '');
}
