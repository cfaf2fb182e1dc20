// axe-core in a page of the real app: evaluated through the DevTools protocol, which the app's
// CSP (script-src 'self') does not govern, so the CSP stays as strict as in production. Only
// violations of impact `serious` or `critical` count.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = fs.readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/** Runs axe in the page; the violations that are `serious` or `critical`. */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<Violation[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    })))`,
  );
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export const describeViolations = (vs: Violation[]) =>
  vs
    .map(
      (v) =>
        `[${v.impact}] ${v.id}: ${v.help} (${v.helpUrl})\n` +
        v.nodes
          .map(
            (n) =>
              `    ${JSON.stringify(n.target)}${n.failureSummary ? `\n      ${n.failureSummary.replace(/\n/g, '\n      ')}` : ''}`,
          )
          .join('\n'),
    )
    .join('\n');
