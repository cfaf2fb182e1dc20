// A process that writes into a project and is then killed with -9 by the test (no cleanup
// runs): it opens an engine on the data directory (as `ursa mcp --stdio` does beside a
// running server, or another process of a cluster), starts a file write and a chunk of a
// chunked upload whose bodies never end, and prints READY <pid> once both temporary files
// hold bytes. Run with tsx: killed-writer.ts <project> <uploadId>; the environment names
// the data directory and metadata database.
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { loadConfig } from '../../src/engine/config.js';
import { Engine } from '../../src/engine/engine.js';
import { createLogger } from '../../src/engine/logger.js';

// Whatever would end it before the test kills it is said on stderr (the test shows it).
process.on('uncaughtException', (err) => {
  process.stderr.write(`uncaught: ${err.stack ?? String(err)}\n`);
  process.exit(1);
});
process.on('unhandledRejection', (err) => {
  process.stderr.write(`unhandled rejection: ${(err as Error)?.stack ?? String(err)}\n`);
});

const [project, uploadId] = process.argv.slice(2) as [string, string];
const config = loadConfig();
const engine = await Engine.open(config, createLogger('silent'));
const projectDir = path.join(config.dataDir, 'projects', project);
const storage = engine['storage'];

const file = new PassThrough();
void storage.writeFile(project, '/killed.bin', file).catch(() => undefined);
file.write(Buffer.alloc(600, 1));

const chunk = new PassThrough();
const actor = await engine.actor({ email: config.adminEmail }, project);
void engine.uploads
  .putChunk(
    actor,
    {
      resumableChunkNumber: '2',
      resumableChunkSize: '100',
      resumableTotalSize: '200',
      resumableTotalChunks: '2',
      resumableIdentifier: uploadId,
      resumableFilename: 'live.bin',
      resumableRelativePath: 'live.bin',
    },
    chunk,
  )
  .catch(() => undefined);
chunk.write(Buffer.alloc(50, 2));

/** Sizes of the files below `dir` whose names end with `.part`. */
const parts = (dir: string) =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && e.name.endsWith('.part'))
        .map((e) => fs.statSync(path.join(e.parentPath, e.name)).size)
    : [];
const ready = setInterval(() => {
  const tmp = parts(path.join(projectDir, 'tmp'));
  const chunks = parts(path.join(projectDir, 'uploads', uploadId));
  if (tmp.includes(600) && chunks.includes(50)) {
    clearInterval(ready);
    process.stdout.write(`READY ${process.pid}\n`);
    // Nothing else holds the event loop (open streams do not, the engine's timers are
    // unref'd): without this the writer ended on its own right after READY, and under load
    // before the test had counted its files as a live writer's.
    setInterval(() => {}, 60_000);
  }
}, 10);
