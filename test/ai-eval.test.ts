// The AI chat evaluation harness (eval/chat.ts, `npm run eval:chat`): its scoring, its question
// set, and full runs against a fake LLM playing an agent that knows the right AQL (every answer
// scores correct) or one that reports altered numbers (every answer scores wrong).
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AI_ENV_HELP,
  expectedValues,
  formatSummary,
  formatTable,
  loadQuestions,
  NoProviderError,
  runEval,
  scoreAnswer,
  scoreData,
  type Check,
} from '../eval/chat.js';
import { startFakeLlm, type FakeLlm, type FakeTurn } from './helpers/fake-llm.js';

const value = (cell: string, answer: string) => scoreAnswer([[cell]], 'value', answer).correct;

describe('eval:chat scoring', () => {
  it('matches numbers with or without thousands separators', () => {
    expect(value('1234567', 'There were 1,234,567 passengers.')).toBe(true);
    expect(value('1234567', 'There were **1234567** passengers.')).toBe(true);
    expect(value('1234567', 'There were 1\u202f234\u202f567 passengers.')).toBe(true);
    expect(value('29961', '| 2024 | 29,961 |')).toBe(true);
  });

  it('scales K, M, B and the words thousand, million, billion', () => {
    expect(value('1234567', 'About 1.2M passengers')).toBe(true);
    expect(value('1234567', 'About 1.23 million passengers')).toBe(true);
    expect(value('1234567', 'About 1,235K passengers')).toBe(true);
    expect(value('60000', '60k flights')).toBe(true);
    expect(value('60000', 'sixty: 60 thousand flights')).toBe(true);
    expect(value('1234567890', '1.2 billion')).toBe(true);
    expect(value('1234567890', '1.23bn')).toBe(true);
  });

  it('accepts the expected number rounded or cut to the precision the answer shows', () => {
    expect(value('12.3456', 'The average is 12.35 minutes.')).toBe(true);
    expect(value('12.3456', 'The average is 12.3 minutes.')).toBe(true);
    expect(value('12.3456', 'The average is 12.34 minutes.')).toBe(true);
    expect(value('12.3456', 'The average is 12.3456 minutes.')).toBe(true);
    expect(value('6.22737160531593', 'about 6.2 minutes')).toBe(true);
  });

  it('reads percentages as ratios', () => {
    expect(value('0.18915', 'Southwest flies 18.9% of the flights.')).toBe(true);
    expect(value('0.18915', 'Southwest flies 18.92 % of the flights.')).toBe(true);
    expect(value('0.18915', 'Southwest flies 19 percent of the flights.')).toBe(true);
    expect(value('0.0193', '1.93% of flights were cancelled')).toBe(true);
    expect(value('17.06', 'a late share of 17.06%')).toBe(true);
  });

  it('fails a wrong number, a too coarse one, or digits inside another number', () => {
    expect(value('1234567', 'There were 1,234,568 passengers.')).toBe(false);
    expect(value('1234567', 'About 1.3M passengers')).toBe(false);
    expect(value('12.3456', 'The average is 12.36 minutes.')).toBe(false);
    expect(value('12.3456', 'The average is 12.4 minutes.')).toBe(false);
    expect(value('0.0193', 'about 2% were cancelled')).toBe(false);
    expect(value('6.22737160531593', 'about 6 minutes')).toBe(false);
    expect(value('234', 'There were 1,234 flights.')).toBe(false);
    expect(value('6', 'JetBlue (B6) flies most.')).toBe(false);
    expect(value('60000', 'No numbers here.')).toBe(false);
  });

  it('takes signs as wording and small whole numbers as words', () => {
    expect(value('-2', 'The median flight leaves 2 minutes early.')).toBe(true);
    expect(value('-2', 'The median departure delay is −2 minutes.')).toBe(true);
    expect(value('10', 'Hawaiian flies to ten airports.')).toBe(true);
    expect(value('10', 'Hawaiian flies to 10 airports.')).toBe(true);
    expect(value('10', 'Hawaiian flies to eleven airports.')).toBe(false);
  });

  it('matches text case-insensitively, as whole words, whatever the quotes and dashes', () => {
    expect(value('Frontier Airlines', 'It is **frontier airlines**.')).toBe(true);
    expect(value('Frontier Airlines', 'FRONTIER AIRLINES leads')).toBe(true);
    expect(value("Chicago O'Hare International", 'Chicago O’Hare International')).toBe(true);
    expect(
      value('Fort Lauderdale-Hollywood International', 'Fort Lauderdale–Hollywood International'),
    ).toBe(true);
    expect(value('CA', 'California (CA) leads')).toBe(true);
    expect(value('CA', 'because of Texas')).toBe(false);
    expect(value('West', 'the Midwest')).toBe(false);
    expect(value('Frontier Airlines', 'JetBlue Airways')).toBe(false);
    expect(value('2024-07-15', 'The busiest day was July 15, 2024.')).toBe(true);
    expect(value('2024-07-15', 'The busiest day was 2024-07-15.')).toBe(true);
  });

  it('accepts the synonyms given for a cell', () => {
    const rows = [['CA', '8107']];
    const synonyms = { CA: ['California'], 'Delta Air Lines': ['Delta'] };
    expect(scoreAnswer(rows, 'first-row', 'California: 8,107 flights', synonyms).correct).toBe(
      true,
    );
    expect(scoreAnswer(rows, 'first-row', 'CA: 8,107 flights', synonyms).correct).toBe(true);
    expect(scoreAnswer(rows, 'first-row', 'California: 8,107 flights').missing).toEqual(['CA']);
    expect(scoreAnswer(rows, 'first-row', 'Texas: 8,107 flights', synonyms).missing).toEqual([
      'CA',
    ]);
  });

  it('ignores AQL shown in code', () => {
    const aql = '```aql\nSELECT MAX([Distance]) -- 2913\n```';
    expect(value('2913', `The query:\n${aql}`)).toBe(false);
    expect(value('CA', 'I ran `[Origin State] = "CA"`')).toBe(false);
    expect(value('2913', `The longest flight is 2,913 miles.\n${aql}`)).toBe(true);
  });

  it('checks the cells the check names, and lists the missing ones', () => {
    const rows = [
      ['CA', '8107'],
      ['FL', '5936'],
      ['TX', '5582'],
    ];
    const answer = 'CA leads with 8,107 flights, then FL (5,936) and TX.';
    const s = (check: Check) => scoreAnswer(rows, check, answer);
    expect(s('value')).toEqual({ correct: true, expected: ['8107'], missing: [] });
    expect(s('first-row').correct).toBe(true);
    expect(s({ column: 0 }).correct).toBe(true);
    expect(s({ column: 1, rows: 2 }).correct).toBe(true);
    expect(s({ cells: [[1, 1]] }).correct).toBe(true);
    expect(s('all')).toEqual({
      correct: false,
      expected: ['CA', '8107', 'FL', '5936', 'TX', '5582'],
      missing: ['5582'],
    });
    expect(s({ column: 1 }).missing).toEqual(['5582']);
  });

  it('refuses checks on cells that do not exist or are empty', () => {
    expect(() => expectedValues([['a']], { cells: [[1, 0]] })).toThrow(/no cell \[1, 0\]/);
    expect(() => expectedValues([['a', '']], 'first-row')).toThrow(/empty/);
    expect(() => expectedValues([['a']], { column: 0, rows: 2 })).toThrow(/fewer than 2/);
    expect(() => expectedValues([], 'value')).toThrow(/no rows/);
  });

  it('scores data in the rows of queries that did not fail, rounded or as percentages', () => {
    const rows = [['Southwest Airlines', '0.0226451669750639']];
    const q = (cells: string[][], error?: string) => ({ rows: cells, ...(error ? { error } : {}) });
    expect(
      scoreData(rows, 'first-row', [q([['Southwest Airlines', '0.0226451669750639']])]),
    ).toEqual({ correct: true, expected: rows[0], missing: [] });
    expect(
      scoreData(rows, 'first-row', [q([['WN', '2.26']]), q([['Southwest Airlines', '9']])]).correct,
    ).toBe(true);
    expect(scoreData(rows, 'first-row', [q([['Southwest Airlines', '0.03']])]).missing).toEqual([
      '0.0226451669750639',
    ]);
    expect(scoreData(rows, 'first-row', [q([], 'syntax error')]).correct).toBe(false);
    expect(scoreData(rows, 'first-row', []).correct).toBe(false);
  });
});

