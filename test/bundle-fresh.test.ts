// When `ursa` rebuilds its bundle (bin/bundle.mjs bundleIsFresh): only when the bundle is
// missing, its record is, or a recorded input is newer than the build or gone.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleIsFresh } from '../bin/bundle.mjs';
import { INSTALL_ROOT } from '../src/shared/install-root.js';

// Inputs are recorded relative to the installation, so the fixture lives inside it.
fs.mkdirSync(path.join(INSTALL_ROOT, '.tmp'), { recursive: true });
const dir = fs.mkdtempSync(path.join(INSTALL_ROOT, '.tmp', 'bundle-fresh-'));
const rel = path.relative(INSTALL_ROOT, dir);
const out = path.join(dir, 'out');
const source = path.join(dir, 'a.ts');

function built(at: number, inputs = [`${rel}/a.ts`]) {
  fs.writeFileSync(path.join(out, 'inputs.json'), JSON.stringify({ built: at, inputs }));
}

beforeAll(() => {
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(source, 'export {};\n');
  fs.writeFileSync(path.join(out, 'cli.mjs'), '');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('bundleIsFresh', () => {
  it('is fresh when every input is older than the build', () => {
    built(Date.now() + 1_000);
    expect(bundleIsFresh(out)).toBe(true);
  });

  it('is stale once an input changed after the build', () => {
    built(Date.now() - 60_000);
    expect(bundleIsFresh(out)).toBe(false);
  });

  it('is stale when an input is gone, the record is missing, or the bundle is', () => {
    built(Date.now() + 1_000, [`${rel}/gone.ts`]);
    expect(bundleIsFresh(out)).toBe(false);
    fs.rmSync(path.join(out, 'inputs.json'));
    expect(bundleIsFresh(out)).toBe(false);
    built(Date.now() + 1_000);
    fs.rmSync(path.join(out, 'cli.mjs'));
    expect(bundleIsFresh(out)).toBe(false);
  });

  it('the bundle the tests start is fresh (built once by the global setup)', () => {
    expect(bundleIsFresh()).toBe(true);
  });
});
