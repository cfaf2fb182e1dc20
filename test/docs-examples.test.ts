// Every ```sh example in README.md and docs/*.md runs, in document order, against a fresh
// server, as a reader would paste it into bash: one shell per document, `set -euo pipefail`
// (an unset variable or a failing command fails the test), `http://localhost:8080` pointing at
// the test server. Every curl must answer below 400 unless its line ends with a comment that
// starts with the expected status (`# 409: …`). A block fenced as ```sh norun is shown, not run
// (it needs a browser, a real model or a mount): the fence must say why on its next line.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from './helpers/fake-llm.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { parseShellExamples, type ShellBlock } from './helpers/shell-examples.js';
import { waitForDemo } from './helpers/aql-demo.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
// README, then api.md: the other documents reuse api.md's BASE, TOKEN, H and DEMO (as they say).
const DOCS = [
  'README.md',
  'docs/api.md',
  ...fs
    .readdirSync(path.join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md') && f !== 'api.md')
    .sort()
    .map((f) => `docs/${f}`),
];
const DOCS_WITH_SETUP = new Set(DOCS.filter((d) => d !== 'README.md' && d !== 'docs/api.md'));

// The examples use jq and openssl as a reader's shell would; CI installs them (.ci/run).
const MISSING = ['jq', 'openssl'].filter(
  (t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0,
);
if (MISSING.length && process.env.CI !== 'true')
  console.warn(
    `docs examples skipped: install ${MISSING.join(' and ')} (apt-get install ${MISSING.join(' ')})`,
  );

const PREAMBLE = [
  'set -eEuo pipefail',
  `trap 'echo "@@failed line $LINENO: exit $?" >&2' ERR`,
  "# Records each curl's final HTTP status and the line it was called from.",
  'curl() {',
  '  local d rc=0 st',
  '  d=$(mktemp)',
  '  command curl -sS -D "$d" "$@" || rc=$?',
  "  st=$(grep -aE '^HTTP/' \"$d\" | tail -1 | awk '{print $2}' || true)",
  '  echo "${BASH_LINENO[0]} ${st:-000} $rc" >> "$CURL_LOG"',
  '  rm -f "$d"',
  '  return $rc',
  '}',
  'npm() { (cd "$REPO" && command npm "$@"); }',
].join('\n');

interface CurlCall {
  line: number;
  status: number;
  exit: number;
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  calls: CurlCall[];
  /** Script line → document and line. */
  where: (scriptLine: number) => string;
}

let server: TestServer;
let llm: FakeLlm;
let work: string;

beforeAll(async () => {
  if (MISSING.length && process.env.CI !== 'true') return;
  llm = await startFakeLlm([], {
    // The chat example asks which region sells the most: answer with a query, then the text.
    respond: (body) => {
      const tools = ((body.messages ?? []) as { role: string }[]).filter((m) => m.role === 'tool');
      if (tools.length === 0)
        return {
          toolCalls: [
            {
              id: 'c1',
              name: 'run_aql',
              arguments: { aql: 'SELECT [Origin Region], SUM([Passengers]) AS "Passengers"' },
            },
          ],
        };
      if (tools.length === 1)
        return {
          toolCalls: [
            {
              id: 'c2',
              name: 'make_chart',
              arguments: { query: 'q1', mark: 'bar', x: 'Origin Region', y: 'Passengers' },
            },
          ],
        };
      return { text: 'The region with the most passengers leads the chart.' };
    },
  });
  server = await startTestServer({
    URSA_DEMO_DATA: 'true',
    URSA_AI_PROVIDER: 'openai',
    URSA_AI_BASE_URL: `${llm.url}/v1`,
    URSA_AI_MODEL: 'fake',
    URSA_AI_API_KEY: 'test',
  });
  await waitForDemo(server, 120_000);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-docs-'));
  // `data/` is the server's data directory, as after `npm start` in the repository.
  fs.symlinkSync(server.dataDir, path.join(work, 'data'));
  fs.writeFileSync(
    path.join(server.dataDir, 'admin-password.txt'),
    `admin@example.com\nadmin-password-1\n`,
  );
}, 180_000);

afterAll(async () => {
  await server?.close();
  await llm?.close();
});

function run(doc: string, blocks: ShellBlock[], setup: ShellBlock[]): Promise<RunResult> {
  const lines = PREAMBLE.split('\n');
  const origin: (string | undefined)[] = lines.map(() => undefined);
  for (const b of [...setup, ...blocks]) {
    b.text.split('\n').forEach((l, i) => {
      lines.push(l.replaceAll('http://localhost:8080', server.url));
      origin.push(`${b.doc}:${b.line + 1 + i}`);
    });
  }
  const script = path.join(work, `${path.basename(doc)}.sh`);
  fs.writeFileSync(script, lines.join('\n') + '\n');
  const log = path.join(work, `${path.basename(doc)}.curl`);
  fs.writeFileSync(log, '');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', script], {
      cwd: work,
      env: {
        PATH: process.env.PATH,
        HOME: work,
        REPO,
        CURL_LOG: log,
        URSA_DATA_DIR: server.dataDir,
        URSA_LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // A polling loop that never ends must fail the test, not hang it.
      timeout: 180_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const calls = fs
        .readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const [line, status, exit] = l.split(' ').map(Number);
          return { line: line!, status: status!, exit: exit! };
        });
      resolve({
        code,
        stdout,
        stderr,
        calls,
        where: (n) => origin[n - 1] ?? `script line ${n}`,
      });
    });
  });
}

