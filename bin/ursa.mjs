#!/usr/bin/env node
// The `ursa` command (`npm start`, `npm run ursa -- …`): runs src/cli.ts from its bundle,
// built or rebuilt first when the sources changed (bin/bundle.mjs).
import { ENTRY, ensureBundle } from './bundle.mjs';
import { pathToFileURL } from 'node:url';

await ensureBundle();
// Stack traces in logs name the TypeScript sources, not the bundle.
process.setSourceMapsEnabled(true);
await import(pathToFileURL(ENTRY).href);
