// What the MCP server declares in `initialize`, and the public server card repeats
// (src/site/mcp-card.ts): one constant, so the two cannot disagree. The lists of tools,
// resources and prompts are fixed for a session, so nothing announces list changes.
export const MCP_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { listChanged: false },
  prompts: { listChanged: false },
  completions: {},
} as const;