describe('eval/questions.yaml', () => {
  const questions = loadQuestions();

  it('holds at least 32 questions with unique ids, using every kind of check', () => {
    expect(questions.length).toBeGreaterThanOrEqual(32);
    expect(new Set(questions.map((q) => q.id)).size).toBe(questions.length);
    expect(new Set(questions.map((q) => q.question)).size).toBe(questions.length);
    const kinds = new Set(
      questions.map(({ expected: { check } }) =>
        typeof check === 'string' ? check : 'cells' in check ? 'cells' : 'column',
      ),
    );
    expect([...kinds].sort()).toEqual(['all', 'cells', 'column', 'first-row', 'value']);
  });
});

// ---- full runs against a fake LLM --------------------------------------------------------

interface ToolResult {
  columns: (string | { title: string })[];
  rows: string[][];
}

/** The last message of an OpenAI (or Anthropic) request: who sent it and its text. */
function lastMessage(body: Record<string, unknown>): { role: string; text: string } {
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  const last = messages[messages.length - 1];
  if (!last) return { role: 'none', text: '' };
  if (typeof last.content === 'string') return { role: last.role, text: last.content };
  const parts = (Array.isArray(last.content) ? last.content : []) as Record<string, unknown>[];
  const toolResult = parts.find((p) => p.type === 'tool_result');
  if (toolResult) {
    const c = toolResult.content;
    const text = Array.isArray(c)
      ? (c as { text?: string }[]).map((x) => x.text ?? '').join('')
      : String(c);
    return { role: 'tool', text };
  }
  return {
    role: last.role,
    text: parts.map((p) => (typeof p.text === 'string' ? p.text : '')).join(''),
  };
}

