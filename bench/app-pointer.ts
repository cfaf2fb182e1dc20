// bench:app's pointer part: a chart's tooltip and its click menu, timed in the page from the
// pointer event (its timeStamp, taken by a capturing listener before the chart sees it) until
// what it shows is in the DOM and painted (a MutationObserver sees it visible; then the frame
// that draws it: requestAnimationFrame, and a message posted from there runs after its paint).
// Baseline in the same page and run: the same wait for the next painted frame after a pointer
// event that changes nothing (a move over the chart card's heading, a click on it).
import type { BrowserContext, Page } from 'playwright-core';
import { median, quantile } from './compare.js';
import { LIGHT } from '../src/shared/chart/theme.js';

const FRAME_MS = 1000 / 60;

/**
 * Installs in the page `__armPointer(kind, selector)`, resolving with the next `kind` event's
 * time and the paint of `selector` shown after it (none: of the next frame), and
 * `__shownPointer(selector)`: an element of it visible with text (ECharts empties its tooltip).
 */
const ARM = `window.__shownPointer = (selector) =>
  [...document.querySelectorAll(selector)].some((el) => {
    const s = getComputedStyle(el);
    return s.display !== 'none' && s.visibility === 'visible' && s.opacity !== '0' &&
      el.textContent.trim() !== '';
  });
window.__armPointer = (kind, selector) => new Promise((resolve) => {
  let at = null;
  const painted = () => requestAnimationFrame(() => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => resolve({ event: at, painted: performance.now() });
    ch.port2.postMessage(0);
  });
  const shown = () => __shownPointer(selector);
  const seen = new MutationObserver(() => {
    if (at !== null && shown()) { seen.disconnect(); painted(); }
  });
  const onEvent = (e) => {
    if (at !== null) return;
    at = e.timeStamp;
    removeEventListener(kind, onEvent, true);
    if (!selector) painted();
  };
  addEventListener(kind, onEvent, true);
  if (selector) seen.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  setTimeout(() => resolve(null), 5000);
})`;

/** One pointer action, timed: `selector` what must show (none: the next frame). */
async function timed(
  page: Page,
  kind: 'pointermove' | 'click',
  selector: string | null,
  act: () => Promise<void>,
): Promise<number> {
  const armed = page.evaluate(
    ([k, s]) =>
      (globalThis as unknown as Record<string, (...a: unknown[]) => unknown>).__armPointer!(k, s),
    [kind, selector] as const,
  ) as Promise<{ event: number; painted: number } | null>;
  // The listener is in place once the evaluate has run its synchronous part; a round trip
  // makes sure of it before the pointer moves.
  await page.evaluate(() => 0);
  await act();
  const r = await armed;
  if (!r)
    throw new Error(
      `bench:app pointer: nothing ${selector ? `(${selector}) ` : ''}shown after a ${kind}`,
    );
  return r.painted - r.event;
}

export async function pointerParts(
  board: string,
  fresh: () => Promise<BrowserContext>,
  drawn: () => boolean,
  rounds: number,
): Promise<void> {
  const c = await fresh();
  try {
    const p = await c.newPage();
    await p.goto(board);
    await p.waitForFunction(drawn, undefined, { timeout: 20_000 });
    await p.evaluate(ARM);
    const chart = p.getByRole('group', { name: /^Flights by carrier: chart\./ });
    const card = p.locator('[data-item]', { has: chart });
    // Where the pointer goes, read again each round (the menu's focus may scroll the page):
    // a bar's middle, and the chart card's heading (nothing happens over or on it).
    const places = async () => {
      await card.scrollIntoViewIfNeeded();
      const bar = (await chart
        .locator(`.chart-canvas svg path[fill="${LIGHT.palette[0]}"]`)
        .first()
        .boundingBox())!;
      const head = (await card.locator('h2').boundingBox())!;
      return {
        bar: { x: bar.x + bar.width / 2, y: bar.y + bar.height / 2 },
        head: { x: head.x + 4, y: head.y + head.height / 2 },
      };
    };
    // ECharts' tooltip: the chart box's own div beside its drawing; the mark's menu.
    const TIP = '.chart-live .chart-canvas > div:not(:has(svg))';
    const MENU = '.chart-menu';
    const tip: number[] = [];
    const menu: number[] = [];
    const move: number[] = [];
    const click: number[] = [];
    for (let i = 0; i <= rounds; i++) {
      // A no-op move (the tooltip, with no hide delay, goes as the pointer leaves the chart).
      const at = await places();
      const m = await timed(p, 'pointermove', null, () => p.mouse.move(at.head.x, at.head.y));
      await p.waitForFunction(`!__shownPointer(${JSON.stringify(TIP)})`);
      const t = await timed(p, 'pointermove', TIP, () => p.mouse.move(at.bar.x, at.bar.y));
      const k = await timed(p, 'click', MENU, () => p.mouse.click(at.bar.x, at.bar.y));
      await p.keyboard.press('Escape');
      await p.locator(MENU).waitFor({ state: 'detached' });
      const n = await timed(p, 'click', null, () => p.mouse.click(at.head.x, at.head.y));
      // The first round warms up (the tooltip's element made, the menu's code run once).
      if (i === 0) continue;
      [move, tip, click, menu].forEach((xs, j) => xs.push([m, t, n, k][j]!));
    }
    const line = (what: string, ours: number[], base: number[], noop: string) => {
      const o = median(ours);
      const b = median(base);
      return `${what} median ${o.toFixed(1)} ms (p90 ${quantile(ours, 0.9).toFixed(1)}); the next frame after ${noop} ${b.toFixed(1)} ms; ratio ${(o / b).toFixed(2)}×; goal ≤ ${FRAME_MS.toFixed(1)} ms ${o <= FRAME_MS ? 'PASS' : 'ABOVE GOAL'}`;
    };
    console.log(
      `pointer: ${line('tooltip painted after a move onto a bar,', tip, move, "a move over the chart's heading")}`,
    );
    console.log(
      `pointer: ${line("the mark's menu painted after a click on it,", menu, click, 'a click on that heading')}`,
    );
  } finally {
    await c.close();
  }
}
