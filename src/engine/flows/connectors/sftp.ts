// input.sftp (download one file from an SFTP server) and the listing behind the
// flowSftpFilechange trigger (FLOWS.md). Connections go to the address the network guard
// allowed (no second DNS lookup), with a connect timeout and a timeout on every server
// reply; aborting the read's signal drops the connection at once. Messages never contain the
// password or the key.
//
// Host keys: credentials with `hostKey` (the server's SHA256 fingerprint, as `ssh-keygen -lf`
// prints it) connect only to a server holding that key; without it any key is accepted.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import picomatch from 'picomatch';
import type { Client as SshClient, SFTPWrapper } from 'ssh2';
import SftpClient from 'ssh2-sftp-client';
import { z } from 'zod';
import { zIdent } from '../../model/defs.js';
import { zRemotePath } from '../box-paths.js';
import { newFileStream } from '../../storage/new-file-stream.js';
import { BoxError } from '../errors.js';
import { credentialServer } from './server.js';
import type { Credentials, ReadContext } from './types.js';

export const SFTP_FORMATS = ['csv', 'json', 'ndjson', 'parquet'] as const;
export type SftpFormat = (typeof SFTP_FORMATS)[number];

export const sftpInputSchema = z
  .object({
    credentials: zIdent.describe(
      'Ident of a credentials object of kind "sftp" (host, port, user; its secret is the password, or a private key in PEM or OpenSSH format)',
    ),
    path: zRemotePath.describe(
      'Path of the file on the SFTP server, absolute or relative to the login directory: /exports/sales.csv',
    ),
    format: z
      .enum(SFTP_FORMATS)
      .optional()
      .describe('File format: csv, json, ndjson or parquet; by default from the extension'),
  })
  .strict()
  .describe('One file downloaded from an SFTP server');

export type SftpInput = z.infer<typeof sftpInputSchema>;

/** The format of an input.sftp file: the one given, else from the path's extension. */
export function sftpFormatOf(box: string, remotePath: string, format?: SftpFormat): SftpFormat {
  if (format) return format;
  const ext = /\.([A-Za-z0-9]+)$/.exec(remotePath)?.[1]?.toLowerCase();
  const found = SFTP_FORMATS.find((f) => f === ext || (f === 'ndjson' && ext === 'jsonl'));
  if (!found)
    throw new BoxError(
      box,
      'format',
      `cannot tell the format of "${remotePath}" from its extension: set format (${SFTP_FORMATS.join(', ')})`,
    );
  return found;
}

export interface SftpDownloadOptions {
  /** Largest file accepted; 5 GiB. */
  maxBytes?: number;
  /** Connect timeout, and the longest wait for any answer of the server (data included); 30 s. */
  timeoutMs?: number;
}

export interface SftpFile {
  path: string;
  size: number;
  /** Modification time, ms since the epoch (the server keeps seconds). */
  mtime: number;
}

const DEFAULT_PORT = 22;
const DEFAULT_MAX_BYTES = 5 * 1024 ** 3;
const DEFAULT_TIMEOUT_MS = 30_000;
/** A listing stops (with an error) beyond this many entries. */
const MAX_LIST_ENTRIES = 100_000;
const MAX_LIST_DEPTH = 64;

/**
 * Downloads `remotePath` to `localFile` (created or replaced). A missing file is a BoxError
 * on `path`; a file larger than `maxBytes` too. On failure or abort the partial local file
 * is removed.
 */
export async function sftpDownload(
  cred: Credentials,
  remotePath: string,
  localFile: string,
  ctx: ReadContext,
  opts: SftpDownloadOptions = {},
): Promise<{ bytes: number }> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  try {
    return await withSftp(cred, ctx, timeoutMs, async (s) => {
      const st = await s.op(s.client.stat(remotePath), 'stat', remotePath);
      if (!st.isFile)
        throw new BoxError(
          ctx.box,
          'path',
          `"${remotePath}" is ${st.isDirectory ? 'a directory' : 'not a regular file'} on the SFTP server`,
        );
      if (st.size > maxBytes) throw tooLarge(ctx.box, remotePath, maxBytes);

      let bytes = 0;
      const idle = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => idle.abort(), timeoutMs);
      };
      const counter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          bytes += chunk.length;
          arm();
          if (bytes > maxBytes) done(tooLarge(ctx.box, remotePath, maxBytes));
          else done(null, chunk);
        },
      });
      arm();
      try {
        // Made before the remote stream opens: a failed open leaves no stream unread.
        const out = await newFileStream(localFile, 'w');
        await pipeline(s.client.createReadStream(remotePath), counter, out, {
          signal: AbortSignal.any([idle.signal, s.signal]),
        });
      } catch (err) {
        // The file was made before the pipeline (newFileStream): removing it now is final.
        await fs.promises.rm(localFile, { force: true }).catch(() => {});
        if (idle.signal.aborted && !s.signal.aborted) throw s.timedOut('download', remotePath);
        throw err;
      } finally {
        clearTimeout(timer);
      }
      return { bytes };
    });
  } catch (err) {
    await fs.promises.rm(localFile, { force: true }).catch(() => {});
    throw err;
  }
}

