// Markdown as elements: `marked` splits the text into tokens, and each token becomes a VNode
// here (never an HTML string, never `marked.parse`), so whatever the text holds (a model's
// answer, raw HTML included) shows as text. Links go only to http(s) and to paths of this
// site (or where the page's `link` option sends them); any other target shows as plain text.
import { lexer, type Token, type Tokens } from 'marked';
import type { ComponentChildren, JSX } from 'preact';
import { Link } from '../../router';

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
  if (href.startsWith('#')) return <a href={href}>{children}</a>;
  if (href.startsWith('/app/') || href === '/app') return <Link href={href}>{children}</Link>;
  return href.startsWith('/') ? (
    <a href={href}>{children}</a>
  ) : (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}

type Heading = 'h1' | 'h2' | 'h3' | 'h4' | 'h5' | 'h6';

export interface MarkdownOptions {
  /** The element for a heading of Markdown depth 1–6. */
  heading: (depth: number) => Heading;
  /** Headings get an id (their text, slugged) for `#` links. */
  ids?: boolean;
  /** Where a link goes: a safe href, or null to show its text only. */
  link: (href: string) => string | null;
}

// Answers sit under the page's h1 and each question's h3.
const CHAT: MarkdownOptions = {
  heading: (depth) => (['h4', 'h5', 'h6'] as const)[Math.min(depth, 3) - 1]!,
  link: safeHref,
};

const ALIGN_CLASS = { left: 'chat-al-l', right: 'chat-al-r', center: 'chat-al-c' } as const;
const NUMERIC = /^[-+]?[$€£]?\d[\d,. ]*%?$/;

/** A heading's anchor as GitHub writes it: lower case, punctuation dropped, spaces as `-`. */
export const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');

/** The text of inline tokens, marks removed. */
function textOf(tokens: Token[]): string {
  return tokens
    .map((t) => ('tokens' in t && t.tokens ? textOf(t.tokens) : 'text' in t ? String(t.text) : ''))
    .join('');
}

function inline(tokens: Token[], o: MarkdownOptions): ComponentChildren[] {
  return tokens.map((t, k): ComponentChildren => {
    switch (t.type) {
      case 'strong':
        return <strong key={k}>{inline(t.tokens ?? [], o)}</strong>;
      case 'em':
        return <em key={k}>{inline(t.tokens ?? [], o)}</em>;
      case 'del':
        return <del key={k}>{inline(t.tokens ?? [], o)}</del>;
      case 'codespan':
        return <code key={k}>{t.text}</code>;
      case 'br':
        return <br key={k} />;
      case 'link':
        return (
          <SafeLink key={k} href={o.link((t as Tokens.Link).href)}>
            {inline(t.tokens ?? [], o)}
          </SafeLink>
        );
      case 'image':
        // Nothing is loaded from what the text names: the image's description stands in.
        return (t as Tokens.Image).text;
      case 'text':
        return t.tokens ? inline(t.tokens, o) : t.text;
      // `escape` is the escaped character; `html` is raw HTML, shown as the text it is.
      default:
        return 'tokens' in t && t.tokens ? inline(t.tokens, o) : t.raw;
    }
  });
}

function blocks(tokens: Token[], o: MarkdownOptions, tight = false): ComponentChildren[] {
  return tokens.map((t, k): ComponentChildren => {
    switch (t.type) {
      case 'space':
      case 'def':
        return null;
      case 'paragraph':
        return tight ? inline(t.tokens ?? [], o) : <p key={k}>{inline(t.tokens ?? [], o)}</p>;
      case 'text':
        // A tight list item's text (its inline tokens), or text at the top level.
        return t.tokens ? inline(t.tokens, o) : t.text;
      case 'heading': {
        const H = o.heading((t as Tokens.Heading).depth) as keyof JSX.IntrinsicElements;
        const id = o.ids ? slug(textOf(t.tokens ?? [])) : undefined;
        return (
          <H key={k} id={id}>
            {inline(t.tokens ?? [], o)}
          </H>
        );
      }
      case 'code':
        return (
          <pre key={k}>
            <code>{t.text}</code>
          </pre>
        );
      case 'hr':
        return <hr key={k} />;
      case 'blockquote':
        return <blockquote key={k}>{blocks(t.tokens ?? [], o)}</blockquote>;
      case 'list': {
        const l = t as Tokens.List;
        const items = l.items.map((item, j) => <li key={j}>{blocks(item.tokens, o, !l.loose)}</li>);
        const start = typeof l.start === 'number' && l.start !== 1 ? l.start : undefined;
        return l.ordered ? (
          <ol key={k} start={start}>
            {items}
          </ol>
        ) : (
          <ul key={k}>{items}</ul>
        );
      }
      case 'table':
        return <Table key={k} table={t as Tokens.Table} o={o} />;
      // Raw HTML (`html`) and anything else: its source, as text.
      default:
        return <p key={k}>{t.raw.trim()}</p>;
    }
  });
}

function Table({ table, o }: { table: Tokens.Table; o: MarkdownOptions }) {
  const align = (c: number) => {
    const a = table.align[c];
    return a ? ALIGN_CLASS[a] : undefined;
  };
  // A wide table scrolls sideways: focusable, so a keyboard can scroll it too.
  const name = `Table: ${table.header.map((h) => textOf(h.tokens)).join(', ')}`;
  return (
    <div class="scroll chat-md-table" tabIndex={0} role="region" aria-label={name}>
      <table>
        <thead>
          <tr>
            {table.header.map((h, c) => (
              <th key={c} scope="col" class={align(c)}>
                {inline(h.tokens, o)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row, r) => (
            <tr key={r}>
              {row.map((cell, c) => (
                <td key={c} class={align(c) ?? (NUMERIC.test(cell.text) ? 'n' : undefined)}>
                  {inline(cell.tokens, o)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Characters (and line starts) Markdown reads as markup; text without any is its paragraphs
 * as they are. The lexer's first run compiles its expressions (40–115 ms on this machine):
 * a dashboard's plain text card paid that before any chart was drawn.
 */
const MARKUP = /[\\`*_~[\]#+\-!|>=<&:]|^\s*\d+[.)]|www\./m;

/** Markdown text as elements (an AI answer's by default). */
export function Markdown({ text, options = CHAT }: { text: string; options?: MarkdownOptions }) {
  if (!MARKUP.test(text))
    return (
      <div class="chat-md">
        {text
          .split(/\n\s*\n/)
          .map((p) => p.trim())
          .filter(Boolean)
          .map((p, i) => (
            <p key={i}>{p}</p>
          ))}
      </div>
    );
  return <div class="chat-md">{blocks(lexer(text, { gfm: true }), options)}</div>;
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
