// A small, safe Markdown renderer for AI answers: paragraphs, headings, emphasis, code, lists,
// block quotes, tables and links. It builds VNodes only (never HTML strings), so whatever the
// model writes (raw HTML included) shows as text; links go only to http(s) and to paths of
// this site, any other target shows as plain text.
import { Fragment, type ComponentChildren, type VNode } from 'preact';
import { Link } from '../../router';

type Align = 'left' | 'right' | 'center' | null;

type Block =
  | { t: 'p'; text: string }
  | { t: 'h'; level: number; text: string }
  | { t: 'code'; text: string }
  | { t: 'hr' }
  | { t: 'quote'; blocks: Block[] }
  | { t: 'list'; ordered: boolean; start: number; loose: boolean; items: Block[][] }
  | { t: 'table'; head: string[]; align: Align[]; rows: string[][] };

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const HR = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?/;
const ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+|$)(.*)$/;
const DELIM_ROW = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;

const blank = (l: string | undefined) => l === undefined || l.trim() === '';

/** Cells of a table row: `| a | b |` or `a | b`, `\|` kept as a bar. */
function cells(line: string): string[] {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && s[i + 1] === '|') {
      cur += '|';
      i++;
    } else if (s[i] === '|') {
      out.push(cur.trim());
      cur = '';
    } else cur += s[i];
  }
  out.push(cur.trim());
  return out;
}

const startsTable = (lines: string[], i: number) =>
  (lines[i] ?? '').includes('|') && DELIM_ROW.test(lines[i + 1] ?? '');

/** Does this line start a block other than a paragraph (so it ends one)? */
const interrupts = (lines: string[], i: number) => {
  const l = lines[i] ?? '';
  return (
    FENCE.test(l) ||
    HEADING.test(l) ||
    HR.test(l) ||
    QUOTE.test(l) ||
    ITEM.test(l) ||
    startsTable(lines, i)
  );
};

export function parseBlocks(src: string): Block[] {
  const lines = src.replace(/\r\n?/g, '\n').replace(/\t/g, '    ').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (blank(line)) {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const mark = fence[1]!;
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trim().startsWith(mark)) body.push(lines[i++]!);
      i++;
      blocks.push({ t: 'code', text: body.join('\n') });
      continue;
    }
    const h = HEADING.exec(line);
    if (h) {
      blocks.push({ t: 'h', level: h[1]!.length, text: h[2] ?? '' });
      i++;
      continue;
    }
    if (HR.test(line)) {
      blocks.push({ t: 'hr' });
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && !blank(lines[i]) && (QUOTE.test(lines[i]!) || body.length))
        body.push(lines[i++]!.replace(QUOTE, ''));
      blocks.push({ t: 'quote', blocks: parseBlocks(body.join('\n')) });
      continue;
    }
    if (startsTable(lines, i)) {
      const head = cells(line);
      const align = cells(lines[i + 1]!).map((c): Align => {
        const l = c.startsWith(':');
        const r = c.endsWith(':');
        return l && r ? 'center' : r ? 'right' : l ? 'left' : null;
      });
      i += 2;
      const rows: string[][] = [];
      while (i < lines.length && !blank(lines[i]) && lines[i]!.includes('|'))
        rows.push(cells(lines[i++]!));
      blocks.push({ t: 'table', head, align, rows });
      continue;
    }
    const item = ITEM.exec(line);
    if (item) {
      i = parseList(lines, i, blocks);
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && !blank(lines[i]) && (para.length === 0 || !interrupts(lines, i)))
      para.push(lines[i++]!);
    blocks.push({ t: 'p', text: para.join('\n') });
  }
  return blocks;
}

