import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { SendMailOptions } from 'nodemailer';

export interface MailConfig {
  /** `smtp://user:pass@host:port` or `smtps://…`; query parameters (`?greetingTimeout=500`) win. */
  smtpUrl?: string;
  from: string;
  /** Where `.eml` files are written when no SMTP server is configured. */
  outboxDir: string;
  /** SMTP connection and greeting timeout in ms (default 10 000). */
  timeoutMs?: number;
}

export interface MailAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
  /** Set: an inline part the HTML shows as `<img src="cid:…">`. */
  cid?: string;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  attachments?: MailAttachment[];
  /** Extra headers (List-Unsubscribe); nodemailer folds and encodes them. */
  headers?: Record<string, string>;
  /** `<id@host>`: set when a bounce must find what it answers (delivery/bounces.ts). */
  messageId?: string;
}

export interface SentMail {
  messageId: string;
  transport: 'smtp' | 'file';
  /** Absolute path of the written `.eml` (file transport only). */
  file?: string;
}

export interface Mailer {
  send(msg: MailMessage): Promise<SentMail>;
  close(): void;
}

// Nodemailer's defaults (2 min connect, 30 s greeting) would hang a request on a dead server.
const DEFAULT_TIMEOUT_MS = 10_000;

export function createMailer(cfg: MailConfig): Mailer {
  return cfg.smtpUrl ? smtpMailer(cfg, cfg.smtpUrl) : fileMailer(cfg);
}

function smtpMailer(cfg: MailConfig, url: string): Mailer {
  const timeout = cfg.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Nodemailer lets query parameters of `url` override these options, so ops can still tune them.
  const transport = nodemailer.createTransport({
    url,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    // Caps a server that stalls mid-dialogue (the default is 10 minutes of silence).
    socketTimeout: timeout * 3,
  });
  return {
    async send(msg) {
      try {
        const info = await transport.sendMail(mailOptions(cfg, msg));
        return { messageId: info.messageId, transport: 'smtp' };
      } catch (err) {
        // Never include the URL: it may carry the SMTP password.
        throw sendError(msg.to, 'SMTP', err);
      }
    },
    close: () => transport.close(),
  };
}

function fileMailer(cfg: MailConfig): Mailer {
  // Same composer as the SMTP path, so the .eml is the RFC 5322 message a server would receive
  // (CRLF line endings as the RFC requires).
  const composer = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    newline: 'windows',
  });
  return {
    async send(msg) {
      try {
        const info = await composer.sendMail(mailOptions(cfg, msg));
        if (!Buffer.isBuffer(info.message)) throw new Error('composer did not return a buffer');
        const file = await writeAtomically(cfg.outboxDir, outboxFileName(), info.message);
        return { messageId: info.messageId, transport: 'file', file };
      } catch (err) {
        throw sendError(msg.to, `outbox ${cfg.outboxDir}`, err);
      }
    },
    close: () => composer.close(),
  };
}

function mailOptions(cfg: MailConfig, msg: MailMessage): SendMailOptions {
  return {
    from: cfg.from,
    to: msg.to,
    subject: msg.subject,
    text: msg.text,
    html: msg.html,
    attachments: msg.attachments?.map((a) => ({
      filename: a.filename,
      content: a.content,
      contentType: a.contentType,
      ...(a.cid ? { cid: a.cid, contentDisposition: 'inline' as const } : {}),
    })),
    headers: msg.headers,
    ...(msg.messageId ? { messageId: msg.messageId } : {}),
  };
}

function sendError(to: string, via: string, err: unknown): Error {
  const cause = err instanceof Error ? err.message : String(err);
  return new Error(`Could not send mail to ${to} via ${via}: ${cause}`, { cause: err });
}

/** `2024-05-01T12-30-45.123Z-1a2b3c4d.eml`: sorts chronologically, no `:` (invalid on Windows). */
function outboxFileName(): string {
  const time = new Date().toISOString().replace(/:/g, '-');
  return `${time}-${randomBytes(4).toString('hex')}.eml`;
}

async function writeAtomically(dir: string, name: string, data: Buffer): Promise<string> {
  await mkdir(dir, { recursive: true });
  const target = path.resolve(dir, name);
  // Same folder so rename() is atomic; dot-prefixed and not *.eml so readers of the outbox
  // never pick up a half-written message.
  const temp = path.resolve(dir, `.${name}.tmp`);
  try {
    const handle = await open(temp, 'wx');
    try {
      await handle.writeFile(data);
      // Flush before the rename, or a crash could leave a complete-looking but empty .eml.
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  return target;
}
