// One tool catalog (src/engine/tools/catalog.ts): what MCP's tools/list, the chat agent's tool
// specs and the public server card say about each tool is the catalog's entry, so the three
// cannot drift apart.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTools } from '../src/engine/ai/tools.js';
import { TOOLS, toolsOf, type Door } from '../src/engine/tools/catalog.js';
import { TOOL_INPUTS } from '../src/engine/tools/inputs.js';
import { z } from 'zod';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';
import { connectMcp } from './helpers/mcp-client.js';

let s: TestServer;
let mcp: Client;

beforeAll(async () => {
  s = await startTestServer({ URSA_DEMO_DATA: 'false' });
  mcp = await connectMcp(s, ADMIN, 'catalog-test');
}, 60_000);
afterAll(async () => {
  await mcp?.close();
  await s?.close();
});

describe('one tool catalog', () => {
  it('MCP tools/list: the catalog’s MCP tools, with its titles, descriptions and read-only hints', async () => {
    const { tools } = await mcp.listTools();
    const listed = tools
      .map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        readOnly: t.annotations?.readOnlyHint,
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
    const catalog = toolsOf('mcp')
      .map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        readOnly: t.readOnly,
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
    expect(listed).toEqual(catalog);
  });

  it('the chat agent: the catalog’s chat tools with the same descriptions', () => {
    const specs = agentTools({
      aql: s.engine.aql,
      catalog: s.engine.catalog,
      objects: s.engine.objects,
      reports: s.engine.reports,
      siteUrl: () => s.engine.config.siteUrl,
    }).map((t) => ({ name: t.spec.name, description: t.spec.description }));
    expect(specs.sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      toolsOf('chat')
        .map((t) => ({ name: t.name, description: t.description }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    );
    // Tools on both doors say the same thing.
    const both = Object.entries(TOOLS).filter(([, e]) => e.doors.length === 2);
    expect(both.length).toBeGreaterThanOrEqual(6);
  });

  it('arguments: each door’s schema is the catalog’s (MCP adds project, and run_aql’s cursor)', async () => {
    const catalogSchema = (name: string, door: Door) => {
      const make = (TOOL_INPUTS as Record<string, (d: Door) => z.ZodRawShape>)[name]!;
      const { $schema: _s, ...schema } = z.toJSONSchema(z.object(make(door)).strict()) as Record<
        string,
        unknown
      >;
      return schema as { properties?: Record<string, unknown>; required?: string[] };
    };
    const { tools } = await mcp.listTools();
    let compared = 0;
    for (const t of tools) {
      if (!(t.name in TOOL_INPUTS)) continue;
      const want = catalogSchema(t.name, 'mcp');
      const props = { ...(t.inputSchema.properties as Record<string, unknown>) };
      delete props.project;
      if (t.name === 'run_aql') delete props.cursor;
      const { ...expected } = want.properties ?? {};
      // run_aql over MCP: the same aql, optional (a cursor alone continues a query).
      expect(props, t.name).toEqual(expected);
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(7);
    for (const spec of agentTools({
      aql: s.engine.aql,
      catalog: s.engine.catalog,
      objects: s.engine.objects,
      reports: s.engine.reports,
      siteUrl: () => s.engine.config.siteUrl,
    }).map((t) => t.spec))
      expect(spec.parameters, spec.name).toEqual(catalogSchema(spec.name, 'chat'));
  });

  it('the public server card: the catalog’s MCP tools, in its order, with its texts', async () => {
    const r = await fetch(`${s.url}/.well-known/mcp.json`);
    const card = (await r.json()) as {
      tools: {
        name: string;
        title: string;
        description: string;
        annotations: { readOnlyHint: boolean };
      }[];
    };
    expect(
      card.tools.map((t) => [t.name, t.title, t.description, t.annotations.readOnlyHint]),
    ).toEqual(toolsOf('mcp').map((t) => [t.name, t.title, t.description, t.readOnly]));
  });
});
