// The engine enforces access itself: every method front doors call on project files takes
// the caller's actor and refuses a plain member with a 403 EngineError, with no HTTP in
// between, and the front doors' sources never reach the raw store or check levels themselves.
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectActor } from '../src/engine/access/actor.js';
import { EngineError } from '../src/engine/errors.js';
import { ProjectFiles, type PropOp } from '../src/engine/storage/project-files.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

const PLAIN = 'engine-access-plain@example.com';
const MD = 'engine-access-md@example.com';
const PROP: PropOp = { op: 'set', ns: 'urn:x', name: 'p', value: '<p xmlns="urn:x">1</p>' };

let s: TestServer;
let plain: ProjectActor;
let md: ProjectActor;

beforeAll(async () => {
  s = await startTestServer();
  await invite(s, s.demo, PLAIN);
  await invite(s, s.demo, MD, { mdadmin: true });
  plain = await s.engine.actor({ email: PLAIN }, s.demo);
  md = await s.engine.actor({ email: MD }, s.demo);
  const raw = rawStorage(s.engine);
  await raw.writeFile(s.demo, '/kept.csv', Buffer.from('a,b\n1,2\n'));
  await raw.writeFile(s.demo, '/doomed.csv', Buffer.from('x'));
});

afterAll(async () => {
  await s?.close();
});

/** One call of every public member of engine.files: the type fails to compile when one is missing. */
const FILE_CALLS: Record<keyof ProjectFiles, (a: ProjectActor) => unknown> = {
  authorize: (a) => s.engine.files.authorize(a),
  stat: (a) => s.engine.files.stat(a, '/kept.csv'),
  require: (a) => s.engine.files.require(a, '/kept.csv'),
  list: (a) => s.engine.files.list(a, '/', { withStats: true }),
  readStream: async (a) => (await s.engine.files.readStream(a, '/kept.csv')).stream.destroy(),
  deadProps: (a) => s.engine.files.deadProps(a, '/kept.csv'),
  patchProps: (a) => s.engine.files.patchProps(a, '/kept.csv', [PROP]),
  copy: (a) => s.engine.files.copy(a, '/kept.csv', '/copied.csv'),
  mkdir: (a) => s.engine.files.mkdir(a, '/made'),
  writeFile: (a) => s.engine.files.writeFile(a, '/written.csv', Buffer.from('y')),
  remove: (a) => s.engine.files.remove(a, '/doomed.csv'),
  move: (a) => s.engine.files.move(a, '/kept.csv', '/moved.csv'),
};

/** The refusal of a caller below the files' level (not, say, a refused symbolic link). */
async function refusal(call: () => unknown): Promise<EngineError> {
  try {
    await call();
  } catch (err) {
    if (err instanceof EngineError) return err;
    throw err;
  }
  throw new Error('the call was not refused');
}

describe('engine.files checks the caller in every method', () => {
  it('the table above names every method of ProjectFiles', () => {
    const methods = Object.getOwnPropertyNames(ProjectFiles.prototype).filter(
      (n) => n !== 'constructor',
    );
    expect(methods.sort()).toEqual(Object.keys(FILE_CALLS).sort());
  });

  it.each(Object.keys(FILE_CALLS))('%s: a plain member gets a 403 EngineError', async (name) => {
    const err = await refusal(() => FILE_CALLS[name as keyof ProjectFiles](plain));
    expect(err.kind, err.message).toBe('forbidden');
    expect(err.context).toMatchObject({ project: s.demo, required: 'mdadmin' });
  });

  it('the refused calls changed nothing', async () => {
    const raw = rawStorage(s.engine);
    const names = (await raw.list(s.demo, '/')).children.map((c) => c.path);
    expect(names.sort()).toEqual(['/doomed.csv', '/kept.csv']);
    expect(await s.engine.files.deadProps(md, '/kept.csv')).toEqual([]);
  });

  it('an MD Admin makes the same calls; a copy keeps the dead properties', async () => {
    for (const call of Object.values(FILE_CALLS)) await call(md);
    const raw = rawStorage(s.engine);
    const names = (await raw.list(s.demo, '/')).children.map((c) => c.path);
    expect(names.sort()).toEqual(['/copied.csv', '/made', '/moved.csv', '/written.csv']);
    expect(await s.engine.files.deadProps(md, '/copied.csv')).toEqual([
      { ns: PROP.ns, name: PROP.name, value: PROP.value },
    ]);
    // Admins hold every level.
    const admin = await s.engine.actor({ email: ADMIN }, s.demo);
    expect((await s.engine.files.stat(admin, '/moved.csv'))?.size).toBe(8);
  });
});

describe('uploads check the caller in every method', () => {
  const chunk = {
    resumableChunkNumber: '1',
    resumableChunkSize: '1',
    resumableTotalSize: '1',
    resumableTotalChunks: '1',
    resumableIdentifier: 'engine-access-upload',
    resumableFilename: 'up.csv',
  };
  const CALLS: Record<string, (a: ProjectActor) => unknown> = {
    testChunk: (a) => s.engine.uploads.testChunk(a, chunk),
    putChunk: (a) => s.engine.uploads.putChunk(a, chunk, Readable.from([Buffer.from('z')])),
    putWhole: (a) => s.engine.uploads.putWhole(a, {}, 'up.csv', Readable.from([Buffer.from('z')])),
    resolve: (a) => s.engine.uploads.resolve(a, 'engine-access-upload'),
  };

  it.each(Object.keys(CALLS))('%s: a plain member gets a 403 EngineError', async (name) => {
    const err = await refusal(() => CALLS[name]!(plain));
    expect(err.kind, err.message).toBe('forbidden');
    expect(err.context).toMatchObject({ project: s.demo, required: 'mdadmin' });
    expect(await rawStorage(s.engine).stat(s.demo, '/up.csv')).toBeNull();
  });
});

