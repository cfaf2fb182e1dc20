// What the MCP server (src/mcp) declares in `initialize`, and the public server card of the
// site (src/site/mcp-card.ts) repeats: one constant in the contract, so the two doors cannot
// disagree without importing each other. The lists of tools,
// resources and prompts are fixed for a session, so nothing announces list changes.
export const MCP_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { listChanged: false },
  prompts: { listChanged: false },
  completions: {},
} as const;
