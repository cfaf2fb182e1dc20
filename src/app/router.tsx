// Client-side routes under /app, kept in the address bar (history API) so every screen has a
// URL that can be bookmarked, shared and opened in a new tab.
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/app';

const listeners = new Set<() => void>();
addEventListener('popstate', () => listeners.forEach((l) => l()));

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  listeners.forEach((l) => l());
  scrollTo(0, 0);
}

export interface Location {
  /** Path segments after /app, decoded. */
  parts: string[];
  query: URLSearchParams;
}

/** The address as path segments and query. */
export function current(): Location {
  const rest = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '';
  return {
    parts: rest.split('/').filter(Boolean).map(decodeURIComponent),
    query: new URLSearchParams(location.search),
  };
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const l = () => setLoc(current());
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  return loc;
}

/** An app path from segments: appPath('p', 'demo', 'dashboards'). */
export const appPath = (...parts: string[]): string =>
  `${BASE}/${parts.map(encodeURIComponent).join('/')}`.replace(/\/$/, '');

type LinkProps = JSX.HTMLAttributes<HTMLAnchorElement> & {
  href: string;
  children?: ComponentChildren;
};

/** A link that changes screens without reloading the page (modified clicks open a tab). */
export function Link({ href, children, ...rest }: LinkProps) {
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey)
      return;
    e.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
