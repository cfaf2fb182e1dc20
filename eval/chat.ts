// eval:chat — how well the AI chat answers questions about the demo data. Starts the real
// server in-process on a temporary data directory with the demo project, computes the right
// answer of every question of eval/questions.yaml with its AQL, asks each question through the
// engine's AI chat (as the demo admin, a fresh conversation each) and scores the answer:
//   correct — the expected values appear in the answer text (numbers as shown: 1,234,567,
//             1.23M, 1.2 million, 12.35 for 12.3456, 18.9% for 0.18915; text case-insensitive);
//   data    — the queries the agent ran returned the expected values.
// Prints a table (id, correct, data, steps, tokens, seconds, note) and a summary line.
//
// Run it with a real model (it costs tokens: ~46 questions, a few model calls each):
//   URSA_AI_PROVIDER=openai URSA_AI_MODEL=gpt-4.1-mini URSA_AI_API_KEY=sk-… npm run eval:chat
//   URSA_AI_PROVIDER=anthropic URSA_AI_MODEL=claude-sonnet-4-5 URSA_AI_API_KEY=sk-ant-… \
//     npm run eval:chat -- --concurrency 4 --json eval-result.json
//   URSA_AI_PROVIDER=openai URSA_AI_BASE_URL=http://localhost:11434/v1 URSA_AI_MODEL=qwen2.5:14b \
//     npm run eval:chat -- --only total-flights,busiest-airport
// Options: --only id,id (a subset), --json file (every answer, query and score), --concurrency n
// (questions asked at once, default 1), --questions file (another question set). Every
// URSA_AI_* variable reaches the server (URSA_AI_MAX_STEPS, URSA_AI_STREAM…); nothing else does.
// Exit status: 0 after a run (whatever the accuracy), 2 without an AI provider, 1 on errors.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parse as parseYamlText } from 'yaml';
import { z } from 'zod';
import { AiConfigError, parseAiConfig } from '../src/engine/ai/config.js';
import type { AiAnswer, AiQuery } from '../src/engine/ai/types.js';
import { loadConfig } from '../src/engine/config.js';
import type { Job } from '../src/engine/jobs/jobs.js';
import { createLogger } from '../src/engine/logger.js';
import { startServer } from '../src/server.js';

export const DEFAULT_QUESTIONS = new URL('./questions.yaml', import.meta.url).pathname;

// ---- questions -------------------------------------------------------------------------

const index = z.number().int().min(0);

/** Which cells of the expected result must appear in the answer (see questions.yaml). */
const checkSchema = z.union([
  z.enum(['value', 'first-row', 'all']),
  z.object({ cells: z.array(z.tuple([index, index])).min(1) }).strict(),
  z.object({ column: index, rows: z.number().int().min(1).optional() }).strict(),
]);

export type Check = z.infer<typeof checkSchema>;

const questionSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'a slug: lower-case letters, digits and -'),
    question: z.string().trim().min(1),
    expected: z
      .object({
        aql: z.string().trim().min(1),
        check: checkSchema,
        /** Other spellings an answer may use for an expected cell (CA: [California]). */
        synonyms: z.record(z.string(), z.array(z.string().trim().min(1)).min(1)).optional(),
      })
      .strict(),
  })
  .strict();

export type EvalQuestion = z.infer<typeof questionSchema>;

/** Reads and checks a question file (a YAML list); ids must be unique. */
export function loadQuestions(file: string = DEFAULT_QUESTIONS): EvalQuestion[] {
  const parsed = z
    .array(questionSchema)
    .min(1)
    .safeParse(parseYamlText(fs.readFileSync(file, 'utf8')));
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`${file} is not a valid question list:\n${issues.join('\n')}`);
  }
  const seen = new Set<string>();
  for (const q of parsed.data) {
    if (seen.has(q.id)) throw new Error(`${file}: question id "${q.id}" is used twice`);
    seen.add(q.id);
  }
  return parsed.data;
}

