// HTML built with a template tag that escapes every interpolated value, so markup can only
// come from the templates themselves or from `raw()`, which marks text as trusted HTML.

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Markup that is safe to insert as is. Only `html` and `raw` make one. */
export class Html {
  readonly #text: string;
  constructor(text: string, key: symbol) {
    if (key !== MINT) throw new TypeError('Html values come from html`…` or raw()');
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

const MINT = Symbol('Html');

/** Anything a template may interpolate: text is escaped, Html kept, lists joined. */
export type Interpolation =
  Html | string | number | bigint | boolean | null | undefined | readonly Interpolation[];

/** Trusted, pre-built markup (static snippets, or HTML a sanitizing renderer produced). */
export const raw = (text: string): Html => new Html(text, MINT);

/** `null`, `undefined` and `false` render nothing, so `${cond && html`…`}` reads naturally. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return raw(out);
}

function render(v: Interpolation): string {
  if (v instanceof Html) return v.toString();
  if (v === null || v === undefined || v === false) return '';
  if (Array.isArray(v)) return v.map(render).join('');
  return String(v).replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}
