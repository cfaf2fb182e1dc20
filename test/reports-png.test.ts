// Charts as PNG (src/engine/reports/png.ts): the size asked for, white behind, text drawn
// with the system's fonts, and nothing outside the SVG ever read.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildChartSpec, renderChartSvg } from '../src/engine/reports/chart.js';
import { PNG_WIDTH, svgToPng } from '../src/engine/reports/png.js';
import { colourCount, pixelAt, pngHeader, pngPixels, PNG_SIGNATURE } from './helpers/png.js';

const WHITE = [255, 255, 255, 255];
const RED = [255, 0, 0, 255];
const BLUE = [0, 0, 255, 255];

// Left half red, right half blue, a transparent strip at the bottom.
const HALVES = `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50" viewBox="0 0 100 50">
  <rect x="0" y="0" width="50" height="40" fill="#ff0000"/>
  <rect x="50" y="0" width="50" height="40" fill="#0000ff"/>
</svg>`;

describe('svgToPng', () => {
  it('draws the SVG at the width asked for, keeping its aspect ratio, on white', async () => {
    const png = await svgToPng(HALVES, { width: 200 });
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(pngHeader(png)).toMatchObject({ width: 200, height: 100, bitDepth: 8 });
    const img = pngPixels(png);
    expect(pixelAt(img, 10, 10)).toEqual(RED);
    expect(pixelAt(img, 190, 70)).toEqual(BLUE);
    // Nothing drawn there: white, not transparent.
    expect(pixelAt(img, 100, 95)).toEqual(WHITE);
    expect(colourCount(img)).toBeGreaterThan(1);
  });

  it('is 960 px wide by default', async () => {
    expect(PNG_WIDTH).toBe(960);
    expect(pngHeader(await svgToPng(HALVES))).toMatchObject({ width: 960, height: 480 });
  });

  it('draws text with the system fonts (sans-serif and no family at all)', async () => {
    for (const family of ['font-family="sans-serif"', '']) {
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60"><text x="10" y="40" font-size="30" ${family}>Ursa 42</text></svg>`;
      const img = pngPixels(await svgToPng(svg, { width: 200 }));
      // Glyphs: dark pixels, and grey ones where they are anti-aliased.
      expect(colourCount(img), family).toBeGreaterThan(10);
      let dark = 0;
      for (let i = 0; i < img.rgba.length; i += 4) if (img.rgba[i]! < 100) dark++;
      expect(dark, family).toBeGreaterThan(100);
    }
  });

  it('draws a chart of the renderer: not blank, many colours, the bars in their colour', async () => {
    const spec = buildChartSpec(
      { mark: 'bar', x: 'Region', y: 'Flights', title: 'Flights by region' },
      {
        columns: [
          { title: 'Region', dataType: 'text' },
          { title: 'Flights', dataType: 'integer' },
        ],
        rows: [
          ['West', '120'],
          ['East', '80'],
        ],
      },
    );
    const img = pngPixels(await svgToPng(await renderChartSvg(spec)));
    expect(img.width).toBe(960);
    expect(img.height).toBeGreaterThan(300);
    expect(colourCount(img)).toBeGreaterThan(20);
    // The palette's first colour (#2f6fde, src/shared/chart/theme.ts) covers a good part of it.
    let bar = 0;
    for (let i = 0; i < img.rgba.length; i += 4)
      if (img.rgba[i] === 0x2f && img.rgba[i + 1] === 0x6f && img.rgba[i + 2] === 0xde) bar++;
    expect(bar).toBeGreaterThan((img.width * img.height) / 10);
  });

  it('refuses an SVG that refers to anything outside itself, before reading it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-png-'));
    const local = path.join(dir, 'secret.png');
    fs.writeFileSync(local, await svgToPng(HALVES, { width: 20 }));
    const refs = [
      `<image href="${local}" width="50" height="50"/>`,
      `<image xlink:href="file://${local}" width="50" height="50"/>`,
      `<image href="https://example.com/x.png" width="50" height="50"/>`,
      `<image href="data:image/png;base64,${fs.readFileSync(local).toString('base64')}" width="50" height="50"/>`,
      `<filter id="f"><feImage href="${local}"/></filter><rect width="10" height="10" filter="url(#f)"/>`,
      `<rect width="10" height="10" fill="url(https://example.com/p.svg#g)"/>`,
      `<style>@import url("https://example.com/a.css");</style>`,
      `<use href="${path.join(dir, 'other.svg')}#x"/>`,
    ];
    for (const ref of refs) {
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="50" height="50">${ref}</svg>`;
      await expect(svgToPng(svg), ref).rejects.toThrow(/outside itself/);
    }
    // References inside the document are fine (gradients, clip paths, filters).
    const inside = `<svg xmlns="http://www.w3.org/2000/svg" width="50" height="50"><defs><clipPath id="c"><rect width="25" height="50"/></clipPath></defs><rect width="50" height="50" fill="#ff0000" clip-path="url(#c)"/></svg>`;
    const img = pngPixels(await svgToPng(inside, { width: 50 }));
    expect(pixelAt(img, 5, 5)).toEqual(RED);
    expect(pixelAt(img, 45, 5)).toEqual(WHITE);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses what is not an SVG, and a size that would take gigabytes', async () => {
    await expect(svgToPng('not an svg')).rejects.toThrow(/not a valid SVG/);
    await expect(
      svgToPng('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1000"></svg>'),
    ).rejects.toThrow(/too tall/);
    // Widths are bounded.
    expect(pngHeader(await svgToPng(HALVES, { width: 100_000 })).width).toBe(2048);
  });
});
