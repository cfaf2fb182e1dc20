// Markdown to HTML for site content (blog posts, pricing answers). Raw HTML in the source is
// shown as text, never passed through; links and images keep only http(s), mailto and
// relative URLs; a post's headings start at <h2> because the page title is its one <h1>.
import { Marked, type Tokens } from 'marked';
import { html, raw } from '../shared/html.js';

function safeUrl(href: string): string | null {
  try {
    const { protocol } = new URL(href, 'http://localhost/');
    return ['http:', 'https:', 'mailto:'].includes(protocol) ? href : null;
  } catch {
    return null;
  }
}

const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return String(html`${text}`);
    },
    heading({ tokens, depth }: Tokens.Heading) {
      const level = Math.max(2, depth);
      return `<h${level}>${this.parser.parseInline(tokens)}</h${level}>\n`;
    },
    link({ href, title, tokens }: Tokens.Link) {
      const text = this.parser.parseInline(tokens);
      const url = safeUrl(href);
      if (url === null) return text;
      // `text` is inline Markdown the parser has already rendered (and escaped).
      return String(html`<a href="${url}"${title && html` title="${title}"`}>${raw(text)}</a>`);
    },
    image({ href, title, text }: Tokens.Image) {
      const url = safeUrl(href);
      if (url === null) return String(html`${text}`);
      return String(html`<img src="${url}" alt="${text}"${title && html` title="${title}"`}>`);
    },
  },
});

export function markdownToHtml(src: string): string {
  return marked.parse(src, { async: false });
}

export function inlineMarkdownToHtml(src: string): string {
  return marked.parseInline(src, { async: false });
}
