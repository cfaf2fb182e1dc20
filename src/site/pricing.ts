// The pricing page, from site/pricing.yaml: read and validated once, at start-up, so a bad
// file stops the server with the field that is wrong instead of showing a broken page.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { LIMIT_NAMES, type LimitName } from '../engine/limits/plans.js';
import { html, raw, type Html } from '../shared/html.js';
import type { Page } from '../web/page.js';
import { sitePage } from './layout.js';
import { inlineMarkdownToHtml } from './markdown.js';
import { parseYaml } from '../shared/yaml.js';
import { SITE_DIR } from './paths.js';

const count = z.number().int().nonnegative();
const tierSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9_-]+$/),
    name: z.string().min(1),
    tagline: z.string().min(1),
    monthly: count,
    annual: count,
    aiCreditsPerMonth: count,
    highlight: z.boolean().default(false),
    limits: z.object(
      Object.fromEntries(LIMIT_NAMES.map((n) => [n, count])) as Record<LimitName, typeof count>,
    ),
    features: z.array(z.string().min(1)).min(1),
  })
  .strict()
  .refine((t) => t.annual <= t.monthly * 12, {
    message: 'annual price must not exceed twelve monthly prices',
    path: ['annual'],
  });

const pricingSchema = z
  .object({
    currency: z.literal('USD'),
    tiers: z
      .array(tierSchema)
      .min(3)
      .max(4)
      .refine((ts) => new Set(ts.map((t) => t.id)).size === ts.length, 'tier ids must be unique'),
    faq: z.array(z.object({ q: z.string().min(1), a: z.string().min(1) }).strict()).default([]),
  })
  .strict();

export type Pricing = z.infer<typeof pricingSchema>;
export type Tier = Pricing['tiers'][number];

export const PRICING_FILE = path.join(SITE_DIR, 'pricing.yaml');

export function loadPricing(file = PRICING_FILE): Pricing {
  const parsed = pricingSchema.safeParse(parseYaml(fs.readFileSync(file, 'utf8')));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid pricing file ${file}:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

export const LIMIT_LABELS: Record<LimitName, string> = {
  storageBytes: 'File storage per project',
  aiMessagesPerDay: 'AI chat messages per project per day',
  datasetRows: 'Dataset rows per project',
  users: 'Users per project',
  flows: 'Flows per project',
  projects: 'Projects',
  deliveries: 'Subscriptions and alerts per project',
  emailsPerDay: 'Subscription and alert e-mails per project per day',
};

const integer = new Intl.NumberFormat('en-US');

export const formatPrice = (dollars: number): string => `$${integer.format(dollars)}`;

export function formatLimit(name: LimitName, value: number): string {
  if (name === 'storageBytes') {
    const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
    let v = value;
    let u = 0;
    while (v >= 1024 && u < units.length - 1 && v % 1024 === 0) {
      v /= 1024;
      u++;
    }
    return `${integer.format(v)} ${units[u]}`;
  }
  return integer.format(value);
}

/** Months free when paying yearly, e.g. 490 vs 12 × 49 → "save 2 months". */
function annualNote(t: Tier): string {
  if (t.monthly === 0) return 'free forever';
  const saved = t.monthly * 12 - t.annual;
  if (saved <= 0) return 'billed yearly';
  const months = Math.round((saved / t.monthly) * 10) / 10;
  return `billed yearly, ${months} month${months === 1 ? '' : 's'} free`;
}

function tierCard(t: Tier): Html {
  const features = t.features.map((f) => html`<li>${raw(inlineMarkdownToHtml(f))}</li>`);
  const badge = t.highlight && html`<p class="badge">Most popular</p>`;
  return html`<li class="card tier${t.highlight && ' highlight'}" id="tier-${t.id}">
${badge}<h2>${t.name}</h2>
<p class="muted">${t.tagline}</p>
<p class="price" data-monthly="${t.monthly}">${formatPrice(t.monthly)} <span>per month</span></p>
<p class="annual" data-annual="${t.annual}">or ${formatPrice(t.annual)} per year (${annualNote(t)})</p>
<p class="credits" data-credits="${t.aiCreditsPerMonth}">${integer.format(t.aiCreditsPerMonth)} AI credits per month</p>
<ul>${features}</ul>
<p><a class="button${t.highlight && ' primary'}" href="/auth/login?next=/app">Start with ${t.name}</a></p>
</li>`;
}

function limitsTable(tiers: Tier[]): Html {
  const head = tiers.map((t) => html`<th scope="col">${t.name}</th>`);
  const row = (label: string, cells: string[]) =>
    html`<tr><th scope="row">${label}</th>${cells.map((c) => html`<td>${c}</td>`)}</tr>`;
  const rows = [
    row(
      'Monthly price',
      tiers.map((t) => formatPrice(t.monthly)),
    ),
    row(
      'Annual price',
      tiers.map((t) => formatPrice(t.annual)),
    ),
    row(
      'AI credits per month',
      tiers.map((t) => integer.format(t.aiCreditsPerMonth)),
    ),
    ...LIMIT_NAMES.map((n) =>
      row(
        LIMIT_LABELS[n],
        tiers.map((t) => formatLimit(n, t.limits[n])),
      ),
    ),
  ];
  return html`<div class="scroll" role="region" aria-labelledby="compare" tabindex="0"><table>
<thead><tr><th scope="col">Limit</th>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

export function pricingPage(p: Pricing): Page {
  // Answers and features are Markdown, rendered by the sanitizing renderer (markdown.ts).
  const faq = p.faq.map((f) => html`<h3>${f.q}</h3><p>${raw(inlineMarkdownToHtml(f.a))}</p>`);
  const body = html`<h1>Pricing</h1>
<p class="lead">Every tier has the whole product: the REST API, AQL, the MCP server and AI chat.
Tiers differ in how much you store and load, how many people and flows you have, and how many AI
credits you get each month. Prices in US dollars, excluding tax.</p>
<ul class="grid" aria-label="Tiers">${p.tiers.map(tierCard)}</ul>
<h2 id="compare">Compare the limits</h2>
<p>Limits are checked before every change; one that would be exceeded is refused with HTTP 402
and nothing changes.</p>
${limitsTable(p.tiers)}
${faq.length > 0 && html`<h2>Questions</h2>${faq}`}`;
  return sitePage({
    title: 'Pricing',
    description: `Ursa pricing: ${p.tiers.map((t) => `${t.name} ${formatPrice(t.monthly)}/month`).join(', ')}.`,
    section: '/pricing',
    body,
  });
}
