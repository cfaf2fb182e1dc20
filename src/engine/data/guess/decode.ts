// Decoding a sample for the structure guess: UTF-8 only, with clear refusals (UTF-16, binary
// files, the offset of the first bad byte) before any CSV reading sees the bytes.
import { isUtf8 } from 'node:buffer';
import { invalid } from '../../errors.js';

export interface DecodeOptions {
  fileName: string;
  /** The sample is a prefix of a longer file: it may end inside a character. */
  truncated: boolean;
}

export function decodeSample(sample: Buffer, opts: DecodeOptions): { text: string; bom: boolean } {
  const context = { fileName: opts.fileName, encoding: 'utf-8' };
  if (isUtf16Bom(sample))
    throw invalid('the file must be UTF-8 encoded; it is UTF-16 (save it as UTF-8)', context);
  const bom = sample.length >= 3 && sample[0] === 0xef && sample[1] === 0xbb && sample[2] === 0xbf;
  let bytes = sample.subarray(bom ? 3 : 0);
  // A cut sample may end inside a multi-byte character: that is not an encoding error.
  if (opts.truncated) bytes = bytes.subarray(0, completeUtf8Length(bytes));
  if (!isUtf8(bytes)) {
    const offset = firstInvalidUtf8(bytes) + (bom ? 3 : 0);
    throw invalid(`the file must be UTF-8 encoded; byte ${offset} is not valid UTF-8`, {
      ...context,
      offset,
    });
  }
  // NUL never occurs in text; it is how UTF-16 without BOM and binary files look.
  const nul = bytes.indexOf(0);
  if (nul !== -1)
    throw invalid('the file must be UTF-8 text; it holds NUL bytes (UTF-16 or a binary file?)', {
      ...context,
      offset: nul + (bom ? 3 : 0),
    });
  return { text: bytes.toString('utf8'), bom };
}

const isUtf16Bom = (b: Buffer) =>
  b.length >= 2 && ((b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff));

/** Expected length of a UTF-8 sequence from its lead byte (0: not a lead byte). */
function seqLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** Length without a trailing, incomplete multi-byte sequence. */
function completeUtf8Length(b: Buffer): number {
  for (let back = 1; back <= Math.min(3, b.length); back++) {
    const byte = b[b.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const need = seqLength(byte);
    return need > back ? b.length - back : b.length;
  }
  return b.length;
}

/** Offset of the first byte that breaks UTF-8 (only called once we know one does). */
function firstInvalidUtf8(b: Buffer): number {
  let i = 0;
  while (i < b.length) {
    const need = seqLength(b[i]!);
    if (need === 0 || i + need > b.length) return i;
    if (!isUtf8(b.subarray(i, i + need))) return i;
    i += need;
  }
  return i;
}
