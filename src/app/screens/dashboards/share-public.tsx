// A public share's address: shown with a copy button, a link to open it, and an <iframe>
// snippet for embedding it in a page (docs/sharing.md, "Embedding in a page").
import { useState } from 'preact/hooks';
import { useProject } from '../../project';

/** Whether an address names this computer only (the site address left at its default). */
export function isLocalAddress(url: string): boolean {
  try {
    const host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
    return (
      host === 'localhost' ||
      host.endsWith('.localhost') ||
      host === '::1' ||
      host === '0.0.0.0' ||
      /^127\./.test(host)
    );
  } catch {
    return false;
  }
}

const attr = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function PublicAddress(p: { url: string; name: string; origins?: string[] }) {
  const { url, name } = p;
  const project = useProject();
  const snippet = `<iframe src="${attr(url)}" title="${attr(name)}" width="100%" height="640" style="border:0" loading="lazy" referrerpolicy="no-referrer"></iframe>`;
  const origins = p.origins ?? project.embedOrigins;
  return (
    <div class="dash-public">
      {isLocalAddress(url) && (
        <p class="dash-warning-box" role="alert">
          This address is on <strong>{new URL(url).host}</strong>: only the computer running Ursa
          can open it. Set the site address (<code>URSA_SITE_URL</code>) to the address people reach
          the server at, then copy the link again.
        </p>
      )}
      <Copyable id="dash-public-url" label="Public address" text={url} />
      <p class="dash-hint">
        <a href={url} target="_blank" rel="noopener noreferrer">
          Open the public page
        </a>{' '}
        <span class="muted">(the address is its only key: hand it out like a password)</span>
      </p>
      <Copyable id="dash-public-embed" label="Embed in a web page" text={snippet} multiline />
      <p class="muted dash-hint">
        {origins.length
          ? `Only pages of ${origins.join(', ')} may frame it.`
          : 'Any web page may frame it (the project sets no embed origins).'}
      </p>
    </div>
  );
}

function Copyable(props: { id: string; label: string; text: string; multiline?: boolean }) {
  const [said, setSaid] = useState('');
  const copy = () => {
    const field = document.getElementById(props.id) as HTMLInputElement | HTMLTextAreaElement;
    // navigator.clipboard is missing on pages that are not a secure context.
    const clip = navigator.clipboard as Clipboard | undefined;
    (clip ? clip.writeText(props.text) : Promise.reject(new Error('no clipboard'))).then(
      () => setSaid('Copied.'),
      () => {
        // No clipboard access (an insecure page, a refused permission): select it instead.
        field.focus();
        field.select();
        setSaid('Selected: press Ctrl+C (⌘C) to copy.');
      },
    );
  };
  return (
    <div class="dash-copy">
      <label for={props.id}>{props.label}</label>
      <div class="dash-copy-row">
        {props.multiline ? (
          <textarea id={props.id} readOnly rows={3} value={props.text} />
        ) : (
          <input id={props.id} readOnly value={props.text} />
        )}
        <button type="button" class="quiet" onClick={copy}>
          Copy<span class="sr-only"> {props.label.toLowerCase()}</span>
        </button>
      </div>
      <span role="status" class="muted">
        {said}
      </span>
    </div>
  );
}
