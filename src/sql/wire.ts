// The PostgreSQL protocol's bytes (version 3): frames cut from the stream with a size limit
// (a length field is believed only up to it), and backend messages built with pg-protocol's
// Writer (node-postgres's own codec). Frontend messages are read with pg-protocol's
// BufferReader, each from its own slice, so a field can never run into the next message.
import { BufferReader } from 'pg-protocol/dist/buffer-reader.js';
import { Writer } from 'pg-protocol/dist/buffer-writer.js';
import type { PgType } from './types.js';

/** The longest message accepted (a query's text is limited to 256 KB by the engine). */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
/** A startup packet is a few parameters. */
const MAX_STARTUP_BYTES = 16 * 1024;

export const SSL_REQUEST = 80877103;
export const GSS_REQUEST = 80877104;
export const CANCEL_REQUEST = 80877102;

export interface Frame {
  /** The message type (a letter); 0 for the untyped startup-phase packets. */
  type: number;
  body: Buffer;
}

export class ProtocolError extends Error {}

/** Cuts frames from a byte stream. */
export class Framer {
  private buf: Buffer = Buffer.alloc(0);
  /** Until the startup packet is read, frames have no type byte. */
  started = false;

  push(chunk: Buffer): Frame[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: Frame[] = [];
    for (;;) {
      const head = this.started ? 5 : 4;
      if (this.buf.length < head) break;
      const len = this.buf.readUInt32BE(this.started ? 1 : 0);
      const max = this.started ? MAX_MESSAGE_BYTES : MAX_STARTUP_BYTES;
      if (len < 4 || len > max)
        throw new ProtocolError(`invalid message length ${len} (at most ${max} bytes)`);
      const total = len + (this.started ? 1 : 0);
      if (this.buf.length < total) break;
      out.push({
        type: this.started ? this.buf[0]! : 0,
        body: Buffer.from(this.buf.subarray(head, total)),
      });
      this.buf = this.buf.subarray(total);
      // After an SSL refusal or cancel the next packet is again untyped: the session says.
      if (!this.started) break;
    }
    return out;
  }

  /** Bytes received and not yet framed. */
  get pending(): number {
    return this.buf.length;
  }

  /** The frames already buffered after the startup packet (typed from now on). */
  drain(): Frame[] {
    return this.push(Buffer.alloc(0));
  }
}

export function reader(body: Buffer): BufferReader {
  const r = new BufferReader();
  r.setBuffer(0, body);
  return r;
}

const w = () => new Writer();

export const msg = {
  authCleartext: () => w().addInt32(3).flush(0x52),
  authOk: () => w().addInt32(0).flush(0x52),
  parameterStatus: (k: string, v: string) => w().addCString(k).addCString(v).flush(0x53),
  backendKey: (pid: number, secret: number) => w().addInt32(pid).addInt32(secret).flush(0x4b),
  ready: (status: 'I' | 'T' | 'E') => w().addString(status).flush(0x5a),
  parseComplete: () => w().flush(0x31),
  bindComplete: () => w().flush(0x32),
  closeComplete: () => w().flush(0x33),
  noData: () => w().flush(0x6e),
  emptyQuery: () => w().flush(0x49),
  portalSuspended: () => w().flush(0x73),
  commandComplete: (tag: string) => w().addCString(tag).flush(0x43),
  copyOut: (columns: number) => {
    const x = w()
      .add(Buffer.from([0]))
      .addInt16(columns);
    for (let i = 0; i < columns; i++) x.addInt16(0);
    return x.flush(0x48);
  },
  copyData: (b: Buffer) => w().add(b).flush(0x64),
  copyDone: () => w().flush(0x63),
  negotiateVersion: (minor: number, unknown: string[]) => {
    const x = w().addInt32(minor).addInt32(unknown.length);
    for (const u of unknown) x.addCString(u);
    return x.flush(0x76);
  },
  parameterDescription: (oids: number[]) => {
    const x = w().addInt16(oids.length);
    for (const o of oids) x.addInt32(o);
    return x.flush(0x74);
  },
  rowDescription: (cols: { name: string; type: PgType; format: number }[]) => {
    const x = w().addInt16(cols.length);
    for (const c of cols)
      x.addCString(c.name)
        .addInt32(0) // table OID
        .addInt16(0) // column number
        .addInt32(c.type.oid)
        .addInt16(c.type.size)
        .addInt32(-1) // type modifier
        .addInt16(c.format);
    return x.flush(0x54);
  },
  dataRow: (cells: (Buffer | null)[]) => {
    const x = w().addInt16(cells.length);
    for (const c of cells) {
      if (c === null) x.addInt32(-1);
      else x.addInt32(c.length).add(c);
    }
    return x.flush(0x44);
  },
  /** ErrorResponse (E) or NoticeResponse (N). */
  error: (
    e: { severity: 'ERROR' | 'FATAL' | 'NOTICE'; code: string; message: string; hint?: string },
    notice = false,
  ) => {
    const x = w()
      .addString('S')
      .addCString(e.severity)
      .addString('V')
      .addCString(e.severity)
      .addString('C')
      .addCString(e.code)
      .addString('M')
      .addCString(e.message);
    if (e.hint) x.addString('H').addCString(e.hint);
    return x.addString('\0').flush(notice ? 0x4e : 0x45);
  },
};
