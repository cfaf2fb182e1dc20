// Reading back an .xlsx the API wrote (a zip of XML parts): its entries and its sheet's cells.
import { crc32, inflateRawSync } from 'node:zlib';
import { expect } from 'vitest';

/** The entries of a zip (local headers in order), each checked against its CRC. */
export function unzip(bytes: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  for (let at = 0; bytes.readUInt32LE(at) === 0x04034b50;) {
    const method = bytes.readUInt16LE(at + 8);
    const crc = bytes.readUInt32LE(at + 14);
    const packed = bytes.readUInt32LE(at + 18);
    const nameLength = bytes.readUInt16LE(at + 26);
    const extra = bytes.readUInt16LE(at + 28);
    const name = bytes.subarray(at + 30, at + 30 + nameLength).toString('utf8');
    const start = at + 30 + nameLength + extra;
    const raw = bytes.subarray(start, start + packed);
    const data = method === 8 ? inflateRawSync(raw) : raw;
    expect(crc32(data), name).toBe(crc);
    out.set(name, data.toString('utf8'));
    at = start + packed;
  }
  return out;
}

/** The sheet's rows: each cell's number or text, in order. */
export function sheetRows(xml: string): (string | number)[][] {
  return [...xml.matchAll(/<row [^>]*>(.*?)<\/row>/g)].map((row) =>
    [...row[1]!.matchAll(/<c [^>]*?(?:\/>|>(.*?)<\/c>)/g)].map((c) => {
      const v = /^<v>(.*)<\/v>$/.exec(c[1] ?? '');
      if (v) return Number(v[1]);
      const t = /<t[^>]*>(.*)<\/t>/.exec(c[1] ?? '');
      return (t?.[1] ?? '').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>');
    }),
  );
}