/**
 * The files matching a glob (picomatch): the directory before the first glob character is
 * listed, its subdirectories only as deep as the pattern reaches (all of them with `**`).
 * Paths come back as the pattern writes them (absolute, or relative to the login directory),
 * sorted. A pattern without glob characters names one file. A missing directory or file
 * matches nothing.
 */
export async function sftpList(
  cred: Credentials,
  pattern: string,
  ctx: ReadContext,
  opts: { timeoutMs?: number } = {},
): Promise<SftpFile[]> {
  const scan = picomatch.scan(pattern);
  if (scan.negated || pattern.trim() === '')
    throw new BoxError(ctx.box, 'path', `"${pattern}" is not a usable file pattern`);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  return withSftp(cred, ctx, timeoutMs, async (s) => {
    if (!scan.isGlob) {
      try {
        const st = await s.op(s.client.stat(pattern), 'stat', pattern);
        return st.isFile ? [{ path: pattern, size: st.size, mtime: st.modifyTime }] : [];
      } catch (err) {
        if (isMissing(err)) return [];
        throw err;
      }
    }
    const isMatch = picomatch(pattern, { dot: false });
    const maxDepth = scan.glob.includes('**')
      ? MAX_LIST_DEPTH
      : Math.min(MAX_LIST_DEPTH, scan.glob.split('/').length - 1);
    const join = (dir: string, name: string) =>
      dir === '' ? name : dir.endsWith('/') ? dir + name : `${dir}/${name}`;

    const found: SftpFile[] = [];
    let seen = 0;
    const walk = async (dir: string, depth: number): Promise<void> => {
      let entries: SftpClient.FileInfo[];
      try {
        entries = await s.op(s.client.list(dir === '' ? '.' : dir), 'list', dir || '.');
      } catch (err) {
        if (isMissing(err)) return;
        throw err;
      }
      seen += entries.length;
      if (seen > MAX_LIST_ENTRIES)
        throw new BoxError(
          ctx.box,
          'path',
          `"${pattern}" reaches more than ${MAX_LIST_ENTRIES} entries on the SFTP server: narrow it`,
        );
      for (const e of entries) {
        if (e.name === '.' || e.name === '..') continue;
        const p = join(dir, e.name);
        if (e.type === 'd') {
          if (depth < maxDepth) await walk(p, depth + 1);
        } else if (e.type === '-') {
          if (isMatch(p)) found.push({ path: p, size: e.size, mtime: e.modifyTime });
        } else if (e.type === 'l' && isMatch(p)) {
          // A link to a file counts as that file (links to directories are not followed).
          try {
            const st = await s.op(s.client.stat(p), 'stat', p);
            if (st.isFile) found.push({ path: p, size: st.size, mtime: st.modifyTime });
          } catch (err) {
            if (!isMissing(err)) throw err;
          }
        }
      }
    };
    await walk(scan.base, 0);
    return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  });
}

// ---- connection ----

interface Session {
  client: SftpClient;
  /** Aborts when the read is aborted or the connection is dropped. */
  signal: AbortSignal;
  /** One request to the server, under the per-operation timeout, its errors described. */
  op<T>(p: Promise<T>, what: string, remotePath: string): Promise<T>;
  timedOut(what: string, remotePath: string): BoxError;
}

/**
 * Connects, runs `fn`, and always ends the connection (`end()`, then the socket is dropped
 * if the server does not close it within 2 s).
 */
