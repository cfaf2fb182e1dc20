// A dashboard's text item as Markdown (headings, emphasis, links, lists, tables), drawn as
// elements by the chat's renderer (never as HTML: raw HTML in the text shows as text). Links
// go only to http(s) and mailto addresses, in a new tab without an opener or a referrer.
import { Markdown, safeHref, type MarkdownOptions } from '../chat/markdown';

/** An http(s) or mailto address the card links to; anything else: its text only. */
export function textCardHref(raw: string): string | null {
  const url = raw.trim();
  if (/^mailto:[^\s<>"]+$/i.test(url)) return url;
  return /^https?:\/\//i.test(url) ? safeHref(url) : null;
}

// Items sit under the page's h1 and their own h2: # and ## are h3, ### h4… (text-markdown.ts
// writes the same levels on the pages without the app).
const OPTIONS: MarkdownOptions = {
  heading: (depth) => (['h3', 'h3', 'h4', 'h5', 'h6'] as const)[Math.min(depth, 5) - 1]!,
  link: textCardHref,
};

export function TextCard({ text }: { text: string }) {
  return (
    <div class="dash-text">
      <Markdown text={text} options={OPTIONS} />
    </div>
  );
}