/** How the oracle writes a cell: 8107, 29,961, 7.39 million, 1.93%, 11.37. */
function show(cell: string): string {
  if (!/^-?\d+(\.\d+)?$/.test(cell)) return cell;
  const x = Number(cell);
  if (Number.isInteger(x)) {
    if (Math.abs(x) >= 1e6) return `${(x / 1e6).toFixed(2)} million`;
    return Math.abs(x) >= 10_000 ? x.toLocaleString('en-US') : String(x);
  }
  if (Math.abs(x) < 1) return `${(x * 100).toPrecision(3)}%`;
  if (Math.abs(x) >= 1000) return x.toLocaleString('en-US', { maximumFractionDigits: 1 });
  return x.toPrecision(4);
}

/** The liar changes every number and every name. */
function lie(cell: string): string {
  if (!/^-?\d+(\.\d+)?$/.test(cell)) return [...cell].reverse().join('');
  return String(Number(cell) * 1.5 + 7);
}

type Mode = 'oracle' | 'liar';

/**
 * An agent that knows the expected AQL of every question: asked a question, it runs that AQL;
 * given the result, it answers with a Markdown table of the rows (the liar alters them first).
 */
function agent(
  mode: Mode,
  aqlOf: Map<string, string>,
): (body: Record<string, unknown>) => FakeTurn {
  let calls = 0;
  return (body) => {
    const last = lastMessage(body);
    if (last.role === 'user') {
      // The longest question the message holds (the service may add context around it).
      const question = [...aqlOf.keys()]
        .filter((q) => last.text.includes(q))
        .sort((a, b) => b.length - a.length)[0];
      if (!question) return { text: 'I do not know that question.' };
      const id = `call_${++calls}`;
      return {
        toolCalls: [{ id, name: 'run_aql', arguments: { aql: aqlOf.get(question)!, limit: 100 } }],
        usage: { input: 100, output: 20 },
      };
    }
    if (last.role === 'tool') {
      let result: ToolResult;
      try {
        result = JSON.parse(last.text) as ToolResult;
      } catch {
        return { text: `The query failed: ${last.text}` };
      }
      const titles = result.columns.map((c) => (typeof c === 'string' ? c : c.title));
      const cell = mode === 'oracle' ? show : (c: string) => show(lie(c));
      const table = [
        `| ${titles.join(' | ')} |`,
        `|${titles.map(() => '---').join('|')}|`,
        ...result.rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
      ];
      return {
        text: `Here is what the data says:\n\n${table.join('\n')}`,
        usage: { input: 200, output: 50 },
      };
    }
    return { text: 'Nothing to add.' };
  };
}

