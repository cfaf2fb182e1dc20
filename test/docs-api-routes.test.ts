// docs/api.md claims every route (issue 30): each route the API index lists over HTTP
// (`GET /api/v1`, built from the same definitions the server mounts) has a row in one of its
// tables, `| METHOD | path |`, and the fields the warehouse routes take are documented.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

const API = fs.readFileSync(new URL('../docs/api.md', import.meta.url), 'utf8');

/** `METHOD path` of every table row of api.md (a row may name several methods). */
function documented(): Set<string> {
  const out = new Set<string>();
  let section = '';
  for (const line of API.split('\n')) {
    const heading = /^##+ (.*)/.exec(line);
    if (heading) section = heading[1]!;
    const row = /^\| ([A-Z, ]+) \| ([^ |]+) \|/.exec(line);
    if (row) for (const m of row[1]!.split(/, ?/)) out.add(`${m.trim()} ${row[2]}`);
    // The chunked upload section's table names methods only: its path is the section's.
    const bare = /^\| (GET|POST|PUT|DELETE) \|/.exec(line);
    if (bare && section === 'Chunked upload')
      out.add(`${bare[1]} /projects/{project}/storage/upload`);
  }
  return out;
}

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
}, 60_000);
afterAll(async () => {
  await s?.close();
});

describe('docs/api.md', () => {
  it('has a row for every route of the API index', async () => {
    const r = await s.api('GET', '/api/v1', { as: null });
    expect(r.status, r.text).toBe(200);
    const routes = (
      r.json.resources as { routes: { methods: string[]; path: string }[] }[]
    ).flatMap((g) => g.routes.flatMap((rt) => rt.methods.map((m) => `${m} ${rt.path}`)));
    expect(routes.length).toBeGreaterThan(50);
    const rows = documented();
    const missing = routes.filter((x) => x !== 'GET /' && !rows.has(x));
    expect(missing).toEqual([]);
  });

  it('documents the warehouse fields: PUT /projects/{project} warehouse, source_type "table"', () => {
    const put = API.split('\n').find((l) => l.startsWith('| PUT | /projects/{project} |'));
    expect(put).toContain('warehouse: { credentials, schema }');
    const sourceType = API.split('\n').find((l) => l.startsWith('| `source_type` |'));
    expect(sourceType).toContain('`table`');
    expect(API).not.toMatch(/Locks are kept in memory/);
  });
});