describe.skipIf(MISSING.length > 0 && process.env.CI !== 'true').each(DOCS)('%s', (doc) => {
  it('runs every shell example as written', async () => {
    expect(MISSING, 'tools the examples need (CI installs them)').toEqual([]);
    const blocks = parseShellExamples(doc, fs.readFileSync(path.join(REPO, doc), 'utf8'));
    const setup = DOCS_WITH_SETUP.has(doc)
      ? parseShellExamples(
          'docs/api.md',
          fs.readFileSync(path.join(REPO, 'docs/api.md'), 'utf8'),
        ).slice(0, 1)
      : [];
    const runnable = blocks.filter((b) => !b.norun);
    for (const b of blocks.filter((x) => x.norun))
      expect(b.reason, `${doc}:${b.line}: a norun block says why`).toMatch(/\w{3,}/);
    if (runnable.length === 0) return;
    const r = await run(doc, runnable, setup);
    const failed = /@@failed line (\d+)/.exec(r.stderr);
    expect(
      r.code,
      `${failed ? r.where(Number(failed[1])) : doc} failed:\n${r.stderr.slice(-3000)}`,
    ).toBe(0);
    // Each curl's status against its line's expectation.
    const commands = [...setup, ...runnable].flatMap((b) => b.commands);
    const offset = PREAMBLE.split('\n').length;
    let scriptLine = offset;
    const ranges: { from: number; to: number; expect: number | null; text: string }[] = [];
    for (const b of [...setup, ...runnable]) {
      for (const c of b.commands)
        ranges.push({
          from: scriptLine + 1 + c.from,
          to: scriptLine + 1 + c.to,
          expect: c.expect,
          text: c.text,
        });
      scriptLine += b.text.split('\n').length;
    }
    expect(commands.length).toBeGreaterThan(0);
    const wrong: string[] = [];
    for (const call of r.calls) {
      const range =
        ranges.find((x) => call.line >= x.from && call.line <= x.to) ??
        // bash may count a line more after a quoted newline inside $( … )
        ranges.find((x) => call.line === x.to + 1) ??
        ranges.reduce((a, b) =>
          Math.abs(b.from - call.line) < Math.abs(a.from - call.line) ? b : a,
        );
      const ok =
        call.exit === 0 &&
        (range.expect !== null ? call.status === range.expect : call.status < 400);
      if (!ok)
        wrong.push(
          `${r.where(call.line)}: HTTP ${call.status} (curl exit ${call.exit}), expected ${range.expect ?? '< 400'}: ${range.text.slice(0, 160)}`,
        );
    }
    expect(wrong, `stdout:\n${r.stdout.slice(-1500)}`).toEqual([]);
  }, 240_000);
});
