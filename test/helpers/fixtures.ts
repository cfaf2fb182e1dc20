// Shared fixtures for project and user tests: tiny plans files, projects, a real SMTP sink.
import { testDatabase } from './server.js';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { expect } from 'vitest';
import { LIMIT_NAMES, type LimitName } from '../../src/engine/limits/plans.js';
import { ADMIN, type TestServer } from './server.js';
import { rawStorage } from './storage.js';

const GENEROUS: Record<LimitName, number> = {
  storageBytes: 1_000_000_000,
  aiMessagesPerDay: 50,
  datasetRows: 1_000_000,
  users: 100,
  flows: 5,
  projects: 100,
  deliveries: 100,
  emailsPerDay: 1000,
};

/**
 * Writes a plans YAML whose default plan (`free`) has the given limits (others generous) into
 * a fresh temp dir. Pass the returned `file` as URSA_PLANS_FILE; call `remove()` afterwards.
 */
export function writePlansFile(limits: Partial<Record<LimitName, number>>): {
  file: string;
  remove(): void;
} {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-plans-'));
  const all = { ...GENEROUS, ...limits };
  const lines = ['plans:', '  free:', '    label: Tiny', '    limits:'];
  for (const name of LIMIT_NAMES) lines.push(`      ${name}: ${all[name]}`);
  const file = path.join(dir, 'plans.yaml');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return { file, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Creates a project as `as` (an organization admin, by default the bootstrap admin). */
export async function createProject(
  s: TestServer,
  id = 'p',
  label = 'Project',
  as = ADMIN,
): Promise<string> {
  const r = await s.api('POST', '/projects', { as, body: { id, label, entity: 'default' } });
  expect(r.status, r.text).toBe(201);
  return r.json.project.id as string;
}

/** The raw bytes SQLite holds for the metadata database: main file plus WAL (if any). */
export function metadataBytes(dataDir: string): Buffer {
  // On the PostgreSQL shape the metadata is the data directory's database: all of it, dumped.
  const pg = testDatabase(dataDir).URSA_DATABASE_URL;
  if (pg) return execFileSync('pg_dump', ['--data-only', pg], { maxBuffer: 256 * 1024 * 1024 });
  const parts: Buffer[] = [];
  for (const suffix of ['', '-wal', '-journal']) {
    const f = path.join(dataDir, `metadata.sqlite${suffix}`);
    if (fs.existsSync(f)) parts.push(fs.readFileSync(f));
  }
  return Buffer.concat(parts);
}

export interface SmtpSink {
  port: number;
  /** Raw RFC 5322 messages, in arrival order. */
  messages: { from: string; to: string[]; raw: string }[];
  close(): Promise<void>;
}

/** A real SMTP server from `smtp-server` on 127.0.0.1, port chosen by the OS. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: SmtpSink['messages'] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    smtp.server.once('error', reject);
    smtp.server.listen(0, '127.0.0.1', () =>
      resolve((smtp.server.address() as net.AddressInfo).port),
    );
  });
  return {
    port,
    messages,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}

/** A loopback port nothing listens on (bound, then released). */
export async function deadPort(): Promise<number> {
  const probe = net.createServer();
  const port = await new Promise<number>((resolve) =>
    probe.listen(0, '127.0.0.1', () => resolve((probe.address() as net.AddressInfo).port)),
  );
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Unfolded headers (lower-cased names, RFC 2047 words decoded) and QP-decoded body. */
export function parseMail(raw: string): { headers: Map<string, string>; body: string } {
  const m = /\r?\n\r?\n/.exec(raw);
  if (!m) throw new Error('no header/body separator');
  const headers = new Map<string, string>();
  for (const line of raw
    .slice(0, m.index)
    .replace(/\r?\n[ \t]+/g, ' ')
    .split(/\r?\n/)) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).trim().toLowerCase(), decodeWords(line.slice(colon + 1)));
  }
  return { headers, body: decodeQp(raw.slice(m.index + m[0].length)) };
}

function decodeWords(value: string): string {
  return value
    .trim()
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, enc: string, text: string) =>
      enc.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(decodeQp(text.replace(/_/g, ' ')), 'latin1').toString('utf8'),
    );
}

function decodeQp(s: string): string {
  return s
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Polls until `check` returns a value (not undefined) or the timeout passes. */
export async function waitFor<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 5000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Loads a tiny `people` dataset (Person, Region, Dept) into a project: row-level filters are
 * AQL conditions on the project's model, so a project whose members get one needs these.
 */
/** Loads `csv` as dataset `name` (columns: [id, objectType A|F, dataType, label]) and waits. */
export async function loadDataset(
  s: TestServer,
  project: string,
  name: string,
  csv: string,
  primarykey: string,
  columns: [id: string, objectType: 'A' | 'F', dataType: string, label: string][],
): Promise<void> {
  await rawStorage(s.engine).writeFile(project, `/${name}.csv`, Buffer.from(csv));
  const prescription = {
    primarykey,
    columns: columns.map(([id, objectType, dataType, label]) => ({
      id,
      originalheader: id,
      objectType,
      dataType,
      label,
    })),
  };
  const r = await s.api('POST', `/projects/${project}/kodiak/transform/execute`, {
    body: {
      type: 'cluster',
      clusters: { [name]: { source_type: 'webdav', source: `/${name}.csv`, prescription } },
    },
  });
  expect(r.status, r.text).toBe(202);
  const job = await s.engine.jobs.waitFor(r.json.link[0].id);
  expect(job.status, job.message).toBe('OK');
}

export async function loadPeople(s: TestServer, project: string): Promise<void> {
  await loadDataset(
    s,
    project,
    'people',
    'person_id,region,dept\n1,EU,HR\n2,US,IT\n',
    'person_id',
    [
      ['person_id', 'A', 'integer', 'Person'],
      ['region', 'A', 'string', 'Region'],
      ['dept', 'A', 'string', 'Dept'],
    ],
  );
}