describe('job and AI reads take the actor', () => {
  beforeAll(() => s.engine.jobs.register('flow', { run: async () => ({ n: 1 }) }));

  it('jobs.finished waits only for a job the caller may see', async () => {
    const job = await s.engine.jobs.submit(md, 'flow', {});
    expect((await s.engine.jobs.finished(md, job.id, 10_000)).status).toBe('OK');
    const err = await refusal(() => s.engine.jobs.finished(plain, job.id, 10_000));
    expect(err.kind, err.message).toBe('not_found');
  });

  it('ai.questionOf answers the asker only', async () => {
    const { job } = await s.engine.ai.conversations.add(md, 'how many rows?', undefined, (ids) =>
      s.engine.jobs.submit(md, 'ai', ids),
    );
    expect(await s.engine.ai.questionOf(md, job.id)).toBe('how many rows?');
    // An Admin sees every job, not the questions others asked.
    expect(
      await s.engine.ai.questionOf(await s.engine.actor({ email: ADMIN }, s.demo), job.id),
    ).toBeNull();
    const err = await refusal(() => s.engine.ai.questionOf(plain, job.id));
    expect(err.kind, err.message).toBe('not_found');
  });
});

// ---- the front doors' sources ----

// The doors and the kits they share (docs/architecture.md).
const FRONT_DOORS = ['src/rest', 'src/webdav', 'src/mcp', 'src/site', 'src/http', 'src/web'];

function sourcesBelow(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourcesBelow(full);
    return e.isFile() && full.endsWith('.ts') ? [full] : [];
  });
}

/** What a front door must not do: the engine decides who may do what. */
const RULES: { id: string; why: string; pattern: RegExp }[] = [
  {
    id: 'raw-import',
    why: 'imports the raw file store (use engine.files)',
    pattern: /from\s+'[./]*\/engine\/storage\/(storage|dav-props|access)\.js'/,
  },
  {
    id: 'level-check',
    why: 'checks a level itself (the engine checks)',
    pattern: /\brequire(StorageAccess|Level)\b/,
  },
  {
    id: 'raw-store',
    why: 'reaches a raw, project-id store of the engine',
    pattern: /\bengine\s*\.\s*(storage|model|dbs|db)\b/,
  },
  {
    id: 'bare-id',
    why: 'reads AI messages or waits for jobs by bare id (use engine.ai / engine.jobs with the actor)',
    pattern: /\bengine\.(ai\.conversations|jobs\.waitFor)\b/,
  },
];

/** The only places allowed to break a rule, and why. */
const ALLOWED: { file: string; rule: string; why: string }[] = [
  {
    file: 'src/http/router.ts',
    rule: 'level-check',
    why: "the route table's level, checked in one place for every route before its handler",
  },
];

function violations(source: string, file = ''): string[] {
  const found: string[] = [];
  source.split('\n').forEach((line, i) => {
    if (/^\s*(\/\/|\*)/.test(line)) return; // comments may name what is refused
    for (const r of RULES) {
      if (!r.pattern.test(line)) continue;
      if (ALLOWED.some((a) => a.file === file && a.rule === r.id)) continue;
      found.push(`${i + 1}: ${r.why}: ${line.trim()}`);
    }
  });
  return found;
}

describe('front doors leave access to the engine', () => {
  it('the rules catch what they are about', () => {
    for (const bad of [
      "import type { Storage } from '../../engine/storage/storage.js';",
      "import { requireStorageAccess } from '../engine/storage/access.js';",
      'requireLevel(actor, "mdadmin");',
      'await c.engine.storage.list(c.actor.projectId, "/");',
      'const v = engine.model.versions(actor.projectId);',
      'ctx.engine.dbs.read(p, fn);',
      'davPropsOf(engine.db, x);',
      'ctx.engine.ai.conversations.question(id);',
      'ctx.engine.jobs.waitFor(job.id, 1000);',
    ])
      expect(violations(bad), bad).not.toEqual([]);
    for (const fine of [
      "import type { StorageItem } from '../../engine/storage/project-files.js';",
      'await c.engine.files.list(c.actor, "/");',
      'engine.objects.versions(actor);',
    ])
      expect(violations(fine), fine).toEqual([]);
  });

  it('the doors and their kits never import the raw store, reach raw stores or check levels', () => {
    const files = FRONT_DOORS.flatMap(sourcesBelow);
    expect(files).toContain(path.join('src', 'rest', 'routes', 'storage.ts'));
    expect(files).toContain(path.join('src', 'webdav', 'auth.ts'));
    expect(files).toContain(path.join('src', 'http', 'router.ts'));
    const found = files.flatMap((f) =>
      violations(fs.readFileSync(f, 'utf8'), f.split(path.sep).join('/')).map((v) => `${f}:${v}`),
    );
    expect(found).toEqual([]);
  });
});
