// Saved AQL survives renames: metrics, filters, reports and members' row filters store their
// references as identifiers, so a load that relabels a fact or an attribute breaks none of
// them (they run, give the same numbers, the row filter still restricts) and they read with
// the new titles. References written as identifiers stay identifiers; unknown ones are still
// refused. Over REST and over MCP (the SDK's own client); also definitions stored before.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { migrateSavedAql } from '../src/engine/aql/saved-refs.js';
import { createLogger } from '../src/engine/logger.js';
import { createProject } from './helpers/fixtures.js';
import type { RunningServer } from '../src/server.js';
import { ADMIN, invite, startOnPort, startTestServer, type TestServer } from './helpers/server.js';
import { connectMcp } from './helpers/mcp-client.js';
import { rawStorage } from './helpers/storage.js';

const MEMBER = 'renames-eu@example.com';

describe('saved AQL across renames', () => {
  let s: TestServer;
  let p: string;
  let mcp: Client;
  const obj = (path = '') => `/projects/${p}/pmd/obj${path}`;
  const aqlOf = async (ident: string) => {
    const r = await s.api('GET', obj(`/${ident}`));
    expect(r.status, r.text).toBe(200);
    return r.json.object.def.aql as string;
  };
  const stored = async (ident: string) => (await s.engine.model.get(p, ident))!.def;
  const memberFilter = async () =>
    (await s.api('GET', `/projects/${p}/users/${encodeURIComponent(MEMBER)}`)).json.user.filter;
  /** Runs a query as `as` over REST and returns its rows. */
  const run = async (aql: string, as = ADMIN): Promise<string[][]> => {
    const r = await s.api('POST', `/projects/${p}/app/aql/execute`, { as, body: { aql } });
    expect(r.status, r.text).toBe(201);
    const job = await s.engine.jobs.waitFor(r.json.link[0].id);
    expect(job.status, job.message).toBe('OK');
    const data = await s.api('GET', `/projects/${p}/app/aql/data/${job.id}`, {
      as,
      accept: 'text/csv',
    });
    expect(data.status, data.text).toBe(200);
    return data.text
      .trim()
      .split(/\r?\n/)
      .slice(1)
      .map((l) => l.split(','));
  };
  const loadSales = async (amount: string, region: string) => {
    const r = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
      body: {
        type: 'cluster',
        clusters: {
          sales: {
            source_type: 'webdav',
            source: '/sales.csv',
            prescription: {
              primarykey: 'sale_id',
              columns: [
                ['sale_id', 'A', 'integer', 'Sale'],
                ['region', 'A', 'string', region],
                ['amount', 'F', 'integer', amount],
              ].map(([id, objectType, dataType, label]) => ({
                id,
                originalheader: id,
                objectType,
                dataType,
                label,
              })),
            },
          },
        },
      },
    });
    expect(r.status, r.text).toBe(202);
    const job = await s.engine.jobs.waitFor(r.json.link[0].id);
    expect(job.status, job.message).toBe('OK');
  };
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = (await mcp.callTool({ name, arguments: { project: p, ...args } })) as CallToolResult;
    expect(r.isError, JSON.stringify(r.content)).not.toBe(true);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
    return r.structuredContent as any;
  };

  beforeAll(async () => {
    s = await startTestServer();
    p = await createProject(s, 'renames', 'Renames');
    await rawStorage(s.engine).writeFile(
      p,
      '/sales.csv',
      Buffer.from('sale_id,region,amount\n1,EU,10\n2,US,20\n3,EU,5\n'),
    );
    await loadSales('Amount', 'Region');
    const r = await s.api('POST', obj(), {
      body: [
        {
          ident: 'metric.total',
          type: 'metric',
          name: 'Total',
          def: { aql: 'SELECT SUM([Amount])' },
        },
        {
          ident: 'metric.by_ident',
          type: 'metric',
          name: 'By ident',
          def: { aql: 'SELECT SUM([fact.sales.amount]) + SUM([ amount ])' },
        },
        { ident: 'filter.eu', type: 'filter', name: 'EU only', def: { aql: '[region] = "EU"' } },
        {
          ident: 'report.by_region',
          type: 'report',
          name: 'By region',
          def: {
            aql: 'SELECT [Region], [Total], SUM([Amount]) AS "[Amount]" -- [Amount]\nORDER BY 1',
            visualization: { type: 'bar' },
          },
        },
      ],
    });
    expect(r.status, r.text).toBe(201);
    await invite(s, p, MEMBER, { filter: '[REGION] = "EU"' });
    mcp = await connectMcp(s, ADMIN, 'renames-test');
  });
  afterAll(async () => {
    await mcp?.close();
    await s.close();
  });

  it('stores references as identifiers and reads them as written (titles in their current case)', async () => {
    expect((await stored('metric.total')).aql).toBe('SELECT SUM([fact.sales.amount])');
    expect(await aqlOf('metric.total')).toBe('SELECT SUM([Amount])');
    expect(await aqlOf('metric.by_ident')).toBe('SELECT SUM([fact.sales.amount]) + SUM([Amount])');
    expect(await aqlOf('filter.eu')).toBe('[Region] = "EU"');
    // Strings and comments are not references: they stay as they are.
    expect((await stored('report.by_region')).aql).toBe(
      'SELECT [attr.sales.region], [metric.total], SUM([fact.sales.amount]) AS "[Amount]" -- [Amount]\nORDER BY 1',
    );
    expect((await s.engine.members.allFilters()).find((m) => m.email === MEMBER)?.filter).toBe(
      '[attr.sales.region] = "EU"',
    );
    expect(await memberFilter()).toBe('[Region] = "EU"');
  });

  it('a reference to nothing is still refused, as before', async () => {
    const r = await s.api('POST', obj(), {
      body: { type: 'metric', name: 'Broken', def: { aql: 'SELECT SUM([Amout])' } },
    });
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toMatch(/unknown object \[Amout\].*\[Amount\]/);
    // The error points into the text as written (column of "[Amout]").
    expect(r.json.message).toMatch(/def\.aql/);
    const f = await s.api('PUT', `/projects/${p}/users/${encodeURIComponent(MEMBER)}`, {
      body: { filter: '[Regio] = "EU"' },
    });
    expect(f.status, f.text).toBe(400);
    expect(await memberFilter()).toBe('[Region] = "EU"');
  });

  it('a load relabelling the fact and the attribute breaks nothing; reads show the new titles', async () => {
    const before = {
      total: await run('SELECT [Total]'),
      report: await run(await aqlOf('report.by_region')),
      member: await run('SELECT [Total]', MEMBER),
    };
    expect(before.total).toEqual([['35']]);
    expect(before.member).toEqual([['15']]);
    await loadSales('Sales Amount', 'Area');

    expect(await aqlOf('metric.total')).toBe('SELECT SUM([Sales Amount])');
    expect(await aqlOf('metric.by_ident')).toBe(
      'SELECT SUM([fact.sales.amount]) + SUM([Sales Amount])',
    );
    expect(await aqlOf('filter.eu')).toBe('[Area] = "EU"');
    const report = await aqlOf('report.by_region');
    expect(report).toBe(
      'SELECT [Area], [Total], SUM([Sales Amount]) AS "[Amount]" -- [Amount]\nORDER BY 1',
    );
    const listed = await s.api('GET', obj('?rel=object.metric&limit=100'));
    expect(listed.status, listed.text).toBe(200);
    expect(
      (listed.json.objects as Array<{ ident: string; def: { aql: string } }>).find(
        (o) => o.ident === 'metric.total',
      )?.def.aql,
    ).toBe('SELECT SUM([Sales Amount])');
    expect(await memberFilter()).toBe('[Area] = "EU"');

    // Same numbers; the row filter still restricts; the saved filter still filters.
    expect(await run('SELECT [Total]')).toEqual(before.total);
    expect(await run('SELECT [By ident]')).toEqual([['70']]);
    expect(await run(report)).toEqual(before.report);
    expect(before.report).toEqual([
      ['EU', '15', '15'],
      ['US', '20', '20'],
    ]);
    expect(await run('SELECT [Total]', MEMBER)).toEqual([['15']]);
    expect(await run('SELECT [Area], [Total] ORDER BY 1', MEMBER)).toEqual([['EU', '15']]);
    expect(await run('SELECT [Total] WHERE [EU only]')).toEqual([['15']]);

    const check = await s.api('GET', `/projects/${p}/pmd/check/obj`);
    expect(check.status, check.text).toBe(200);
    expect(check.json.problems).toEqual([]);
    const deps = await s.api('GET', obj('/report.by_region?predecessors=1'));
    expect(
      (deps.json.predecessors as Array<{ ident?: string; id?: string }>)
        .map((d) => d.ident ?? d.id)
        .sort(),
    ).toEqual(['attr.sales.region', 'fact.sales.amount', 'metric.total']);
    // The fact cannot be dropped from under the metric unnoticed: it is its predecessor.
    const succ = await s.api('GET', obj('/fact.sales.amount?successors=1'));
    expect(JSON.stringify(succ.json.successors)).toContain('metric.total');
  });

  it('a definition read and sent back is stored unchanged (no new revision)', async () => {
    const cur = (await s.api('GET', obj('/report.by_region'))).json.object;
    const r = await s.api('PUT', obj('/report.by_region'), { body: cur });
    expect(r.status, r.text).toBe(200);
    expect(r.json.object.revision).toBe(cur.revision);
    expect(r.json.object.def).toEqual(cur.def);
  });

  it('over MCP: written by title, read with the current title; tools run the saved AQL', async () => {
    const made = await call('create_metric', {
      title: 'Big sales',
      aql: 'SELECT MAX([sales amount])',
    });
    expect(made.object.def.aql).toBe('SELECT MAX([Sales Amount])');
    expect((await stored(made.object.id)).aql).toBe('SELECT MAX([fact.sales.amount])');
    const updated = await call('update_object', {
      id: 'metric.total',
      aql: 'SELECT SUM([Sales Amount]) + 0 * SUM([fact.sales.amount])',
    });
    expect(updated.object.def.aql).toBe(
      'SELECT SUM([Sales Amount]) + 0 * SUM([fact.sales.amount])',
    );
    const renamed = await call('update_object', { id: 'metric.total', title: 'Grand total' });
    expect(renamed.object.def.aql).toBe(updated.object.def.aql);
    expect((await call('get_object', { id: 'report.by_region' })).object.def.aql).toBe(
      'SELECT [Area], [Grand total], SUM([Sales Amount]) AS "[Amount]" -- [Amount]\nORDER BY 1',
    );
    const reports = await call('list_reports', {});
    expect(reports.reports[0].aql).toMatch(/^SELECT \[Area\], \[Grand total\]/);
    const ran = await call('run_report', { report: 'By region' });
    expect(ran.rows).toEqual([
      ['EU', 15, 15],
      ['US', 20, 20],
    ]);
    const model = await call('get_model', {});
    expect(
      (model.metrics as Array<{ id: string; aql: string }>).find((m) => m.id === made.object.id)
        ?.aql,
    ).toBe('SELECT MAX([Sales Amount])');
  });

  it('definitions and row filters stored before are migrated: titles become identifiers', async () => {
    // As stored by an earlier version: titles in the text, no positions.
    await s.engine.model.upsert(
      p,
      [
        {
          ident: 'metric.legacy',
          type: 'metric',
          name: 'Legacy',
          def: { aql: 'SELECT SUM([Sales Amount]) + COUNT([Nothing])' },
        },
      ],
      'test',
    );
    await s.engine.members.restoreFilter(p, MEMBER, '[area] = "EU"', []);
    await migrateSavedAql(s.engine.model, s.engine.members, createLogger('silent'));
    expect((await stored('metric.legacy')).aql).toBe(
      'SELECT SUM([fact.sales.amount]) + COUNT([Nothing])',
    );
    expect(await aqlOf('metric.legacy')).toBe('SELECT SUM([Sales Amount]) + COUNT([Nothing])');
    expect(await memberFilter()).toBe('[Area] = "EU"');
    await loadSales('Amount', 'Region');
    expect(await aqlOf('metric.legacy')).toBe('SELECT SUM([Amount]) + COUNT([Nothing])');
    expect(await memberFilter()).toBe('[Region] = "EU"');
    expect(await run('SELECT [Grand total]', MEMBER)).toEqual([['15']]);
  });
});

