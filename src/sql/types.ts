// Ursa's data types as PostgreSQL's: type OIDs, sizes, and cells in the text and binary
// formats clients ask for (ISO dates; booleans t/f).
import { pgTypeOf } from '../engine/sql/pg-types.js';
import { SqlError } from '../engine/sql/service.js';

export interface PgType {
  oid: number;
  /** typlen: bytes, or -1 for variable length. */
  size: number;
}

export const pgType = (dataType: string): PgType => {
  const t = pgTypeOf(dataType);
  return { oid: t.oid, size: t.len };
};

/** PostgreSQL's epoch for binary dates and timestamps. */
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);

/** A cell in the text format. */
export function textCell(value: string, dataType: string): string {
  if (dataType === 'boolean') return /^(true|t|1)$/i.test(value) ? 't' : 'f';
  if (dataType === 'datetime') return value.replace('T', ' ').replace(/Z$/, '');
  return value;
}

/** A cell in the binary format. */
export function binaryCell(value: string, dataType: string): Buffer {
  switch (dataType) {
    case 'integer': {
      const b = Buffer.alloc(8);
      b.writeBigInt64BE(BigInt(value.split('.')[0]!));
      return b;
    }
    case 'number': {
      const b = Buffer.alloc(8);
      b.writeDoubleBE(Number(value));
      return b;
    }
    case 'boolean':
      return Buffer.from([/^(true|t|1)$/i.test(value) ? 1 : 0]);
    case 'date': {
      const b = Buffer.alloc(4);
      b.writeInt32BE(
        Math.round((Date.parse(`${value.slice(0, 10)}T00:00:00Z`) - PG_EPOCH_MS) / 86_400_000),
      );
      return b;
    }
    case 'datetime': {
      const b = Buffer.alloc(8);
      const ms = Date.parse(`${value.replace(' ', 'T').replace(/Z$/, '')}Z`);
      b.writeBigInt64BE(BigInt(ms - PG_EPOCH_MS) * 1000n);
      return b;
    }
    default:
      return Buffer.from(value, 'utf8');
  }
}

/** A parameter sent in the binary format, as text (what the engine binds). */
export function binaryParam(buf: Buffer, oid: number): string {
  try {
    switch (oid) {
      case 21:
        return String(buf.readInt16BE());
      case 23:
      case 26:
        return String(buf.readInt32BE());
      case 20:
        return String(buf.readBigInt64BE());
      case 700:
        return String(buf.readFloatBE());
      case 701:
        return String(buf.readDoubleBE());
      case 16:
        return buf[0] ? 'true' : 'false';
      case 1082:
        return new Date(PG_EPOCH_MS + buf.readInt32BE() * 86_400_000).toISOString().slice(0, 10);
      case 25:
      case 1043:
      case 1042:
      case 0:
        return buf.toString('utf8');
    }
  } catch {
    throw new SqlError('22P03', `a binary parameter of type ${oid} has the wrong length`);
  }
  throw new SqlError(
    '0A000',
    `binary parameters of type ${oid} are not supported; send it as text`,
  );
}
