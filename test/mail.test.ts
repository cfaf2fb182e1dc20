import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invitationMessage, type InvitationParams } from '../src/engine/mail/invitation.js';
import { createMailer } from '../src/engine/mail/mailer.js';

const FROM = 'Ursa <noreply@ursa.test>';
const TO = 'alice@example.com';
const PROJECT_URL = 'https://ursa.test/projects/p42';
const SET_URL = 'https://ursa.test/auth/password/set?token=abc&x=<y>';
const IN_7_DAYS = new Date(Date.now() + 7 * 86_400_000);

const invitation = invitationMessage({
  to: TO,
  inviter: 'Bob',
  projectId: 'p42',
  projectLabel: 'Sales <b>&"',
  projectUrl: PROJECT_URL,
  loginUrl: 'https://ursa.test/login',
  signIn: { kind: 'set-password', url: SET_URL, expires: IN_7_DAYS },
  levels: ['Admin', 'MD Admin'],
});

interface ParsedMail {
  headers: Map<string, string>;
  body: string;
}

/** Minimal RFC 5322 split: unfolded headers (lower-cased names) and the raw body. */
function parseMail(raw: string): ParsedMail {
  const match = /\r?\n\r?\n/.exec(raw);
  if (!match) throw new Error('no header/body separator');
  const headerBlock = raw.slice(0, match.index).replace(/\r?\n[ \t]+/g, ' ');
  const headers = new Map<string, string>();
  for (const line of headerBlock.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    headers.set(
      line.slice(0, colon).trim().toLowerCase(),
      decodeWords(line.slice(colon + 1).trim()),
    );
  }
  return { headers, body: raw.slice(match.index + match[0].length) };
}

// Nodemailer RFC 2047-encodes headers with special characters such as `<>`; decode them back.
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, enc: string, text: string) =>
      enc.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(decodeQp(text.replace(/_/g, ' ')), 'latin1').toString('utf8'),
    );
}

// Bodies may be quoted-printable; undo soft line breaks and =XX escapes before searching.
function decodeQp(s: string): string {
  return s
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function expectInvitation(raw: string): void {
  const { headers, body } = parseMail(raw);
  expect(headers.get('to')).toBe(TO);
  expect(headers.get('from')).toBe(FROM);
  expect(headers.get('subject')).toBe(invitation.subject);
  expect(headers.get('message-id')).toMatch(/^<.+@.+>$/);
  expect(decodeQp(body)).toContain(PROJECT_URL);
}

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
  });
}

describe('invitationMessage', () => {
  it('names inviter, project and levels, and escapes HTML', () => {
    expect(invitation.subject).toBe('Bob invited you to the Ursa project "Sales <b>&""');
    expect(invitation.text).toContain('Admin and MD Admin');
    expect(invitation.text).toContain(PROJECT_URL);
    expect(invitation.html).toContain('Sales &lt;b&gt;&amp;&quot;');
    expect(invitation.html).not.toContain('<b>');
    expect(invitation.html).toContain(`href="${PROJECT_URL}"`);
  });

  it('says "member" when no level is granted', () => {
    const msg = invitationMessage({ ...baseParams(), levels: [] });
    expect(msg.text).toContain('Your access: member.');
  });

  it('carries the one-time link to set a password, its lifetime, escaped in HTML', () => {
    expect(invitation.text).toContain(SET_URL);
    expect(invitation.text).toContain('expires in 7 days');
    expect(invitation.html).toContain(
      'href="https://ursa.test/auth/password/set?token=abc&amp;x=&lt;y&gt;"',
    );
    expect(invitation.html).toContain('expires in 7 days');
  });

  it('sends someone who has a password to sign in, with the forgot-password link', () => {
    const msg = invitationMessage({
      ...baseParams(),
      signIn: { kind: 'password', forgotUrl: 'https://ursa.test/auth/password/forgot' },
    });
    expect(msg.text).toContain('Sign in to Ursa with your password: https://ursa.test/login');
    expect(msg.text).toContain('https://ursa.test/auth/password/forgot');
    expect(msg.text).not.toContain('/auth/password/set');
  });

  it('sends people to the external identity provider, with no password link', () => {
    const msg = invitationMessage({
      ...baseParams(),
      signIn: { kind: 'external', issuer: 'https://idp.example/realms/x' },
    });
    expect(msg.text).toContain("organization's account at https://idp.example/realms/x");
    expect(msg.text).not.toContain('/auth/password');
    expect(msg.html).not.toContain('/auth/password');
  });
});

