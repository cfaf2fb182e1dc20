// Parts of a dashboard's page: its tabs, its automatic refresh, and full screen.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

/** The tabs of a dashboard with tabs (WAI-ARIA tabs: arrow keys move between them). */
export function DashTabs(p: {
  tabs: { id: string; title: string }[];
  current: string;
  onTab: (id: string) => void;
  children: ComponentChildren;
}) {
  const list = useRef<HTMLDivElement>(null);
  const key = (e: KeyboardEvent, i: number) => {
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    const to =
      e.key === 'Home'
        ? 0
        : e.key === 'End'
          ? p.tabs.length - 1
          : step
            ? (i + step + p.tabs.length) % p.tabs.length
            : -1;
    if (to < 0) return;
    e.preventDefault();
    p.onTab(p.tabs[to]!.id);
    list.current?.querySelectorAll<HTMLButtonElement>('[role=tab]')[to]?.focus();
  };
  return (
    <>
      <div class="dash-tabs" role="tablist" aria-label="Dashboard tabs" ref={list}>
        {p.tabs.map((t, i) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`dash-tab-${t.id}`}
            aria-selected={t.id === p.current}
            aria-controls="dash-tab-panel"
            tabIndex={t.id === p.current ? 0 : -1}
            onClick={() => p.onTab(t.id)}
            onKeyDown={(e) => key(e, i)}
          >
            {t.title}
          </button>
        ))}
      </div>
      <div id="dash-tab-panel" role="tabpanel" aria-labelledby={`dash-tab-${p.current}`}>
        {p.children}
      </div>
    </>
  );
}

/** Words for a refresh interval: "every 5 minutes". */
export function everyText(seconds: number): string {
  const [n, unit] =
    seconds % 3600 === 0
      ? [seconds / 3600, 'hour']
      : seconds % 60 === 0
        ? [seconds / 60, 'minute']
        : [seconds, 'second'];
  return n === 1 ? `every ${unit}` : `every ${n} ${unit}s`;
}

/**
 * Reloads every `seconds` while the page is shown (a hidden tab waits, and reloads when it is
 * shown again if the time has passed); says when it last did.
 */
export function AutoRefresh({ seconds, reload }: { seconds: number; reload: () => void }) {
  const [at, setAt] = useState(() => new Date());
  useEffect(() => {
    let last = Date.now();
    const tick = () => {
      if (document.visibilityState !== 'visible' || Date.now() - last < seconds * 1000 - 500)
        return;
      last = Date.now();
      setAt(new Date());
      reload();
    };
    const t = setInterval(tick, Math.min(seconds * 1000, 15_000));
    document.addEventListener('visibilitychange', tick);
    return () => {
      clearInterval(t);
      document.removeEventListener('visibilitychange', tick);
    };
  }, [seconds, reload]);
  return (
    <p class="muted dash-refresh">
      Refreshes {everyText(seconds)}; last at{' '}
      <time dateTime={at.toISOString()}>{at.toLocaleTimeString()}</time>.
    </p>
  );
}

/** A button putting `target` in full screen (Esc, or the button again, leaves it). */
export function FullScreenButton({ target }: { target: () => HTMLElement | null }) {
  const [on, setOn] = useState(false);
  useEffect(() => {
    const sync = () => setOn(document.fullscreenElement !== null);
    document.addEventListener('fullscreenchange', sync);
    return () => document.removeEventListener('fullscreenchange', sync);
  }, []);
  // Browsers without full screen (an iPhone's Safari) get no button.
  if (!document.fullscreenEnabled) return null;
  return (
    <button
      type="button"
      class="quiet"
      aria-pressed={on}
      onClick={() => {
        if (document.fullscreenElement) void document.exitFullscreen();
        else void target()?.requestFullscreen();
      }}
    >
      {on ? 'Exit full screen' : 'Full screen'}
    </button>
  );
}
