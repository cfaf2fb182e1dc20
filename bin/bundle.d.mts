// Types of bin/bundle.mjs for the TypeScript that builds the bundle before starting it.
export const OUT: string;
export const ENTRY: string;
export function bundleIsFresh(out?: string): boolean;
export function buildBundle(): Promise<void>;
export function ensureBundle(): Promise<void>;
export const BUNDLE_OPTIONS: Record<string, unknown> & { absWorkingDir: string };
