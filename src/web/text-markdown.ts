// A dashboard's text item as HTML for the pages people read without the app (a public share,
// the dashboard's own HTML page, its PDF). The text is anyone's who may edit the dashboard, so
// it is never passed through: `marked` only splits it into tokens, and each token is written
// here with the escaping `html` template (raw HTML in the text shows as text). Links go only
// to http(s) and mailto addresses, without an opener or a referrer; images show their
// description (nothing is loaded from what the text names).
import { lexer, type Token, type Tokens } from 'marked';
import { html, type Html } from '../shared/html.js';

/** An http(s) or mailto address; anything else (javascript:, data:, relative): null. */
export function textHref(raw: string): string | null {
  const url = raw.trim();
  if (/^mailto:[^\s<>"]+$/i.test(url)) return url;
  if (!/^https?:\/\//i.test(url)) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

const children = (t: Token): Token[] => ('tokens' in t && t.tokens ? t.tokens : []);

function inline(tokens: Token[]): Html[] {
  return tokens.map((t): Html => {
    switch (t.type) {
      case 'strong':
        return html`<strong>${inline(children(t))}</strong>`;
      case 'em':
        return html`<em>${inline(children(t))}</em>`;
      case 'del':
        return html`<del>${inline(children(t))}</del>`;
      case 'codespan':
        return html`<code>${t.text}</code>`;
      case 'br':
        return html`<br>`;
      case 'link': {
        const href = textHref((t as Tokens.Link).href);
        const text = inline(children(t));
        return href
          ? html`<a href="${href}" target="_blank" rel="noopener noreferrer">${text}</a>`
          : html`${text}`;
      }
      case 'image':
        return html`${(t as Tokens.Image).text}`;
      case 'escape':
        return html`${t.text}`;
      case 'text':
        return t.tokens ? html`${inline(t.tokens)}` : html`${t.text}`;
      // `escape` is the escaped character; `html` (raw HTML) is shown as the text it is.
      default:
        return 'tokens' in t && t.tokens ? html`${inline(t.tokens)}` : html`${t.raw}`;
    }
  });
}

function blocks(tokens: Token[], tight = false): Html[] {
  return tokens.map((t): Html => {
    switch (t.type) {
      case 'space':
      case 'def':
        return html``;
      case 'paragraph':
        return tight ? html`${inline(children(t))}` : html`<p>${inline(children(t))}</p>`;
      case 'text':
        return t.tokens ? html`${inline(t.tokens)}` : html`${t.text}`;
      case 'heading': {
        // Under the page's h1 and the item's h2: # and ## are h3, ### h4… (as in the app).
        const level = Math.max(3, Math.min(6, (t as Tokens.Heading).depth + 1));
        return html`<h${level}>${inline(children(t))}</h${level}>`;
      }
      case 'code':
        return html`<pre><code>${t.text}</code></pre>`;
      case 'hr':
        return html`<hr>`;
      case 'blockquote':
        return html`<blockquote>${blocks(children(t))}</blockquote>`;
      case 'list': {
        const l = t as Tokens.List;
        const items = l.items.map((i) => html`<li>${blocks(i.tokens, !l.loose)}</li>`);
        const start = typeof l.start === 'number' && l.start !== 1 ? l.start : undefined;
        return l.ordered
          ? html`<ol${start !== undefined && html` start="${start}"`}>${items}</ol>`
          : html`<ul>${items}</ul>`;
      }
      case 'table': {
        const tb = t as Tokens.Table;
        return html`<table><thead><tr>${tb.header.map((h) => html`<th>${inline(h.tokens)}</th>`)}</tr></thead><tbody>${tb.rows.map(
          (row) => html`<tr>${row.map((c) => html`<td>${inline(c.tokens)}</td>`)}</tr>`,
        )}</tbody></table>`;
      }
      // Raw HTML and anything else: its source, as text.
      default:
        return html`<p>${t.raw.trim()}</p>`;
    }
  });
}

/** A text item's Markdown as safe HTML. */
export function textItemHtml(text: string): Html {
  return html`${blocks(lexer(text, { gfm: true }))}`;
}
