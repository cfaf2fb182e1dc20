// One client connection of the SQL API: startup and password, then the simple query protocol
// (Q) and the extended one (Parse/Bind/Describe/Execute/Sync). Messages are handled one at a
// time, in order; a statement runs with an AbortSignal that a cancel request, the client
// going away or the idle timer fires. What a statement means is the engine's (engine.sql).
import { randomInt } from 'node:crypto';
import type { Socket } from 'node:net';
import tls from 'node:tls';
import type { Logger } from 'pino';
import type { ProjectActor } from '../engine/access/actor.js';
import type { Engine } from '../engine/engine.js';
import {
  initialSettings,
  SqlError,
  type CopyFormat,
  type Param,
  type SqlCell,
  type SqlResult,
  type SqlSession,
} from '../engine/sql/service.js';
import { binaryCell, binaryParam, pgType, textCell } from './types.js';
import {
  CANCEL_REQUEST,
  Framer,
  GSS_REQUEST,
  msg,
  ProtocolError,
  reader,
  SSL_REQUEST,
  type Frame,
} from './wire.js';

interface Prepared {
  text: string;
  paramTypes: number[];
}

interface Portal {
  stmt: Prepared;
  params: Param[];
  formats: number[];
  /** Rows left by an Execute with a row limit (PortalSuspended), with their columns. */
  rest?: { columns: SqlCell[]; rows: (string | null)[][]; command: string; copy?: CopyFormat };
}

/** Bytes of unhandled input before the socket is paused (a client pipelining a lot). */
const HIGH_WATER = 8 * 1024 * 1024;

export interface SessionHooks {
  /** Registers the session for cancel requests; returns its key. */
  register(s: Session): { pid: number; secret: number };
  unregister(pid: number): void;
  cancel(pid: number, secret: number): void;
  /** Whether another connection may start (URSA_SQL_MAX_CONNECTIONS). */
  admit(): boolean;
}

export class Session {
  private framer = new Framer();
  private queue: Frame[] = [];
  private busy = false;
  private actor?: ProjectActor;
  private state?: SqlSession;
  private prepared = new Map<string, Prepared>();
  private portals = new Map<string, Portal>();
  /** After an error in the extended protocol, messages are skipped until Sync. */
  private skipping = false;
  private running?: AbortController;
  private pid = 0;
  private closed = false;
  private user = '';
  private database = '';

  /** The connection: the TCP socket, or the TLS socket over it after an SSL request. */
  private socket: Socket;
  private readonly onDataBound = (d: Buffer) => this.onData(d);