/** The cells a check asks for, in reading order; refuses cells that do not exist or are empty. */
export function expectedValues(rows: string[][], check: Check): string[] {
  if (rows.length === 0) throw new Error('the expected result has no rows');
  const at = (r: number, c: number): string => {
    const v = rows[r]?.[c];
    if (v === undefined) throw new Error(`the expected result has no cell [${r}, ${c}]`);
    if (v.trim() === '') throw new Error(`the expected cell [${r}, ${c}] is empty`);
    return v;
  };
  const first = rows[0]!;
  if (check === 'value') return [at(0, first.length - 1)];
  if (check === 'first-row') return first.map((_, c) => at(0, c));
  if (check === 'all') return rows.flatMap((row, r) => row.map((_, c) => at(r, c)));
  if ('cells' in check) return check.cells.map(([r, c]) => at(r, c));
  const n = Math.min(rows.length, check.rows ?? rows.length);
  if (check.rows !== undefined && rows.length < check.rows)
    throw new Error(`the expected result has ${rows.length} rows, fewer than ${check.rows}`);
  return rows.slice(0, n).map((_, r) => at(r, check.column));
}

// ---- matching values in text -----------------------------------------------------------

/** A number shown in a text, with the precision it is shown at. */
interface Figure {
  /** The absolute value, scaled (1.2M → 1200000). */
  value: number;
  /** One unit of the last digit shown, scaled (1.2M → 100000); 0 when exact only. */
  unit: number;
  /** Significant digits shown. */
  sig: number;
  /** Followed by % (or, for query cells, possibly a percentage of the expected ratio). */
  percent: boolean;
}

const SCALE: Record<string, number> = {
  k: 1e3,
  thousand: 1e3,
  m: 1e6,
  mn: 1e6,
  million: 1e6,
  b: 1e9,
  bn: 1e9,
  billion: 1e9,
};

// Thousands separators: comma, no-break, narrow no-break and thin spaces. K/M/B must touch
// the number ("1.2M"); "k" too ("60k"); words may follow a space ("1.2 million").
const FIGURE =
  /(?<![\p{L}\p{N}.,])(\d{1,3}(?:[,\u00a0\u202f\u2009]\d{3})+|\d+)(?:\.(\d+))?(?:\s?(%|percent\b|per cent\b)|([KMB]|k|bn|mn)(?![\p{L}\p{N}])|\s?(thousand|million|billion)\b)?/gu;

function significant(digits: string): number {
  const d = digits.replace(/^0+/, '');
  return d.length === 0 ? 1 : d.length;
}

/** The numbers of a text (signs dropped: "-2" and "2 minutes early" say the same). */
export function figuresOf(text: string): Figure[] {
  const out: Figure[] = [];
  for (const m of text.matchAll(FIGURE)) {
    const whole = m[1]!.replace(/[^\d]/g, '');
    const frac = m[2] ?? '';
    const scale = SCALE[(m[4] ?? m[5] ?? '').toLowerCase()] ?? 1;
    const value = Number(frac ? `${whole}.${frac}` : whole) * scale;
    if (!Number.isFinite(value)) continue;
    out.push({
      value,
      unit: 10 ** -frac.length * scale,
      sig: significant(whole + frac),
      percent: m[3] !== undefined,
    });
  }
  return out;
}

/** A query result cell as a figure (a ratio may have been turned into a percentage). */
function cellFigure(cell: string): Figure | undefined {
  const m = /^-?(\d+)(?:\.(\d+))?([eE][-+]?\d+)?$/.exec(cell.trim());
  if (!m) return undefined;
  const frac = m[2] ?? '';
  return {
    value: Math.abs(Number(cell)),
    unit: m[3] ? 0 : 10 ** -frac.length,
    sig: significant(m[1]! + frac),
    percent: true,
  };
}

const NUMERIC = /^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Whether a shown figure gives the expected number: exactly, or — with at least two
 * significant digits shown — as the expected value rounded or cut to the shown precision.
 * A percentage also stands for the ratio (18.9% for 0.18915).
 */
