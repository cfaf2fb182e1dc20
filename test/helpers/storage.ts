// The engine's raw file store (project ids, no rights checked), to set up and inspect files in
// tests. Front doors never reach it: they use engine.files (test/engine-access.test.ts).
import type { Engine } from '../../src/engine/engine.js';
import type { Storage } from '../../src/engine/storage/storage.js';

export function rawStorage(engine: Engine): Storage {
  return engine['storage'];
}
