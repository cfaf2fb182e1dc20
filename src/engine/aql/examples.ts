// Example names for messages, taken from the caller's own model: an error teaches with objects
// the reader can see, written so that they resolve as written — never with names of another
// model (an assistant copies them). A model without such objects gets generic placeholders.
import { titleKey } from '../model/defs.js';
import type { ObjectRow } from '../model/store.js';
import { COUNTABLE_TYPES, datasetIdent, datasetNamed, datasetOfColumn } from './dataset-names.js';
import type { ModelSnapshot } from './model.js';

export interface ExampleEnv {
  snap: ModelSnapshot;
  visible: (o: ObjectRow) => boolean;
}

export class Examples {
  private cols: Map<string, Map<string, ObjectRow>> | null = null;
  /** Whether the reader may read an object (saved definitions are trusted). */
  readonly sees: (o: ObjectRow) => boolean;
  private main: string | null | undefined;

  constructor(
    readonly env: ExampleEnv,
    trusted: boolean,
  ) {
    this.sees = (o) => trusted || env.visible(o);
  }

  /** Readable column objects by dataset, then column id. */
  columns(): ReadonlyMap<string, ReadonlyMap<string, ObjectRow>> {
    if (!this.cols) {
      const cols = new Map<string, Map<string, ObjectRow>>();
      for (const o of this.env.snap.byIdent.values()) {
        const ds = datasetOfColumn(o);
        const column = (o.def as { column?: string }).column;
        if (!ds || !column || !this.sees(o)) continue;
        const m = cols.get(ds) ?? new Map<string, ObjectRow>();
        m.set(column, o);
        cols.set(ds, m);
      }
      this.cols = cols;
    }
    return this.cols;
  }

  /** Datasets the reader can see: those with a readable column. */
  datasets(): string[] {
    return [...this.env.snap.datasets.keys()].filter((d) => this.columns().has(d)).sort();
  }

  /** `[Title]` when the title names `o` again for this reader, else `[identifier]`. */
  ref(o: ObjectRow): string {
    const { snap } = this.env;
    const title = o.name.trim();
    const other = snap.byIdent.get(title);
    const owners = (snap.byTitle.get(titleKey(title)) ?? []).filter((x) => this.sees(x));
    const ok =
      title &&
      !/[\]\n]/.test(title) &&
      !(other && other !== o && this.sees(other)) &&
      owners.length === 1 &&
      owners[0] === o;
    return ok ? `[${title}]` : `[${o.ident}]`;
  }

  /** `[name]` when, in COUNT, the name means the dataset for this reader, else `[dataset.name]`. */
  datasetRef(name: string): string {
    const { snap } = this.env;
    const named = datasetNamed(
      name,
      (n) => {
        const o = snap.byIdent.get(n);
        return !!o && this.sees(o);
      },
      (n) =>
        (snap.byTitle.get(titleKey(n)) ?? []).some(
          (o) => this.sees(o) && COUNTABLE_TYPES.includes(o.type),
        ),
      (d) => this.columns().has(d),
    );
    return named === name ? `[${name}]` : `[${datasetIdent(name)}]`;
  }

  /**
   * The dataset whose rows are most likely counted: the readable one that reaches the most
   * others by references (the finest grain, the facts); ties by name.
   */
  mainDataset(): string | null {
    if (this.main === undefined) {
      const all = this.datasets();
      const reach = (d: string) => all.filter((o) => o !== d && this.env.snap.reaches(d, o)).length;
      this.main = all.reduce<string | null>(
        (best, d) => (best === null || reach(d) > reach(best) ? d : best),
        null,
      );
    }
    return this.main;
  }

  /** The first readable column (in the dataset's column order, main dataset first) that fits. */
  private first(fits: (o: ObjectRow, dataType: string) => boolean): ObjectRow | null {
    const main = this.mainDataset();
    const order = [...(main ? [main] : []), ...this.datasets().filter((d) => d !== main)];
    for (const d of order) {
      const node = this.env.snap.datasets.get(d);
      const objs = this.columns().get(d);
      if (!node || !objs) continue;
      for (const [column, dataType] of node.columns) {
        const o = objs.get(column);
        if (o && fits(o, dataType)) return o;
      }
    }
    return null;
  }

  /** A dataset to count rows of: `[flights]`. */
  dataset(): string {
    const d = this.mainDataset();
    return d ? this.datasetRef(d) : '[<dataset>]';
  }

  /** A fact: `[Distance]`. */
  fact(): string {
    const o = this.first((x) => x.type === 'fact');
    return o ? this.ref(o) : '[<fact>]';
  }

  /** A text attribute or label to group by: `[Carrier]`. */
  attribute(): string {
    const o =
      this.first((x, t) => x.type !== 'fact' && t === 'string') ??
      this.first((x, t) => x.type !== 'fact' && t !== 'date' && t !== 'datetime');
    return o ? this.ref(o) : '[<attribute>]';
  }

  /** A date attribute: `[Flight Date]`. */
  date(): string {
    const o = this.first((x, t) => x.type !== 'fact' && (t === 'date' || t === 'datetime'));
    return o ? this.ref(o) : '[<date attribute>]';
  }
}

const cache = new WeakMap<ExampleEnv, { [trusted: string]: Examples }>();

/** The examples of one compilation (its reader's model), made once. */
export function examplesFor(env: ExampleEnv, trusted = false): Examples {
  const hit = cache.get(env) ?? {};
  const key = String(trusted);
  hit[key] ??= new Examples(env, trusted);
  cache.set(env, hit);
  return hit[key]!;
}