function figureMatches(expected: number, f: Figure): boolean {
  const e = Math.abs(expected);
  const candidates: [number, number][] = [[f.value, f.unit]];
  if (f.percent) candidates.push([f.value / 100, f.unit / 100]);
  return candidates.some(([v, u]) => {
    if (Math.abs(v - e) <= 1e-9 * Math.max(1, e)) return true;
    if (f.sig < 2 || u === 0) return false;
    const eps = u * 1e-9;
    const rounded = Math.abs(v - e) <= u / 2 + eps;
    const cut = v <= e + eps && e - v < u - eps;
    return rounded || cut;
  });
}

const NUMBER_WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
  'twenty',
];

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** Text for word matching: typographic quotes and dashes made plain, spaces collapsed. */
function normalize(s: string): string {
  return s
    .normalize('NFKC')
    .replace(/[\u2018\u2019\u02bc`´]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/\s+/g, ' ')
    .toLowerCase();
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `phrase` occurs in `text` as whole words (both normalized). */
function hasWords(text: string, phrase: string): boolean {
  const p = normalize(phrase).trim();
  if (!p) return false;
  return new RegExp(`(?<![\\p{L}\\p{N}])${escapeRe(p)}(?![\\p{L}\\p{N}])`, 'u').test(text);
}

function hasDate(text: string, iso: RegExpExecArray): boolean {
  const [, y, m, d] = iso;
  if (text.includes(iso[0])) return true;
  const month = MONTHS[Number(m) - 1];
  if (!month) return false;
  const mon = `(?:${month}|${month.slice(0, 3)}\\.?)`;
  const day = `0?${Number(d)}(?:st|nd|rd|th)?`;
  return (
    new RegExp(`${mon} ${day},? ${y}`).test(text) || new RegExp(`${day} ${mon},? ${y}`).test(text)
  );
}

/** Where values are looked for: the figures and the normalized text. */
interface Haystack {
  figures: Figure[];
  text: string;
}

function found(value: string, h: Haystack): boolean {
  if (NUMERIC.test(value)) {
    const n = Number(value);
    if (h.figures.some((f) => figureMatches(n, f))) return true;
    const word = Number.isInteger(n) ? NUMBER_WORDS[Math.abs(n)] : undefined;
    return word !== undefined && hasWords(h.text, word);
  }
  const iso = ISO_DATE.exec(value);
  if (iso && hasDate(h.text, iso)) return true;
  return hasWords(h.text, value);
}

/** Answer text without code: AQL shown in a block or an inline span is not a claim. */
function prose(answer: string): string {
  return answer.replace(/```[\s\S]*?```/g, ' ').replace(/`[^`]*\[[^`]*`/g, ' ');
}

export interface Score {
  correct: boolean;
  /** The values looked for. */
  expected: string[];
  /** Those not found. */
  missing: string[];
}

function score(values: string[], h: Haystack, synonyms: Synonyms = {}): Score {
  const missing = values.filter(
    (v) => !found(v, h) && !(Object.hasOwn(synonyms, v) && synonyms[v]!.some((s) => found(s, h))),
  );
  return { correct: missing.length === 0, expected: values, missing };
}

export type Synonyms = Record<string, string[]>;

/**
 * Whether the answer text shows the cells `check` picks from the expected result (or, for a
 * cell listed in `synonyms`, one of its other spellings).
 */
export function scoreAnswer(
  expectedRows: string[][],
  check: Check,
  answer: string,
  synonyms?: Synonyms,
): Score {
  const text = prose(answer);
  return score(
    expectedValues(expectedRows, check),
    { figures: figuresOf(text), text: normalize(text) },
    synonyms,
  );
}

/**
 * Whether the queries the agent ran (those that did not fail) returned the expected cells,
 * anywhere in their rows. A cell may be the expected number at a coarser precision (the
 * agent rounded) or as a percentage (the agent multiplied a ratio by 100).
 */
export function scoreData(
  expectedRows: string[][],
  check: Check,
  queries: Pick<AiQuery, 'rows' | 'error'>[],
): Score {
  const cells = queries.filter((q) => !q.error).flatMap((q) => q.rows.flat());
  return score(expectedValues(expectedRows, check), {
    figures: cells.map(cellFigure).filter((f): f is Figure => f !== undefined),
    text: cells.map((c) => normalize(c)).join('\n'),
  });
}

// ---- running ---------------------------------------------------------------------------

export const AI_ENV_HELP = `npm run eval:chat needs an AI provider. Set these environment variables:
  URSA_AI_PROVIDER    openai (any OpenAI-compatible chat completions API) or anthropic
  URSA_AI_MODEL       the model name
  URSA_AI_API_KEY     the API key (a local Ollama needs none)
  URSA_AI_BASE_URL    optional: the API's base URL; OpenAI-compatible: including /v1,
                      Anthropic: without /v1
  URSA_AI_TIMEOUT_MS  optional: the time limit of one model call (default 60000)
Examples:
  OpenAI:     URSA_AI_PROVIDER=openai URSA_AI_MODEL=gpt-4.1-mini URSA_AI_API_KEY=sk-... npm run eval:chat
  Anthropic:  URSA_AI_PROVIDER=anthropic URSA_AI_MODEL=claude-sonnet-4-5 URSA_AI_API_KEY=sk-ant-... npm run eval:chat
  Ollama:     URSA_AI_PROVIDER=openai URSA_AI_BASE_URL=http://localhost:11434/v1 URSA_AI_MODEL=qwen2.5:14b npm run eval:chat`;

/** No AI provider is configured (or its settings are invalid): nothing can be evaluated. */
export class NoProviderError extends Error {
  override readonly name = 'NoProviderError';
}

export interface EvalOptions {
  /** Where the URSA_AI_* settings are read (default process.env); other variables are ignored. */
  env?: Record<string, string | undefined>;
  /** Ask only these question ids. */
  only?: string[];
  /** Questions asked at once (default 1). */
  concurrency?: number;
  questionsFile?: string;
  /** How long one question may take (default 10 minutes). */
  timeoutMs?: number;
  /** Server log level (default silent). */
  logLevel?: string;
  /** Called as each question is scored. */
  onResult?: (result: QuestionResult, done: number, total: number) => void;
}

export interface QuestionResult {
  id: string;
  question: string;
  /** The expected values appear in the answer. */
  correct: boolean;
  /** The agent's queries returned the expected values. */
  data: boolean;
  steps: number;
  inputTokens: number;
  outputTokens: number;
  seconds: number;
  /** The job's status, or FAILED when the question could not be asked. */
  status: string;
  /** Why it failed, or what is missing. */
  note: string;
  expectedAql: string;
  expected: string[];
  missing: string[];
  dataMissing: string[];
  answer: string;
  queries: { aql: string; rows: number; error?: string }[];
  complete: boolean;
  unverifiedNumbers: string[];
}

export interface EvalSummary {
  questions: number;
  correct: number;
  /** Percent correct. */
  accuracy: number;
  data: number;
  /** Percent with the expected data among the agent's query results. */
  dataAccuracy: number;
  meanSteps: number;
  inputTokens: number;
  outputTokens: number;
  seconds: number;
}

export interface EvalReport {
  provider: string;
  model: string;
  started: string;
  results: QuestionResult[];
  summary: EvalSummary;
}

/** Only the AI settings of an environment: the rest of the server runs on test defaults. */
function aiEnv(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (e): e is [string, string] => e[0].startsWith('URSA_AI_') && typeof e[1] === 'string',
    ),
  );
}

/** Runs `work` over `items` with at most `n` at once, keeping the order of the results. */
async function pool<T, R>(items: T[], n: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, worker));
  return out;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

