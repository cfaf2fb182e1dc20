// HTML for e-mail bodies: a template tag that escapes every interpolated value unless it is
// itself the result of the tag, so nothing can be forgotten.

export class SafeHtml {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}

export function safeHtml(
  strings: TemplateStringsArray,
  ...values: (string | SafeHtml)[]
): SafeHtml {
  return new SafeHtml(
    strings.reduce((out, s, i) => {
      const v = values[i - 1] ?? '';
      return out + (v instanceof SafeHtml ? v.html : escapeHtml(v)) + s;
    }),
  );
}

function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