async function withSftp<T>(
  cred: Credentials,
  ctx: ReadContext,
  timeoutMs: number,
  fn: (s: Session) => Promise<T>,
): Promise<T> {
  const { box, signal } = ctx;
  signal.throwIfAborted();
  const { target, port, user, where, clean } = await credentialServer(
    'SFTP server',
    cred,
    DEFAULT_PORT,
    ctx,
  );

  // The callbacks replace the library's console logging; with them an error or a dropped
  // connection outside any request is a no-op instead of an uncaught exception.
  const client = new SftpClient('ursa-flow', { error: () => {}, end: () => {}, close: () => {} });
  const ssh = (client as unknown as { client: SshClient }).client;
  const dropped = new AbortController();
  const drop = () => {
    dropped.abort();
    ssh.destroy();
  };
  let rejectAborted: (reason: unknown) => void = () => {};
  const aborted = new Promise<never>((_, reject) => (rejectAborted = reject));
  aborted.catch(() => {});
  const onAbort = () => {
    rejectAborted(signal.reason);
    drop();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  const race = <R>(p: Promise<R>): Promise<R> => {
    p.catch(() => {});
    return Promise.race([p, aborted]);
  };

  const timedOut = (what: string, remotePath: string) =>
    new BoxError(
      box,
      null,
      `the SFTP server at ${where} did not answer within ${timeoutMs / 1000} s (${what} "${remotePath}")`,
    );
  const session: Session = {
    client,
    signal: AbortSignal.any([signal, dropped.signal]),
    timedOut,
    async op(p, what, remotePath) {
      p.catch(() => {}); // it may fail after the timeout won: nobody listens any more
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(timedOut(what, remotePath));
          drop();
        }, timeoutMs);
      });
      try {
        return await Promise.race([p, expired]);
      } catch (err) {
        throw remoteError(err, box, remotePath, clean);
      } finally {
        clearTimeout(timer);
      }
    },
  };

  try {
    const secret = cred.secret ?? '';
    const auth = secret.trimStart().startsWith('-----BEGIN')
      ? { privateKey: secret.trim() }
      : { password: secret };
    let sftp: SFTPWrapper;
    let seenKey: string | null = null;
    try {
      sftp = await race(
        client.connect({
          host: target.address,
          port,
          username: user,
          ...auth,
          readyTimeout: timeoutMs,
          // See the top of the file: a pinned key must match; otherwise any is accepted.
          hostVerifier: (key: Buffer) => {
            seenKey = fingerprint(key);
            return !cred.hostKey || seenKey === cred.hostKey;
          },
          keepaliveInterval: 15_000,
          keepaliveCountMax: 4,
          tryKeyboard: false,
        }),
      );
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (cred.hostKey && seenKey !== null && seenKey !== cred.hostKey)
        throw new BoxError(
          box,
          'credentials',
          `the SFTP server at ${where} presented host key ${seenKey}, not the ${cred.hostKey} the credentials pin; nothing was sent`,
        );
      throw connectError(err, box, where, user, clean);
    }
    sftp.on('error', () => {});
    return await race(fn(session));
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    if (err instanceof BoxError) throw err;
    throw new BoxError(box, null, `SFTP transfer with ${where} failed: ${clean(messageOf(err))}`);
  } finally {
    signal.removeEventListener('abort', onAbort);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      client.end().catch(() => {}),
      new Promise((resolve) => (timer = setTimeout(resolve, 2000))),
    ]);
    clearTimeout(timer);
    ssh.destroy();
  }
}

/** A host key's OpenSSH SHA256 fingerprint: `SHA256:` and unpadded base64. */
export function fingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

function connectError(
  err: unknown,
  box: string,
  where: string,
  user: string,
  clean: (t: string) => string,
): BoxError {
  const code = (err as { code?: unknown }).code;
  const message = clean(messageOf(err));
  let text: string;
  if (/authentication methods failed/i.test(message))
    text = `the SFTP server at ${where} refused the login of user "${user}" (wrong password or key)`;
  else if (/privateKey|private key|passphrase/i.test(message))
    text = `the private key in the credentials cannot be used: ${message.replace(/^\w+: /, '')}`;
  else if (code === 'ECONNREFUSED')
    text = `cannot connect to the SFTP server at ${where}: connection refused`;
  else if (/timed out/i.test(message) || code === 'ETIMEDOUT')
    text = `cannot connect to the SFTP server at ${where}: no answer in time`;
  else text = `cannot connect to the SFTP server at ${where}: ${message}`;
  return new BoxError(box, 'credentials', text);
}

/** A failed request: missing file and permission problems are the `path` to fix. */
function remoteError(
  err: unknown,
  box: string,
  remotePath: string,
  clean: (t: string) => string,
): unknown {
  if (err instanceof BoxError) return err;
  if (isMissing(err))
    return Object.assign(
      new BoxError(box, 'path', `no such file on the SFTP server: "${remotePath}"`),
      { missing: true },
    );
  const code = (err as { code?: unknown }).code;
  const message = clean(messageOf(err));
  if (code === 3 || code === 'EACCES' || /permission denied/i.test(message))
    return new BoxError(box, 'path', `permission denied on the SFTP server: "${remotePath}"`);
  return new BoxError(box, 'path', `SFTP server: ${message}`);
}

function isMissing(err: unknown): boolean {
  if (err instanceof BoxError) return (err as BoxError & { missing?: boolean }).missing === true;
  const code = (err as { code?: unknown }).code;
  return code === 'ENOENT' || code === 2 || /no such file/i.test(messageOf(err));
}

function tooLarge(box: string, remotePath: string, maxBytes: number): BoxError {
  return new BoxError(
    box,
    'path',
    `"${remotePath}" is larger than the ${maxBytes.toLocaleString('en-US')} bytes an SFTP input may download`,
  );
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
