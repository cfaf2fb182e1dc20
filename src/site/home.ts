// The homepage: what Ursa is and where to go next.
export function homePage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Ursa — analytics for people and AI assistants</title>
<meta name="description" content="Ursa: an analytics platform with a REST API, an MCP server for AI assistants and AI chat over your data.">
<style>body{font:17px/1.6 system-ui,sans-serif;margin:0;color:#1d2330}header,main,footer{max-width:52rem;margin:auto;padding:1rem 1.5rem}
header nav a{margin-right:1rem}h1{font-size:2.2rem;margin:.5rem 0}a{color:#1f5fbf}footer{color:#5f6b7a;border-top:1px solid #d8dee6}</style></head>
<body><header><nav aria-label="Main"><a href="/">Ursa</a><a href="/api/v1">API</a><a href="/auth/login">Sign in</a></nav></header>
<main><h1>Answers from your data — correct, fast and explained</h1>
<p>Ursa loads your data, models it once, and lets people, integrations and AI assistants ask questions in AQL.
Every answer respects the asker's permissions and row-level security, and never double counts.</p>
<ul><li><a href="/api/v1">Browse the REST API</a> — every resource, browsable in HTML, JSON, YAML or CSV.</li>
<li><a href="/auth/login">Sign in</a> to explore the demo project.</li></ul></main>
<footer><p>Ursa · API version v1</p></footer></body></html>`;
}
