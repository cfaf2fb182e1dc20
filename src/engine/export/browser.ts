// One headless Chromium that prints HTML to PDF. It is launched on the first export, reused by
// the next ones, and launched again when it went away (crash, killed). Each export gets its own
// browser context (no cookies, cache or storage shared with another), JavaScript off, and no
// network: every request the page makes is aborted except `data:` URLs, and host names (IP
// literals too) resolve to nothing, which also stops what request interception never sees
// (prefetch, preconnect). At most `concurrency` exports render at once, and one user at most
// `perUserSlots` of them, so nobody can hold every renderer; the others wait in line. One
// deadline covers waiting and rendering; whatever happens the context is closed.
import fs from 'node:fs';
import type { Logger } from 'pino';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { conflict, EngineError, invalid, unavailable } from '../errors.js';
import type { PdfOptions } from './pdf-options.js';

export interface RendererSettings {
  /** The Chromium binary (URSA_CHROMIUM_PATH). */
  chromiumPath: string;
  /** Exports rendered at once (URSA_EXPORT_CONCURRENCY). */
  concurrency: number;
  /** Waiting plus rendering, per export (URSA_EXPORT_TIMEOUT_MS). */
  timeoutMs: number;
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // No name or address resolves: nothing the page asks for can connect anywhere, including
  // requests the browser makes outside interception (prefetch, preconnect, DNS prefetch).
  '--host-resolver-rules=MAP * ~NOTFOUND',
];

/**
 * Renderers one user may hold at once: half of them (at least one), so a user exporting in a
 * loop leaves the other half to everyone else. Counted per process, like the renderers: each
 * process runs its own Chromium, so its share is of its own slots.
 */
export const perUserSlots = (concurrency: number): number =>
  Math.max(1, Math.floor(concurrency / 2));

/** How long a timed-out export's page may take to close before Chromium is closed. */
const STUCK_MS = 10_000;

/** A place in line for one of the renderers. */
interface Waiter {
  /** Whose export it is (the user's e-mail). */
  holder: string;
  grant: () => void;
}

export class PdfRenderer {
  private browser: Promise<Browser> | null = null;
  private running = 0;
  /** Renderers each user holds now. */
  private readonly held = new Map<string, number>();
  private readonly line: Waiter[] = [];
  private closed = false;

  constructor(
    private readonly settings: RendererSettings,
    private readonly log?: Logger,
  ) {}

  /** Prints `html` with `options` for `holder` (a user); the PDF as Chromium writes it. */
  async render(html: string, options: PdfOptions, holder: string): Promise<Buffer> {
    return this.withPage(html, holder, (page) => printPdf(page, options));
  }

  /**
   * The PDF and a PNG of the page at `widthPx` (at most `maxHeightPx` tall) from one load of
   * the page: a subscription's attachment and its inline image.
   */
  async renderBoth(
    html: string,
    options: PdfOptions,
    holder: string,
    png: { widthPx: number; maxHeightPx: number },
  ): Promise<{ pdf: Buffer; png: Buffer }> {
    return this.withPage(
      html,
      holder,
      async (page) => {
        // A string: the engine's TypeScript has no DOM types.
        const height = Number(await page.evaluate('document.documentElement.scrollHeight'));
        const image = await page.screenshot({
          type: 'png',
          fullPage: true,
          clip: { x: 0, y: 0, width: png.widthPx, height: Math.min(height, png.maxHeightPx) },
        });
        return { pdf: await printPdf(page, options), png: image };
      },
      { width: png.widthPx, height: 800 },
    );
  }