function baseParams(): InvitationParams {
  return {
    to: TO,
    inviter: 'Bob',
    projectId: 'p1',
    projectLabel: 'P',
    projectUrl: PROJECT_URL,
    loginUrl: 'https://ursa.test/login',
    signIn: { kind: 'set-password', url: SET_URL, expires: IN_7_DAYS },
    levels: ['Admin'],
  };
}

describe('createMailer with SMTP', () => {
  const received: string[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push(Buffer.concat(chunks).toString('utf8'));
        callback();
      });
    },
  });
  // Accepts connections but never greets: a hung server.
  const silentSockets = new Set<net.Socket>();
  const silent = net.createServer((socket) => silentSockets.add(socket));
  let smtpPort = 0;
  let silentPort = 0;

  beforeAll(async () => {
    smtpPort = await listen(smtp.server);
    silentPort = await listen(silent);
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => smtp.close(resolve));
    for (const socket of silentSockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('delivers the invitation', async () => {
    const mailer = createMailer({
      smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
      from: FROM,
      outboxDir: '/nonexistent',
    });
    const sent = await mailer.send({ to: TO, ...invitation });
    mailer.close();
    expect(sent.transport).toBe('smtp');
    expect(sent.messageId).toMatch(/^<.+>$/);
    expect(received).toHaveLength(1);
    expectInvitation(received[0] ?? '');
  });

  it('fails fast with the recipient in the error when the port is closed', async () => {
    const probe = net.createServer();
    const closedPort = await listen(probe);
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const mailer = createMailer({
      smtpUrl: `smtp://127.0.0.1:${closedPort}?connectionTimeout=500&greetingTimeout=500`,
      from: FROM,
      outboxDir: '/nonexistent',
    });
    await expect(mailer.send({ to: TO, ...invitation })).rejects.toThrow(
      /alice@example\.com.*ECONNREFUSED/,
    );
  });

  it('times out on a server that never greets', async () => {
    const mailer = createMailer({
      smtpUrl: `smtp://127.0.0.1:${silentPort}`,
      from: FROM,
      outboxDir: '/nonexistent',
      timeoutMs: 300,
    });
    const started = Date.now();
    await expect(mailer.send({ to: TO, ...invitation })).rejects.toThrow(/alice@example\.com/);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe('createMailer without SMTP', () => {
  let dir = '';

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'ursa-mail-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a real .eml into a created outbox, leaving no temp file', async () => {
    const outboxDir = path.join(dir, 'outbox');
    const mailer = createMailer({ from: FROM, outboxDir });
    const sent = await mailer.send({ to: TO, ...invitation });
    mailer.close();

    expect(sent.transport).toBe('file');
    expect(sent.file).toBeDefined();
    const files = await readdir(outboxDir);
    expect(files).toEqual([path.basename(sent.file ?? '')]);
    expect(files[0] ?? '').toMatch(/^\d{4}-\d\d-\d\dT[\d-]+\.\d{3}Z-[0-9a-f]+\.eml$/);

    const raw = await readFile(sent.file ?? '', 'utf8');
    expectInvitation(raw);
    expect(parseMail(raw).headers.get('message-id')).toBe(sent.messageId);
    expect(raw).toMatch(/\r\n/);
  });

  it('names the recipient when the outbox cannot be created', async () => {
    const blocker = path.join(dir, 'a-file');
    await writeFile(blocker, '');
    const mailer = createMailer({ from: FROM, outboxDir: path.join(blocker, 'outbox') });
    await expect(mailer.send({ to: TO, ...invitation })).rejects.toThrow(/alice@example\.com/);
  });
});