  constructor(
    socket: Socket,
    private readonly engine: Engine,
    private readonly hooks: SessionHooks,
    private readonly log: Logger,
    private readonly opts: {
      idleTimeoutMs: number;
      /** Who the client is (a balancer's PROXY header may say), for the sign-in limits. */
      clientAddress: string;
      secureContext?: tls.SecureContext;
    },
  ) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', this.onDataBound);
    // A connection reset must never reach the process as an unhandled 'error'.
    socket.on('error', (err) => this.log.debug({ err }, 'SQL client connection error'));
    socket.on('close', () => this.onClose());
    socket.setTimeout(opts.idleTimeoutMs, () => {
      if (this.busy) return; // a long statement has its own timeout
      this.fatal('57P05', 'terminating connection due to idle-session timeout');
    });
  }

  /** Answers an SSL request: TLS when configured (the client then starts its handshake). */
  private startTls(): void {
    if (!this.opts.secureContext) {
      // The client goes on in the clear or stops, as its sslmode says.
      this.socket.write('N');
      return;
    }
    // Bytes sent after the request and before the handshake would be read as if encrypted
    // (CVE-2021-23214): refused.
    if (this.framer.pending || this.queue.length) {
      this.fatal('08P01', 'unexpected data after the SSL request');
      return;
    }
    const raw = this.socket;
    raw.off('data', this.onDataBound);
    raw.write('S');
    const secure = new tls.TLSSocket(raw, {
      isServer: true,
      secureContext: this.opts.secureContext,
    });
    secure.on('data', this.onDataBound);
    secure.on('error', (err) => {
      this.log.debug({ err }, 'SQL client TLS error');
      raw.destroy();
    });
    this.socket = secure;
  }

  /** A cancel request for this session's running statement. */
  cancel(): void {
    this.running?.abort(new Error('cancelled'));
  }

  private onData(d: Buffer): void {
    try {
      this.queue.push(...this.framer.push(d));
    } catch (err) {
      this.fatal('08P01', (err as Error).message);
      return;
    }
    if (this.framer.pending > HIGH_WATER) this.socket.pause();
    void this.pump();
  }

  private onClose(): void {
    this.closed = true;
    this.running?.abort(new Error('the client went away'));
    if (this.pid) this.hooks.unregister(this.pid);
  }

  private async pump(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.queue.length && !this.closed) {
        const f = this.queue.shift()!;
        await this.handle(f);
      }
    } catch (err) {
      if (err instanceof ProtocolError) this.fatal('08P01', err.message);
      else {
        this.log.error({ err }, 'SQL session failed');
        this.fatal('XX000', `internal error: ${(err as Error).message}`);
      }
    } finally {
      this.busy = false;
      if (this.socket.isPaused() && !this.closed) this.socket.resume();
    }
  }

  private send(b: Buffer): boolean {
    if (this.closed) return false;
    return this.socket.write(b);
  }

  /** Waits for the socket to take what was written (a large result). */
  private async drained(): Promise<void> {
    if (this.closed || !this.socket.writableNeedDrain) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
  }

  private fatal(code: string, message: string): void {
    if (this.closed) return;
    this.send(msg.error({ severity: 'FATAL', code, message: clean(message) }));
    this.socket.end();
    this.closed = true;
  }

  private sendError(err: unknown): void {
    const e =
      err instanceof SqlError
        ? err
        : new SqlError('XX000', `internal error: ${(err as Error)?.message ?? String(err)}`);
    if (!(err instanceof SqlError)) this.log.error({ err }, 'SQL statement failed unexpectedly');
    this.send(
      msg.error({
        severity: 'ERROR',
        code: e.code,
        message: clean(e.message),
        ...(e.hint ? { hint: clean(e.hint) } : {}),
      }),
    );
  }

  // ---- startup ----

  private async handle(f: Frame): Promise<void> {
    if (!this.framer.started) return this.startup(f);
    if (!this.actor) return this.password(f);
    const type = String.fromCharCode(f.type);
    if (this.skipping && type !== 'S') return;
    try {
      switch (type) {
        case 'Q':
          return await this.simpleQuery(reader(f.body).cstring());
        case 'P':
          return this.parse(f.body);
        case 'B':
          return this.bind(f.body);
        case 'D':
          return await this.describe(f.body);
        case 'E':
          return await this.execute(f.body);
        case 'S':
          this.skipping = false;
          this.send(msg.ready('I'));
          return;
        case 'H':
          return;
        case 'C': {
          const r = reader(f.body);
          const kind = String.fromCharCode(r.byte());
          const name = r.cstring();
          if (kind === 'S') this.prepared.delete(name);
          else this.portals.delete(name);
          this.send(msg.closeComplete());
          return;
        }
        case 'X':
          this.socket.end();
          this.closed = true;
          return;
        default:
          throw new SqlError('08P01', `unsupported message type "${type}"`);
      }
    } catch (err) {
      if (err instanceof ProtocolError) throw err;
      this.sendError(err);
      this.skipping = true; // the extended protocol skips to Sync
    }
  }

  private startup(f: Frame): void {
    const r = reader(f.body);
    const code = r.int32();
    if (code === SSL_REQUEST) return this.startTls();
    if (code === GSS_REQUEST) {
      this.socket.write('N'); // no GSSAPI encryption
      return;
    }
    if (code === CANCEL_REQUEST) {
      this.hooks.cancel(r.int32(), r.int32());
      this.socket.end();
      this.closed = true;
      return;
    }
    const major = code >> 16;
    const minor = code & 0xffff;
    if (major !== 3) {
      this.fatal('0A000', `unsupported frontend protocol ${major}.${minor}: Ursa speaks 3.0`);
      return;
    }
    const params = new Map<string, string>();
    const unknown: string[] = [];
    for (;;) {
      const k = r.cstring();
      if (!k) break;
      const v = r.cstring();
      if (k.startsWith('_pq_.')) unknown.push(k);
      else params.set(k, v);
    }
    this.user = params.get('user') ?? '';
    this.database = params.get('database') ?? this.user;
    if (!this.user) {
      this.fatal('28000', 'no user name in the startup packet');
      return;
    }
    if (!this.hooks.admit()) {
      this.fatal('53300', 'sorry, too many clients already; retry when a connection is closed');
      return;
    }
    if (minor > 0 || unknown.length) this.send(msg.negotiateVersion(0, unknown));
    this.state = {
      user: this.user,
      database: this.database,
      settings: initialSettings(params.get('application_name') ?? ''),
      backendPid: 0,
    };
    this.framer.started = true;
    this.send(msg.authCleartext());
    this.queue.push(...this.framer.drain());
  }

  private async password(f: Frame): Promise<void> {
    if (f.type !== 0x70) {
      this.fatal('08P01', 'expected a password message');
      return;
    }
    const password = reader(f.body).cstring();
    try {
      this.actor = await this.engine.sql.authenticate(
        this.user,
        password,
        this.database,
        this.opts.clientAddress,
      );
    } catch (err) {
      const e = err instanceof SqlError ? err : new SqlError('28000', (err as Error).message);
      this.send(
        msg.error({
          severity: 'FATAL',
          code: e.code,
          message: clean(e.message),
          ...(e.hint ? { hint: e.hint } : {}),
        }),
      );
      this.socket.end();
      this.closed = true;
      return;
    }
    const key = this.hooks.register(this);
    this.pid = key.pid;
    this.state!.backendPid = key.pid;
    this.send(msg.authOk());
    for (const k of [
      'server_version',
      'server_encoding',
      'client_encoding',
      'DateStyle',
      'IntervalStyle',
      'TimeZone',
      'integer_datetimes',
      'standard_conforming_strings',
      'is_superuser',
      'application_name',
    ])
      this.send(msg.parameterStatus(k, this.state!.settings.get(k.toLowerCase()) ?? ''));
    this.send(msg.backendKey(key.pid, key.secret));
    this.send(msg.ready('I'));
  }

  // ---- statements ----

  /** Runs `text`; results and errors go to the client as they come. */
  private async run(
    text: string,
    params: Param[],
    onResult: (r: SqlResult) => Promise<void>,
  ): Promise<void> {
    const ctrl = new AbortController();
    this.running = ctrl;
    const start = performance.now();
    let code: string | undefined;
    const tags: string[] = [];
    try {
      await this.engine.sql.run(this.actor!, this.state!, text, params, ctrl.signal, (r) => {
        tags.push(r.command);
        return onResult(r);
      });
    } catch (err) {
      code = err instanceof SqlError ? err.code : 'XX000';
      throw err;
    } finally {
      this.running = undefined;
      // As the request log does for HTTP: who, what kind, how long; not the text (values).
      this.log.info(
        {
          user: this.user,
          project: this.database,
          commands: tags,
          ...(code ? { sqlstate: code } : {}),
          ms: Math.round((performance.now() - start) * 10) / 10,
        },
        'sql statement',
      );
    }
  }

  private async simpleQuery(text: string): Promise<void> {
    if (!text.trim() || /^\s*;?\s*$/.test(text)) {
      this.send(msg.emptyQuery());
      this.send(msg.ready('I'));
      return;
    }
    try {
      await this.run(text, [], async (r) => {
        if (r.copy) return this.sendCopy(r);
        if (r.columns) {
          this.send(msg.rowDescription(r.columns.map((c) => describeColumn(c, 0))));
          await this.rows(r.columns, r.rows ?? [], []);
        }
        this.send(msg.commandComplete(r.command));
      });
    } catch (err) {
      this.sendError(err);
    }
    this.send(msg.ready('I'));
  }

  private async rows(cols: SqlCell[], rows: (string | null)[][], formats: number[]): Promise<void> {
    for (const row of rows) {
      const cells = row.map((v, i) => {
        if (v === null) return null;
        const t = cols[i]!.dataType;
        return formatOf(formats, i) === 1 ? binaryCell(v, t) : Buffer.from(textCell(v, t), 'utf8');
      });
      if (!this.send(msg.dataRow(cells))) await this.drained();
      if (this.closed) return;
    }
  }

  /** COPY … TO STDOUT: a line of copy data per row (text or CSV), then CopyDone. */
  private async sendCopy(r: {
    columns?: SqlCell[];
    rows?: (string | null)[][];
    command: string;
    copy?: CopyFormat;
  }): Promise<void> {
    const f = r.copy!;
    const cols = r.columns ?? [];
    this.send(msg.copyOut(cols.length));
    const line = (cells: (string | null)[]) =>
      Buffer.from(`${cells.map((v) => copyCell(v, f)).join(f.delimiter)}\n`, 'utf8');
    if (f.header) this.send(msg.copyData(line(cols.map((c) => c.name))));
    for (const row of r.rows ?? []) {
      const cells = row.map((v, i) => (v === null ? null : textCell(v, cols[i]!.dataType)));
      if (!this.send(msg.copyData(line(cells)))) await this.drained();
      if (this.closed) return;
    }
    this.send(msg.copyDone());
    this.send(msg.commandComplete(r.command));
  }

  private parse(body: Buffer): void {
    const r = reader(body);
    const name = r.cstring();
    const text = r.cstring();
    const n = r.int16();
    const paramTypes: number[] = [];
    for (let i = 0; i < n; i++) paramTypes.push(r.int32());
    // Syntax errors are told at Parse, as PostgreSQL does.
    this.engine.sql.statements(text);
    this.prepared.set(name, { text, paramTypes });
    this.send(msg.parseComplete());
  }

  private bind(body: Buffer): void {
    const r = reader(body);
    const portal = r.cstring();
    const name = r.cstring();
    const stmt = this.prepared.get(name);
    if (!stmt) throw new SqlError('26000', `prepared statement "${name}" does not exist`);
    const nf = r.int16();
    const pformats: number[] = [];
    for (let i = 0; i < nf; i++) pformats.push(r.int16());
    const np = r.int16();
    const params: Param[] = [];
    for (let i = 0; i < np; i++) {
      const len = r.int32();
      const type = stmt.paramTypes[i] ?? 0;
      if (len === -1) {
        params.push({ value: null, type });
        continue;
      }
      if (len < 0 || len > body.length) throw new ProtocolError('invalid parameter length');
      const bytes = r.bytes(len);
      const value = formatOf(pformats, i) === 1 ? binaryParam(bytes, type) : bytes.toString('utf8');
      if (value.includes('\0'))
        throw new SqlError('22021', 'a parameter holds a NUL character, which text cannot');
      params.push({ value, type });
    }
    const nr = r.int16();
    const formats: number[] = [];
    for (let i = 0; i < nr; i++) formats.push(r.int16());
    this.portals.set(portal, { stmt, params, formats });
    this.send(msg.bindComplete());
  }

  private async describe(body: Buffer): Promise<void> {
    const r = reader(body);
    const kind = String.fromCharCode(r.byte());
    const name = r.cstring();
    if (kind === 'S') {
      const stmt = this.prepared.get(name);
      if (!stmt) throw new SqlError('26000', `prepared statement "${name}" does not exist`);
      const count = paramCount(stmt.text);
      const types = Array.from({ length: count }, (_, i) => stmt.paramTypes[i] || 25);
      this.send(msg.parameterDescription(types));
      // Parameters are not bound yet: they are described as nulls.
      const cols = await this.engine.sql.describe(
        this.actor!,
        this.state!,
        stmt.text,
        types.map((type) => ({ value: null, type })),
      );
      this.send(cols ? msg.rowDescription(cols.map((c) => describeColumn(c, 0))) : msg.noData());
      return;
    }
    const portal = this.portals.get(name);
    if (!portal) throw new SqlError('34000', `portal "${name}" does not exist`);
    const cols = await this.engine.sql.describe(
      this.actor!,
      this.state!,
      portal.stmt.text,
      portal.params,
    );
    this.send(
      cols
        ? msg.rowDescription(cols.map((c, i) => describeColumn(c, formatOf(portal.formats, i))))
        : msg.noData(),
    );
  }

  private async execute(body: Buffer): Promise<void> {
    const r = reader(body);
    const name = r.cstring();
    const maxRows = r.int32();
    const portal = this.portals.get(name);
    if (!portal) throw new SqlError('34000', `portal "${name}" does not exist`);
    if (!portal.rest) {
      if (!portal.stmt.text.trim()) {
        this.send(msg.emptyQuery());
        return;
      }
      let last: SqlResult | undefined;
      await this.run(portal.stmt.text, portal.params, async (res) => {
        last = res;
      });
      if (!last) {
        this.send(msg.emptyQuery());
        return;
      }
      portal.rest = {
        columns: last.columns ?? [],
        rows: last.rows ?? [],
        command: last.command,
        ...(last.copy ? { copy: last.copy } : {}),
      };
    }
    if (portal.rest.copy) {
      const r = portal.rest;
      portal.rest = undefined;
      return this.sendCopy(r);
    }
    const rest = portal.rest;
    const take = maxRows > 0 ? rest.rows.splice(0, maxRows) : rest.rows.splice(0);
    await this.rows(rest.columns, take, portal.formats);
    if (maxRows > 0 && rest.rows.length) {
      this.send(msg.portalSuspended());
      return;
    }
    portal.rest = undefined;
    this.send(msg.commandComplete(rest.command));
  }
}

const clean = (s: string) => s.replace(/\0/g, '');

/** A cell of COPY's text format (backslash escapes, \N for null) or CSV (quoted when needed). */
function copyCell(v: string | null, f: CopyFormat): string {
  if (v === null) return f.null;
  if (f.csv)
    return /[",\r\n]/.test(v) || v.includes(f.delimiter) || v === f.null
      ? `"${v.replace(/"/g, '""')}"`
      : v;
  return v.replace(
    /[\\\t\n\r]/g,
    (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!,
  );
}

const formatOf = (formats: number[], i: number) =>
  formats.length === 0 ? 0 : formats.length === 1 ? formats[0]! : (formats[i] ?? 0);

function describeColumn(c: SqlCell, format: number) {
  return { name: clean(c.name), type: pgType(c.dataType), format };
}

/** The highest $n in a statement's text (outside strings and quoted names). */
function paramCount(text: string): number {
  let max = 0;
  const bare = text.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"/g, '');
  for (const m of bare.matchAll(/\$(\d+)/g)) max = Math.max(max, Number(m[1]));
  return max;
}

export const newSecret = () => randomInt(1, 2 ** 31 - 1);