/** A list from line `i`: its items' lines (continuations de-indented) parsed as blocks. */
function parseList(lines: string[], i: number, out: Block[]): number {
  const first = ITEM.exec(lines[i]!)!;
  const ordered = /\d/.test(first[2]!);
  const kind = ordered ? first[2]!.slice(-1) : first[2]!;
  const sameKind = (m: RegExpExecArray) =>
    ordered ? /\d/.test(m[2]!) && m[2]!.endsWith(kind) : m[2] === kind;
  const items: string[][] = [];
  let loose = false;
  let indent = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const m = ITEM.exec(line);
    if (m && sameKind(m) && (items.length === 0 || m[1]!.length < indent)) {
      indent = m[1]!.length + m[2]!.length + Math.max(1, Math.min(m[3]!.length, 4));
      items.push([m[4]!]);
      i++;
      continue;
    }
    const cur = items[items.length - 1]!;
    if (blank(line)) {
      // A blank line continues the list (loose) only if an item or an indented line follows.
      const next = lines[i + 1];
      if (next === undefined || blank(next)) break;
      const nm = ITEM.exec(next);
      const nextIndent = next.length - next.trimStart().length;
      if (nextIndent >= indent || (nm && sameKind(nm) && nm[1]!.length < indent)) {
        loose = true;
        cur.push('');
        i++;
        continue;
      }
      break;
    }
    const lead = line.length - line.trimStart().length;
    if (lead >= indent) {
      cur.push(line.slice(indent));
      i++;
      continue;
    }
    // A lazy continuation of the item's paragraph, unless the line starts another block.
    if (!m && !blank(cur[cur.length - 1]) && !interrupts(lines, i)) {
      cur.push(line.trim());
      i++;
      continue;
    }
    break;
  }
  while (items.length && items[items.length - 1]!.at(-1) === '') items[items.length - 1]!.pop();
  out.push({
    t: 'list',
    ordered,
    start: ordered ? parseInt(first[2]!, 10) : 1,
    loose,
    items: items.map((lines) => parseBlocks(lines.join('\n'))),
  });
  return i;
}

// ---- inline ----

const PUNCT = /[!-/:-@[-`{-~]/;
const WORD = /[\p{L}\p{N}]/u;

/** A link target the app will follow: http(s) URLs and paths of this site; else null. */
export function safeHref(raw: string): string | null {
  const url = raw.trim();
  if (/^https?:\/\//i.test(url)) {
    try {
      const u = new URL(url);
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
    } catch {
      return null;
    }
  }
  if (url.startsWith('/') && !url.startsWith('//') && !url.startsWith('/\\')) return url;
  return null;
}

function SafeLink({ href, children }: { href: string | null; children: ComponentChildren }) {
  if (!href) return <>{children}</>;
  if (href.startsWith('/app/') || href === '/app') return <Link href={href}>{children}</Link>;
  const sameOrigin = href.startsWith('/');
  return sameOrigin ? (
    <a href={href}>{children}</a>
  ) : (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}

/** The index of the `]` closing the `[` at `open`, or -1. */
function closingBracket(s: string, open: number): number {
  let depth = 0;
  for (let j = open; j < s.length; j++) {
    if (s[j] === '\\') j++;
    else if (s[j] === '`') {
      const end = s.indexOf('`', j + 1);
      if (end > 0) j = end;
    } else if (s[j] === '[') depth++;
    else if (s[j] === ']' && --depth === 0) return j;
  }
  return -1;
}

/** `(url "title")` at `open`: the URL and the index after `)`, or null. */
function destination(s: string, open: number): { url: string; end: number } | null {
  if (s[open] !== '(') return null;
  let j = open + 1;
  while (s[j] === ' ') j++;
  let url = '';
  if (s[j] === '<') {
    const close = s.indexOf('>', j);
    if (close < 0) return null;
    url = s.slice(j + 1, close);
    j = close + 1;
  } else {
    let depth = 0;
    while (j < s.length && !/\s/.test(s[j]!)) {
      if (s[j] === '(') depth++;
      else if (s[j] === ')') {
        if (depth === 0) break;
        depth--;
      }
      url += s[j++];
    }
  }
  while (s[j] === ' ') j++;
  const q = s[j];
  if (q === '"' || q === "'") {
    const close = s.indexOf(q, j + 1);
    if (close < 0) return null;
    j = close + 1;
    while (s[j] === ' ') j++;
  }
  return s[j] === ')' ? { url, end: j + 1 } : null;
}

