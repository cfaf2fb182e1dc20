// Small pieces every screen uses: headings with the page title, errors, loading.
import type { ComponentChildren, VNode } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError } from './api';
import { Link } from './router';

/** The screen's title, also the document's. */
export function Title({ children, text }: { children?: ComponentChildren; text: string }) {
  useEffect(() => {
    document.title = `${text} · Ursa`;
  }, [text]);
  return <h1>{children ?? text}</h1>;
}

export function ErrorNote({ error }: { error: ApiError | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error.message}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

/** A screen's tabs: links kept in the address, the current one marked for assistive tech. */
export function Tabs(props: {
  label: string;
  tabs: { href: string; title: string; current: boolean }[];
}) {
  return (
    <nav class="tabs" aria-label={props.label}>
      <ul>
        {props.tabs.map((t) => (
          <li key={t.href}>
            <Link href={t.href} aria-current={t.current ? 'page' : undefined}>
              {t.title}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/**
 * A button that opens a dialog (Share…, Subscribe…, Alert me…): the dialog is mounted while
 * open, and closing it gives the focus back to the button (keyboard users stay in place).
 */
export function DialogButton(props: { label: string; dialog: (close: () => void) => VNode }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  return (
    <>
      <button
        ref={button}
        type="button"
        class="quiet"
        aria-haspopup="dialog"
        onClick={() => setOpen(true)}
      >
        {props.label}
      </button>
      {open && props.dialog(close)}
    </>
  );
}
