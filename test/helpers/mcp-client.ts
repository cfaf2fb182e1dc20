// An MCP client (the SDK's own) connected to a test server's /mcp over Streamable HTTP, as
// `email`, with a token for the MCP audience.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcpAudience } from '../../src/engine/config.js';
import type { TestServer } from './server.js';

export async function connectMcp(
  s: TestServer,
  email: string,
  name = 'ursa-test',
): Promise<Client> {
  const token = await s.engine.issueToken(email, { audience: mcpAudience(s.engine.config) });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}