/** The closing delimiter of emphasis opened by `delim` at `from`, or -1. */
function closingDelim(s: string, from: number, delim: string): number {
  const c = delim[0]!;
  for (let j = from; j < s.length; j++) {
    if (s[j] === '\\') {
      j++;
      continue;
    }
    if (s[j] === '`') {
      const run = /^`+/.exec(s.slice(j))![0];
      const end = s.indexOf(run, j + run.length);
      if (end > 0) j = end + run.length - 1;
      continue;
    }
    if (s[j] !== c) continue;
    let run = 1;
    while (s[j + run] === c) run++;
    // Exactly this run (a single `*` does not close on `**`), after a non-space, and for
    // `_` not inside a word.
    const closes =
      run === delim.length &&
      !/\s/.test(s[j - 1] ?? ' ') &&
      !(c === '_' && WORD.test(s[j + run] ?? ''));
    if (closes) return j;
    j += run - 1;
  }
  return -1;
}

const BARE_URL = /^https?:\/\/[^\s<>"]+/i;

export function inline(s: string, inLink = false): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let text = '';
  const flush = () => {
    if (text) out.push(text);
    text = '';
  };
  let i = 0;
  while (i < s.length) {
    const ch = s[i]!;
    const rest = s.slice(i);
    if (ch === '\\' && s[i + 1] === '\n') {
      flush();
      out.push(<br />);
      i += 2;
      continue;
    }
    if (ch === '\\' && PUNCT.test(s[i + 1] ?? '')) {
      text += s[i + 1];
      i += 2;
      continue;
    }
    if (ch === ' ' && /^ {2,}\n/.test(rest)) {
      flush();
      out.push(<br />);
      i += /^ +\n/.exec(rest)![0].length;
      continue;
    }
    if (ch === '`') {
      const run = /^`+/.exec(rest)![0];
      const end = s.indexOf(run, i + run.length);
      if (end > 0 && s[end + run.length] !== '`') {
        flush();
        let code = s.slice(i + run.length, end).replace(/\n/g, ' ');
        if (/^ .*[^ ].* $/.test(code)) code = code.slice(1, -1);
        out.push(<code>{code}</code>);
        i = end + run.length;
        continue;
      }
      text += run;
      i += run.length;
      continue;
    }
    if (ch === '*' || ch === '_' || (ch === '~' && s[i + 1] === '~')) {
      const run = ch === '~' ? '~~' : /^(\*+|_+)/.exec(rest)![0];
      const prev = s[i - 1] ?? ' ';
      const canOpen = !/\s/.test(s[i + run.length] ?? ' ') && !(ch === '_' && WORD.test(prev));
      const delim = ch === '~' ? '~~' : run.slice(0, Math.min(run.length, 3));
      const close = canOpen ? closingDelim(s, i + delim.length + 1, delim) : -1;
      if (close > 0) {
        flush();
        const inner = inline(s.slice(i + delim.length, close), inLink);
        out.push(
          ch === '~' ? (
            <del>{inner}</del>
          ) : delim.length === 1 ? (
            <em>{inner}</em>
          ) : delim.length === 2 ? (
            <strong>{inner}</strong>
          ) : (
            <strong>
              <em>{inner}</em>
            </strong>
          ),
        );
        i = close + delim.length;
        continue;
      }
      text += run;
      i += run.length;
      continue;
    }
    if (ch === '[' && !inLink) {
      const close = closingBracket(s, i);
      const dest = close > 0 ? destination(s, close + 1) : null;
      if (dest) {
        flush();
        out.push(
          <SafeLink href={safeHref(dest.url)}>{inline(s.slice(i + 1, close), true)}</SafeLink>,
        );
        i = dest.end;
        continue;
      }
    }
    if (ch === '<' && !inLink) {
      const auto = /^<(https?:\/\/[^\s<>]+)>/i.exec(rest);
      if (auto) {
        flush();
        const href = safeHref(auto[1]!);
        out.push(<SafeLink href={href}>{auto[1]}</SafeLink>);
        i += auto[0].length;
        continue;
      }
    }
    if ((ch === 'h' || ch === 'H') && !inLink && !WORD.test(s[i - 1] ?? ' ')) {
      const bare = BARE_URL.exec(rest);
      if (bare) {
        let url = bare[0];
        // Trailing punctuation ends the sentence, not the URL (a `)` only if unbalanced).
        for (;;) {
          const last = url.slice(-1);
          if (/[.,;:!?'*_]/.test(last)) url = url.slice(0, -1);
          else if (last === ')' && url.split('(').length < url.split(')').length)
            url = url.slice(0, -1);
          else break;
        }
        flush();
        out.push(<SafeLink href={safeHref(url)}>{url}</SafeLink>);
        i += url.length;
        continue;
      }
    }
    text += ch;
    i++;
  }
  flush();
  return out;
}

// ---- rendering ----

const ALIGN_CLASS = { left: 'chat-al-l', right: 'chat-al-r', center: 'chat-al-c' } as const;
const NUMERIC = /^[-+]?[$€£]?\d[\d,. ]*%?$/;

function renderBlocks(blocks: Block[], tight = false): VNode[] {
  return blocks.map((b, k) => {
    switch (b.t) {
      case 'p':
        return tight ? (
          <Fragment key={k}>{inline(b.text)}</Fragment>
        ) : (
          <p key={k}>{inline(b.text)}</p>
        );
      case 'h': {
        // Answers sit under the page's h1 and each question's h3.
        const H = (['h4', 'h5', 'h6'] as const)[Math.min(b.level, 3) - 1]!;
        return <H key={k}>{inline(b.text)}</H>;
      }
      case 'code':
        return (
          <pre key={k}>
            <code>{b.text}</code>
          </pre>
        );
      case 'hr':
        return <hr key={k} />;
      case 'quote':
        return <blockquote key={k}>{renderBlocks(b.blocks)}</blockquote>;
      case 'list': {
        const items = b.items.map((item, j) => <li key={j}>{renderBlocks(item, !b.loose)}</li>);
        return b.ordered ? (
          <ol key={k} start={b.start === 1 ? undefined : b.start}>
            {items}
          </ol>
        ) : (
          <ul key={k}>{items}</ul>
        );
      }
      case 'table': {
        const cls = (c: number, v: string) => {
          const a = b.align[c];
          return a ? ALIGN_CLASS[a] : NUMERIC.test(v) ? 'n' : undefined;
        };
        return (
          <div class="scroll chat-md-table" key={k}>
            <table>
              <thead>
                <tr>
                  {b.head.map((h, c) => (
                    <th
                      key={c}
                      scope="col"
                      class={b.align[c] ? ALIGN_CLASS[b.align[c]!] : undefined}
                    >
                      {inline(h)}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {b.rows.map((row, r) => (
                  <tr key={r}>
                    {b.head.map((_, c) => (
                      <td key={c} class={cls(c, row[c] ?? '')}>
                        {inline(row[c] ?? '')}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        );
      }
    }
  });
}

/** Markdown text as elements. */
export function Markdown({ text }: { text: string }) {
  return <div class="chat-md">{renderBlocks(parseBlocks(text))}</div>;
}

/** The text of Markdown without its marks, for announcing an answer. */
export function plainText(md: string): string {
  return md
    .replace(/`+/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s*\|?[-:| ]+\|?\s*$/gm, '')
    .replace(/[*_~#>|]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