describe('eval:chat end to end, against a fake LLM', () => {
  const questions = loadQuestions();
  const aqlOf = new Map(questions.map((q) => [q.question, q.expected.aql]));
  let mode: Mode = 'oracle';
  const responders = { oracle: agent('oracle', aqlOf), liar: agent('liar', aqlOf) };
  let llm: FakeLlm;

  beforeAll(async () => {
    llm = await startFakeLlm([], { respond: (body) => responders[mode](body) });
  });
  afterAll(() => llm?.close());

  const env = () => ({
    URSA_AI_PROVIDER: 'openai',
    URSA_AI_BASE_URL: `${llm.url}/v1`,
    URSA_AI_MODEL: 'fake',
    URSA_AI_API_KEY: 'k',
  });

  it('refuses to run without a provider, naming the variables to set', async () => {
    await expect(runEval({ env: {} })).rejects.toBeInstanceOf(NoProviderError);
    for (const v of ['URSA_AI_PROVIDER', 'URSA_AI_MODEL', 'URSA_AI_API_KEY', 'URSA_AI_BASE_URL'])
      expect(AI_ENV_HELP).toContain(v);
    expect(AI_ENV_HELP).toMatch(/openai[\s\S]*anthropic[\s\S]*11434\/v1/i);
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('URSA_AI_')),
    );
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'eval/chat.ts'], {
      env,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(AI_ENV_HELP);
  });

  it('scores every question correct for an agent that runs the right AQL', async () => {
    mode = 'oracle';
    const seen: string[] = [];
    const report = await runEval({
      env: env(),
      concurrency: 4,
      onResult: (r) => seen.push(r.id),
    });
    expect(report.provider).toBe('openai');
    expect(report.model).toBe('fake');
    expect(seen.sort()).toEqual(questions.map((q) => q.id).sort());
    const wrong = report.results.filter((r) => !r.correct || !r.data);
    expect(
      wrong.map((r) => ({ id: r.id, note: r.note, answer: r.answer })),
      formatTable(report.results),
    ).toEqual([]);
    for (const r of report.results) {
      expect(r.status).toBe('OK');
      expect(r.queries.map((q) => q.aql)).toEqual([aqlOf.get(r.question)]);
      expect(r.steps).toBe(2);
      expect(r.inputTokens).toBeGreaterThan(0);
      expect(r.outputTokens).toBeGreaterThan(0);
    }
    expect(report.summary).toMatchObject({
      questions: questions.length,
      correct: questions.length,
      accuracy: 100,
      data: questions.length,
      meanSteps: 2,
    });
    const table = formatTable(report.results);
    expect(table.split('\n')[0]).toMatch(
      /^id\s+correct\s+data\s+steps\s+in tok\s+out tok\s+sec\s+note$/,
    );
    for (const q of questions) expect(table).toContain(q.id);
    expect(formatSummary(report)).toMatch(
      /^openai\/fake: accuracy 100% .*mean steps 2, tokens \d+ in/,
    );
  }, 60_000);

  it('scores altered numbers and names wrong, while the data the agent saw was right', async () => {
    mode = 'liar';
    const report = await runEval({ env: env(), concurrency: 4 });
    expect(report.results.map((r) => r.id)).toEqual(questions.map((q) => q.id));
    for (const r of report.results) {
      expect(r.correct, `${r.id}: ${r.answer}`).toBe(false);
      expect(r.data, r.id).toBe(true);
      expect(r.missing.length).toBeGreaterThan(0);
      expect(r.note).toMatch(/^missing /);
    }
    expect(report.summary).toMatchObject({ correct: 0, accuracy: 0, data: questions.length });
  }, 60_000);
});
