// Titles a structure guess proposes: column names said as words (`unit_price` → "Unit Price",
// a table's `id` → "Order ID"), the columns that name a row of their table (labels of its key),
// and titles made unique in a model by the table's own name ("Product Name" beside "Name").
import { titleKey } from '../../model/defs.js';
import type { Prescription } from '../prescription.js';
import { words } from './names.js';

/** Words written in capitals in a title. */
const ACRONYMS = new Set([
  'id',
  'url',
  'uri',
  'sku',
  'uuid',
  'ip',
  'ean',
  'upc',
  'isbn',
  'iban',
  'vat',
  'api',
  'iso',
  'utc',
  'gps',
  'kpi',
  'crm',
  'erp',
]);

/** Column names that say nothing without their table: always titled with its name. */
const BARE = new Set(['id', 'name', 'title', 'label', 'code', 'key', 'description']);

/** Column names that name a row: such a text column becomes a label of its table's key. */
const NAMING = new Set(['name', 'title', 'label', 'display_name', 'full_name']);

/** `order_items` → `order_item`, `categories` → `category`, `addresses` → `address`. */
export function singular(name: string): string {
  if (/ies$/.test(name)) return name.replace(/ies$/, 'y');
  if (/(ss|x|ch|sh)es$/.test(name)) return name.replace(/es$/, '');
  if (/[^su]s$/.test(name)) return name.slice(0, -1);
  return name;
}

const word = (w: string) => (ACRONYMS.has(w) ? w.toUpperCase() : w[0]!.toUpperCase() + w.slice(1));

/** Words of a name, capitalized (`unit_price`, `unitPrice` → "Unit Price"). */
export function humanize(name: string): string {
  const w = words(name);
  return w.length ? w.map(word).join(' ') : name.trim();
}

/** The title of one row of a table: `order_items` → "Order Item". */
export const rowTitle = (table: string) => humanize(singular(words(table).join('_') || table));

/**
 * A column's title: its words, capitalized; a bare `id`, `name`, `code`… takes its table's
 * row title ("Order ID", "Customer Name"). A name with capitals or spaces of its own
 * (`"Region Name"`) is kept as written.
 */
export function columnTitle(column: string, table: string): string {
  if (/[A-Z]/.test(column) && /\s/.test(column.trim())) return column.trim();
  const w = words(column);
  if (w.length === 1 && BARE.has(w[0]!)) return `${rowTitle(table)} ${word(w[0]!)}`;
  return humanize(column);
}

/**
 * A file header's title: a machine name of several words (`unit_price`, `orderDate`) said in
 * words ("Unit Price", "Order Date"); a header people wrote (with spaces, or one word) as is.
 */
export function headerTitle(header: string): string {
  const h = header.trim();
  return !/\s/.test(h) && words(h).length > 1 ? humanize(h) : h;
}

/** Whether a text column's name says it names its table's rows (`name`, `customer_name`). */
export function isNamingColumn(column: string, table: string): boolean {
  const w = words(column).join('_');
  if (NAMING.has(w)) return true;
  const t = words(table).join('_');
  return [t, singular(t)].some((s) => ['name', 'title', 'label'].some((n) => w === `${s}_${n}`));
}

/**
 * Titles are unique in a model (AQL names objects by title, in any case). A column whose
 * title is taken is qualified with its table's row title ("Product Name" beside "Name",
 * "Order Customer ID" beside the customers' "Customer ID"); when that is taken too, with the
 * dataset name and a number.
 */
export function uniqueTitles(p: Prescription, taken: ReadonlySet<string>, table: string) {
  const used = new Set(taken);
  const row = rowTitle(table);
  const columns = p.columns.map((c) => {
    const base = c.label || c.id;
    const candidates = [base];
    if (!titleKey(base).startsWith(`${titleKey(row)} `)) candidates.push(`${row} ${base}`);
    let label = candidates.find((t) => !used.has(titleKey(t)));
    for (let n = 1; label === undefined; n++) {
      const t = `${base} (${p.clustername}${n > 1 ? ` ${n}` : ''})`;
      if (!used.has(titleKey(t))) label = t;
    }
    used.add(titleKey(label));
    return label === c.label ? c : { ...c, label };
  });
  return { ...p, columns };
}