const oneLine = (s: string, max = 120) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

export function summarize(results: QuestionResult[]): EvalSummary {
  const n = results.length;
  const correct = results.filter((r) => r.correct).length;
  const data = results.filter((r) => r.data).length;
  const pct = (k: number) => (n ? Math.round((1000 * k) / n) / 10 : 0);
  return {
    questions: n,
    correct,
    accuracy: pct(correct),
    data,
    dataAccuracy: pct(data),
    meanSteps: n ? Math.round((10 * results.reduce((s, r) => s + r.steps, 0)) / n) / 10 : 0,
    inputTokens: results.reduce((s, r) => s + r.inputTokens, 0),
    outputTokens: results.reduce((s, r) => s + r.outputTokens, 0),
    seconds: Math.round(10 * results.reduce((s, r) => s + r.seconds, 0)) / 10,
  };
}

/** Starts the server with the demo data, asks every question and scores the answers. */
export async function runEval(opts: EvalOptions = {}): Promise<EvalReport> {
  const env = opts.env ?? process.env;
  let ai;
  try {
    ai = parseAiConfig(env);
  } catch (err) {
    if (err instanceof AiConfigError) throw new NoProviderError(err.message, { cause: err });
    throw err;
  }
  if (!ai) throw new NoProviderError('no AI provider is configured (URSA_AI_PROVIDER is not set)');
  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? 1));
  let questions = loadQuestions(opts.questionsFile);
  if (opts.only?.length) {
    const ids = new Set(questions.map((q) => q.id));
    const unknown = opts.only.filter((id) => !ids.has(id));
    if (unknown.length) throw new Error(`unknown question id: ${unknown.join(', ')}`);
    questions = questions.filter((q) => opts.only!.includes(q.id));
  }
  const timeoutMs = opts.timeoutMs ?? 600_000;

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-eval-chat-'));
  const config = loadConfig({
    ...aiEnv(env),
    URSA_DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    URSA_LOG_LEVEL: opts.logLevel ?? 'silent',
    URSA_ADMIN_PASSWORD: randomBytes(12).toString('base64url'),
    URSA_DEMO: 'true',
    URSA_DEMO_DATA: 'true',
    // The free plan's 50 AI messages a day would stop a full run.
    URSA_DEFAULT_PLAN: 'enterprise',
    URSA_JOB_CONCURRENCY: String(Math.min(64, Math.max(2, concurrency + 2))),
    // `ai` jobs have their own limit (default 4): let --concurrency questions run at once.
    URSA_AI_CONCURRENCY: env.URSA_AI_CONCURRENCY || String(Math.min(64, Math.max(4, concurrency))),
  });
  const started = new Date().toISOString();
  let running;
  try {
    running = await startServer(config, createLogger(config.logLevel), false);
  } catch (err) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  try {
    const { engine } = running;
    const project = running.bootstrap.demoProjectId;
    const loads = await running.bootstrap.demoLoading;
    if (!project || !loads) throw new Error('the demo project was not created or did not load');
    for (const id of loads) {
      const job = await engine.jobs.waitFor(id, 300_000);
      if (job.status !== 'OK') throw new Error(`loading the demo data failed: ${job.message}`);
    }
    const actor = await engine.actor({ email: config.adminEmail }, project);

    // The ground truth first: a question whose AQL fails is a broken question set.
    const truth = new Map<string, string[][]>();
    for (const q of questions) {
      let rows: string[][];
      try {
        rows = await engine.aql.run(actor, q.expected.aql);
        const values = expectedValues(rows, q.expected.check);
        const stray = Object.keys(q.expected.synonyms ?? {}).filter((k) => !values.includes(k));
        if (stray.length) throw new Error(`synonyms for values not checked: ${stray.join(', ')}`);
      } catch (err) {
        throw new Error(`question ${q.id}: expected AQL: ${message(err)}`, { cause: err });
      }
      truth.set(q.id, rows);
    }

    let done = 0;
    const ask = async (q: EvalQuestion): Promise<QuestionResult> => {
      const rows = truth.get(q.id)!;
      const t0 = performance.now();
      let job: Job | undefined;
      let note = '';
      try {
        job = (await engine.ai.ask(actor, { question: q.question })).job;
        job = await engine.jobs.waitFor(job.id, timeoutMs);
      } catch (err) {
        note = message(err);
        if (job) {
          try {
            await engine.jobs.cancel(actor, job.id);
          } catch {
            // already finished
          }
        }
      }
      const seconds = Math.round((performance.now() - t0) / 100) / 10;
      const a = (job?.result ?? undefined) as AiAnswer | undefined;
      const answer = a?.answer ?? '';
      const s = scoreAnswer(rows, q.expected.check, answer, q.expected.synonyms);
      const d = scoreData(rows, q.expected.check, a?.queries ?? []);
      const status = job?.status ?? 'FAILED';
      if (!note && status !== 'OK') note = `${status}: ${job?.message ?? ''}`;
      if (!note && a && !a.complete) note = 'incomplete (step or token budget)';
      if (!note && !s.correct) note = `missing ${s.missing.map((v) => oneLine(v, 40)).join(', ')}`;
      const result: QuestionResult = {
        id: q.id,
        question: q.question,
        correct: s.correct,
        data: d.correct,
        steps: a?.steps ?? 0,
        inputTokens: a?.usage.inputTokens ?? 0,
        outputTokens: a?.usage.outputTokens ?? 0,
        seconds,
        status,
        note: oneLine(note),
        expectedAql: q.expected.aql,
        expected: s.expected,
        missing: s.missing,
        dataMissing: d.missing,
        answer,
        queries: (a?.queries ?? []).map((x) => ({
          aql: x.aql,
          rows: x.totalRows,
          ...(x.error ? { error: x.error } : {}),
        })),
        complete: a?.complete ?? false,
        unverifiedNumbers: a?.unverifiedNumbers ?? [],
      };
      opts.onResult?.(result, ++done, questions.length);
      return result;
    };
    const results = await pool(questions, concurrency, ask);
    return {
      provider: ai.provider,
      model: ai.model,
      started,
      results,
      summary: summarize(results),
    };
  } finally {
    await running.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---- output ----------------------------------------------------------------------------

/** The results as a plain-text table. */
export function formatTable(results: QuestionResult[]): string {
  const head = ['id', 'correct', 'data', 'steps', 'in tok', 'out tok', 'sec', 'note'];
  const body = results.map((r) => [
    r.id,
    r.correct ? 'yes' : 'NO',
    r.data ? 'yes' : 'no',
    String(r.steps),
    String(r.inputTokens),
    String(r.outputTokens),
    r.seconds.toFixed(1),
    r.note,
  ]);
  const numeric = new Set([3, 4, 5, 6]);
  const width = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) =>
        i === cells.length - 1 ? c : numeric.has(i) ? c.padStart(width[i]!) : c.padEnd(width[i]!),
      )
      .join('  ')
      .trimEnd();
  return [line(head), line(width.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

export function formatSummary(report: EvalReport): string {
  const s = report.summary;
  return (
    `${report.provider}/${report.model}: accuracy ${s.accuracy}% (${s.correct}/${s.questions}), ` +
    `data ${s.dataAccuracy}% (${s.data}/${s.questions}), mean steps ${s.meanSteps}, ` +
    `tokens ${s.inputTokens} in + ${s.outputTokens} out = ${s.inputTokens + s.outputTokens}, ` +
    `${s.seconds} s`
  );
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      only: { type: 'string' },
      json: { type: 'string' },
      concurrency: { type: 'string' },
      questions: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(
      'usage: npm run eval:chat -- [--only id,id] [--json file] [--concurrency n] [--questions file]\n\n' +
        AI_ENV_HELP,
    );
    return 0;
  }
  const concurrency = values.concurrency === undefined ? 1 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    console.error(`--concurrency takes a whole number from 1, got "${values.concurrency}"`);
    return 1;
  }
  const only = values.only
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  try {
    const ai = parseAiConfig(process.env);
    if (ai) console.error(`eval:chat with ${ai.provider}/${ai.model}, concurrency ${concurrency}`);
    const report = await runEval({
      only,
      concurrency,
      ...(values.questions ? { questionsFile: path.resolve(values.questions) } : {}),
      onResult: (r, done, total) =>
        console.error(
          `[${done}/${total}] ${r.id}: ${r.correct ? 'correct' : 'wrong'}, data ${r.data ? 'yes' : 'no'}, ${r.seconds.toFixed(1)} s${r.note ? ` — ${r.note}` : ''}`,
        ),
    });
    console.log(formatTable(report.results));
    console.log();
    console.log(formatSummary(report));
    if (values.json) {
      fs.writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
      console.error(`wrote ${values.json}`);
    }
    return 0;
  } catch (err) {
    if (err instanceof NoProviderError || err instanceof AiConfigError) {
      console.error(`${err.message}\n\n${AI_ENV_HELP}`);
      return 2;
    }
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
