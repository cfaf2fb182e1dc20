// The MCP server card at /.well-known/mcp.json (shape of the MCP "Server Card" proposal,
// SEP-2127, which follows the registry's server.json): where to connect, which protocol
// versions, and what needs authentication. Everything the MCP server does needs a bearer
// token; only discovery documents are public.
import { toolsOf } from '../engine/tools/catalog.js';
import { MCP_CAPABILITIES } from '../contract/mcp.js';
import { SITE_VERSION } from './layout.js';

export const SERVER_CARD_SCHEMA =
  'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
export const MCP_PROTOCOL_VERSIONS = ['2025-06-18', '2025-11-25'] as const;

/** The MCP server's tools, from the tool catalog. Argument schemas come from tools/list once signed in. */
export const MCP_TOOLS = toolsOf('mcp');

export const mcpUrl = (siteUrl: string): string => `${siteUrl}/mcp`;
export const protectedResourceMetadataUrl = (siteUrl: string): string =>
  `${siteUrl}/.well-known/oauth-protected-resource/mcp`;

/** Reverse-DNS server name from the site's host: https://bi.example.com → com.example.bi/ursa. */
function serverName(siteUrl: string): string {
  const host = new URL(siteUrl).hostname;
  const reversed = /^[\d.]+$|:/.test(host) ? host : host.split('.').reverse().join('.');
  return `${reversed}/ursa`;
}

export function mcpServerCard(siteUrl: string, issuer: string): Record<string, unknown> {
  const prm = protectedResourceMetadataUrl(siteUrl);
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: serverName(siteUrl),
    version: SITE_VERSION,
    title: 'Ursa',
    description:
      'Ask questions of your data in Ursa: browse projects and the semantic model, run AQL ' +
      'queries and saved reports, open dashboards with their charts, and define metrics, ' +
      'always with your own permissions and row-level security.',
    websiteUrl: siteUrl,
    remotes: [
      {
        type: 'streamable-http',
        url: mcpUrl(siteUrl),
        supportedProtocolVersions: [...MCP_PROTOCOL_VERSIONS],
        headers: [
          {
            name: 'Authorization',
            description: 'Bearer access token for the Ursa API (OAuth 2.0)',
            isRequired: true,
            isSecret: true,
          },
        ],
        authentication: { required: true, schemes: ['bearer', 'oauth2'] },
      },
    ],
    // Exactly what `initialize` answers.
    capabilities: structuredClone(MCP_CAPABILITIES),
    tools: MCP_TOOLS.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: t.readOnly },
      _meta: { 'ursa/authentication': 'required' },
    })),
    _meta: {
      'ursa/sql': {
        description:
          'The same model for PostgreSQL clients (psql, pandas, JDBC, ODBC, BI tools) over the SQL API, when the server enables it.',
        docs: `${siteUrl}/docs/sql.md`,
      },
      'ursa/access': {
        public: {
          description: 'Discovery documents, readable without credentials.',
          urls: [`${siteUrl}/.well-known/mcp.json`, `${siteUrl}/llms.txt`, prm],
        },
        authenticated: {
          description:
            'The MCP endpoint and everything behind it: every tool, resource and prompt runs as ' +
            'the signed-in user.',
          capabilities: ['tools', 'resources', 'prompts'],
          tools: MCP_TOOLS.map((t) => t.name),
        },
        oauthProtectedResourceMetadata: prm,
        authorizationServers: [issuer],
      },
    },
  };
}