describe('definitions stored before the change, across a restart', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-renames-'));
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('start-up stores their titles as identifiers; nothing unresolved is lost', async () => {
    server = await startOnPort(dataDir, 0);
    const demo = server.bootstrap.demoProjectId!;
    const amount = {
      ident: 'fact.sales.amount',
      type: 'fact',
      name: 'Amount',
      def: { dataset: 'sales', column: 'amount', dataType: 'integer', source: 'load' },
    };
    // Written as an earlier version stored them: titles in the text, no positions.
    await server.engine.model.upsert(
      demo,
      [
        amount,
        { ident: 'metric.old', type: 'metric', name: 'Old', def: { aql: 'SELECT SUM([amount])' } },
        { ident: 'filter.old', type: 'filter', name: 'Gone', def: { aql: '[Nowhere] = "x"' } },
      ],
      'test',
    );
    await server.engine.members.restoreFilter(demo, ADMIN, '[Amount] > 1', []);
    await server.close();
    server = await startOnPort(dataDir, 0);
    const e = server.engine;
    expect((await e.model.get(demo, 'metric.old'))!.def).toEqual({
      aql: 'SELECT SUM([fact.sales.amount])',
      aqlByTitle: [0],
    });
    expect((await e.model.get(demo, 'filter.old'))!.def).toEqual({ aql: '[Nowhere] = "x"' });
    expect((await e.model.get(demo, 'metric.old'))!.revision).toBe(1);
    expect((await e.members.allFilters()).find((m) => m.email === ADMIN)).toMatchObject({
      filter: '[fact.sales.amount] > 1',
      filterByTitle: [0],
    });
    // Renamed afterwards: they read with the new title.
    await e.model.upsert(demo, [{ ...amount, name: 'Sales Amount' }], 'test');
    const a = await e.actor({ email: ADMIN }, demo);
    expect((await e.objects.get(a, 'metric.old')).object.def).toEqual({
      aql: 'SELECT SUM([Sales Amount])',
    });
    expect((await e.members.get(a, ADMIN)).filter).toBe('[Sales Amount] > 1');
  });
});
