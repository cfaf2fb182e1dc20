// A page of the documentation (/app/docs/aql.md), read from the site's /docs/<name>.md and
// shown as a page of the app with the chat's Markdown renderer: the raw Markdown the site
// serves is for programs and language models, not for reading.
import { useEffect, useState } from 'preact/hooks';
import { appPath } from '../../router';
import { Loading } from '../../ui';
import { Markdown, safeHref, slug, type MarkdownOptions } from '../chat/markdown';

const DOC = /^[\w-]+\.md$/;

/** The app's address of a document, e.g. docHref('aql.md') = /app/docs/aql.md. */
export const docHref = (name: string, section?: string): string =>
  `${appPath('docs', name)}${section ? `#${slug(section)}` : ''}`;

const OPTIONS: MarkdownOptions = {
  heading: (depth) => (['h1', 'h2', 'h3', 'h4', 'h5', 'h6'] as const)[depth - 1]!,
  ids: true,
  // Another document (`api.md#…`) opens here too; a `#section` stays on the page.
  link: (href) => {
    const [name, section] = href.split('#');
    if (name && DOC.test(name)) return docHref(name, section);
    if (!name && section) return `#${section}`;
    return safeHref(href);
  },
};

export function Docs({ name }: { name: string }) {
  const [doc, setDoc] = useState<{ text?: string; error?: string }>({});
  useEffect(() => {
    let live = true;
    setDoc({});
    const found = DOC.test(name)
      ? fetch(`/docs/${encodeURIComponent(name)}`).then(async (r) =>
          r.ok ? { text: await r.text() } : { error: `There is no document ${name}.` },
        )
      : Promise.resolve({ error: `There is no document ${name}.` });
    found.then(
      (d) => live && setDoc(d),
      (e: unknown) => live && setDoc({ error: String(e) }),
    );
    return () => {
      live = false;
    };
  }, [name]);
  useEffect(() => {
    const title = /^# +(.+)$/m.exec(doc.text ?? '')?.[1];
    if (title) document.title = `${title} · Ursa`;
    // Opened at a section (docs/aql.md#functions): go there once it is on the page.
    if (doc.text && location.hash)
      document.getElementById(location.hash.slice(1))?.scrollIntoView();
  }, [doc.text]);
  if (doc.error)
    return (
      <p class="error" role="alert">
        {doc.error}
      </p>
    );
  if (doc.text === undefined) return <Loading what={`the document ${name}`} />;
  return (
    <article class="doc">
      <Markdown text={doc.text} options={OPTIONS} />
    </article>
  );
}