  /** `html` loaded in a fresh offline context, `produce` run on it, within the deadline. */
  private async withPage<T>(
    html: string,
    holder: string,
    produce: (page: Page) => Promise<T>,
    viewport?: { width: number; height: number },
  ): Promise<T> {
    if (this.closed) throw unavailable('the PDF renderer is shut down: the server is stopping');
    const started = Date.now();
    const deadline = started + this.settings.timeoutMs;
    await this.acquire(holder, deadline, started);
    const waited = Date.now() - started;
    let context: BrowserContext | null = null;
    /** Set once the page exists: only then may the context be closed under the work. */
    let paged = false;
    let expired = false;
    const work = (async () => {
      const browser = await this.launched();
      if (expired) throw new Error('expired');
      context = await browser.newContext({
        javaScriptEnabled: false,
        serviceWorkers: 'block',
        acceptDownloads: false,
        offline: true,
        ...(viewport ? { viewport } : {}),
      });
      if (expired) throw new Error('expired');
      await context.route('**/*', (route) =>
        route.request().url().startsWith('data:') ? route.continue() : route.abort('aborted'),
      );
      const page = await context.newPage();
      paged = true;
      if (expired) throw new Error('expired');
      // The deadline below is the only clock: a timeout of Playwright's own could end the
      // work a moment before it, as an error of another kind.
      page.setDefaultTimeout(0);
      await page.setContent(html, { waitUntil: 'load' });
      return produce(page);
    })();
    // The slot is given back only once Chromium is done with the page, after a timeout too,
    // and once only (the watchdog below may have given it back already).
    let released = false;
    const giveBack = () => {
      if (released) return;
      released = true;
      this.release(holder);
    };
    const done = work.finally(async () => {
      await (context as BrowserContext | null)?.close().catch(() => undefined);
      giveBack();
    });
    done.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => {
          expired = true;
          // Closing the context stops the printing at once. Not while its page is being made:
          // Chromium 156 then never answers either call, and the slot would be held for good;
          // the work stops itself once the page exists.
          if (paged) void (context as BrowserContext | null)?.close().catch(() => undefined);
          this.watch(done, giveBack);
          const rendered = Date.now() - started - waited;
          reject(
            invalid(
              `the PDF export took longer than ${this.settings.timeoutMs} ms (${rendered} ms rendering after ${waited} ms waiting): make the page smaller or simpler`,
              {
                timeoutMs: this.settings.timeoutMs,
                waitedMs: waited,
                renderMs: rendered,
                setting: 'URSA_EXPORT_TIMEOUT_MS',
              },
            ),
          );
        },
        Math.max(0, deadline - Date.now()),
      );
    });
    try {
      return await Promise.race([done, timeout]);
    } catch (err) {
      if (expired || err instanceof EngineError) throw err;
      if (!(await this.browser?.then((b) => b.isConnected()).catch(() => false)))
        throw unavailable('Chromium stopped during the PDF export; try again', {
          setting: 'URSA_CHROMIUM_PATH',
        });
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * After a timeout, the work must end soon (its context closed). If Chromium does not answer
   * within STUCK_MS, the slot is given back anyway and that Chromium closed, which ends every
   * call it left hanging; the next export launches another.
   */
  private watch(done: Promise<unknown>, giveBack: () => void): void {
    let settled = false;
    void done.finally(() => (settled = true)).catch(() => undefined);
    setTimeout(() => {
      if (settled) return;
      this.log?.warn(
        { afterMs: STUCK_MS },
        'chromium did not end a timed-out PDF export; closing it (the next export launches it again)',
      );
      giveBack();
      const browser = this.browser;
      this.browser = null;
      void browser?.then((b) => b.close()).catch(() => undefined);
    }, STUCK_MS).unref();
  }

  /** Closes Chromium (waiting exports fail); the engine calls it when it closes. */
  async close(): Promise<void> {
    this.closed = true;
    const browser = this.browser;
    this.browser = null;
    for (const w of this.line.splice(0)) w.grant(); // each rejects: the renderer is closed
    await browser?.then((b) => b.close()).catch(() => undefined);
  }

  /**
   * Waits until a renderer is free and `holder` holds fewer than their share, until the
   * deadline; 409 when that did not happen in time.
   */
  private acquire(holder: string, deadline: number, started: number): Promise<void> {
    if (this.mayStart(holder)) {
      this.take(holder);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        holder,
        grant: () => {
          clearTimeout(timer);
          if (this.closed)
            reject(unavailable('the PDF renderer is shut down: the server is stopping'));
          else resolve();
        },
      };
      const timer = setTimeout(
        () => {
          const i = this.line.indexOf(waiter);
          if (i >= 0) this.line.splice(i, 1);
          reject(this.noneFree(holder, Date.now() - started));
        },
        Math.max(0, deadline - Date.now()),
      );
      this.line.push(waiter);
    });
  }

  private get share(): number {
    return perUserSlots(this.settings.concurrency);
  }

  private mayStart(holder: string): boolean {
    return this.running < this.settings.concurrency && (this.held.get(holder) ?? 0) < this.share;
  }

  private take(holder: string): void {
    this.running += 1;
    this.held.set(holder, (this.held.get(holder) ?? 0) + 1);
  }

  /** Frees `holder`'s renderer and starts whoever waits longest and may start now. */
  private release(holder: string): void {
    this.running -= 1;
    const left = (this.held.get(holder) ?? 1) - 1;
    if (left > 0) this.held.set(holder, left);
    else this.held.delete(holder);
    // Those at their share stay in line, without holding up the others behind them.
    for (let i = 0; i < this.line.length && this.running < this.settings.concurrency;) {
      const w = this.line[i]!;
      if (!this.mayStart(w.holder)) {
        i += 1;
        continue;
      }
      this.line.splice(i, 1);
      this.take(w.holder);
      w.grant();
    }
  }

  /** The 409 of an export that waited its whole time limit: whose renderers were busy. */
  private noneFree(holder: string, waitedMs: number): EngineError {
    const { concurrency, timeoutMs } = this.settings;
    const yours = this.held.get(holder) ?? 0;
    const context = {
      timeoutMs,
      waitedMs,
      concurrency,
      perUser: this.share,
      yours,
      setting: 'URSA_EXPORT_CONCURRENCY',
    };
    if (yours >= this.share)
      return conflict(
        `your other PDF exports held your share of the renderers for ${timeoutMs} ms (one user renders at most ${this.share} of the ${concurrency} at once); wait for them to finish, then try again`,
        context,
      );
    return conflict(
      `no PDF renderer came free within ${timeoutMs} ms (${concurrency} exports render at once, ${this.line.length} more waiting); try again`,
      context,
    );
  }

  /** The running browser, launched when there is none (first export, after a crash). */
  private launched(): Promise<Browser> {
    if (this.closed)
      return Promise.reject(unavailable('the PDF renderer is shut down: the server is stopping'));
    if (!this.browser) {
      const launching = this.launch();
      this.browser = launching;
      launching.then(
        (b) =>
          b.on('disconnected', () => {
            if (this.browser === launching) this.browser = null;
            // close() disconnects it on purpose; anything else is a crash or a kill.
            if (!this.closed)
              this.log?.warn(
                'chromium for PDF export disconnected; the next export launches it again',
              );
          }),
        () => {
          if (this.browser === launching) this.browser = null;
        },
      );
    }
    return this.browser;
  }

  private async launch(): Promise<Browser> {
    const path = this.settings.chromiumPath;
    if (!fs.existsSync(path))
      throw unavailable(
        `PDF export needs Chromium, which is not at ${path}: install it (apt-get install chromium) or set URSA_CHROMIUM_PATH to its binary`,
        { setting: 'URSA_CHROMIUM_PATH', path },
      );
    try {
      // Loaded with the first export: most processes never start Chromium.
      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({ executablePath: path, args: CHROMIUM_ARGS });
      this.log?.info({ path, version: browser.version() }, 'chromium for PDF export launched');
      return browser;
    } catch (err) {
      this.log?.error({ err, path }, 'chromium for PDF export failed to launch');
      throw unavailable(
        `PDF export could not start Chromium at ${path} (URSA_CHROMIUM_PATH): ${(err as Error).message.split('\n')[0]}`,
        { setting: 'URSA_CHROMIUM_PATH', path },
      );
    }
  }
}

function printPdf(page: Page, options: PdfOptions): Promise<Buffer> {
  return page.pdf({
    width: `${options.width}in`,
    height: `${options.height}in`,
    margin: {
      top: `${options.margin.top}in`,
      right: `${options.margin.right}in`,
      bottom: `${options.margin.bottom}in`,
      left: `${options.margin.left}in`,
    },
    scale: options.scale,
    printBackground: options.printBackground,
    // The page's own CSS `@page { size }` does not override the options.
    preferCSSPageSize: false,
  });
}
