// Reading PNGs in tests: the header (signature and IHDR) and the pixels of 8-bit RGB/RGBA
// images (what resvg writes), enough to check a chart image's size and that it is not blank.
import zlib from 'node:zlib';

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
}

/** The IHDR of a PNG; throws when the bytes are not a PNG. */
export function pngHeader(png: Buffer): PngHeader {
  if (!png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('not a PNG: bad signature');
  if (png.toString('latin1', 12, 16) !== 'IHDR') throw new Error('not a PNG: no IHDR first');
  return {
    width: png.readUInt32BE(16),
    height: png.readUInt32BE(20),
    bitDepth: png.readUInt8(24),
    colorType: png.readUInt8(25),
  };
}

/** RGBA pixels (row by row) of an 8-bit, non-interlaced RGB or RGBA PNG. */
export function pngPixels(png: Buffer): PngHeader & { rgba: Buffer } {
  const h = pngHeader(png);
  if (h.bitDepth !== 8 || (h.colorType !== 2 && h.colorType !== 6))
    throw new Error(`unsupported PNG: bit depth ${h.bitDepth}, colour type ${h.colorType}`);
  if (png.readUInt8(28) !== 0) throw new Error('unsupported PNG: interlaced');
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const len = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + len));
    if (type === 'IEND') break;
    at += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const bpp = h.colorType === 6 ? 4 : 3;
  const stride = h.width * bpp;
  const out = Buffer.alloc(h.height * stride);
  for (let y = 0; y < h.height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? out[y * stride + x - bpp]! : 0;
      const b = y > 0 ? out[(y - 1) * stride + x]! : 0;
      const c = x >= bpp && y > 0 ? out[(y - 1) * stride + x - bpp]! : 0;
      let predictor: number;
      if (filter === 0) predictor = 0;
      else if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else throw new Error(`bad PNG filter ${filter}`);
      out[y * stride + x] = (line[x]! + predictor) & 0xff;
    }
  }
  if (bpp === 4) return { ...h, rgba: out };
  const rgba = Buffer.alloc(h.width * h.height * 4);
  for (let i = 0; i < h.width * h.height; i++) {
    out.copy(rgba, i * 4, i * 3, i * 3 + 3);
    rgba[i * 4 + 3] = 255;
  }
  return { ...h, rgba };
}

/** The pixel at (x, y) as [r, g, b, a]. */
export function pixelAt(img: { width: number; rgba: Buffer }, x: number, y: number): number[] {
  const i = (y * img.width + x) * 4;
  return [...img.rgba.subarray(i, i + 4)];
}

/** How many distinct colours the image has (a blank image has one). */
export function colourCount(img: { rgba: Buffer }): number {
  const seen = new Set<number>();
  for (let i = 0; i < img.rgba.length; i += 4) seen.add(img.rgba.readUInt32BE(i));
  return seen.size;
}
