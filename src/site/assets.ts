// The site's stylesheet and logo, served as files so every page shares one cached copy.
import { prepare } from './send.js';

const STYLESHEET = `
:root{color-scheme:light dark;--fg:#1d2330;--bg:#fff;--muted:#5a6576;--line:#d8dee6;
--soft:#f3f6fa;--accent:#1f5fbf;--accent-fg:#fff;--card:#fff;--focus:#f0a500}
@media (prefers-color-scheme:dark){:root{--fg:#e6e9ee;--bg:#14171c;--muted:#a3adbb;
--line:#2e343d;--soft:#1c2027;--accent:#7aa7ff;--accent-fg:#0b1220;--card:#191d23}}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:17px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);
background:var(--bg)}
a{color:var(--accent);text-underline-offset:.15em}
a:focus-visible,button:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
code{background:var(--soft);padding:.05em .3em;border-radius:.25rem;overflow-wrap:anywhere}
pre{background:var(--soft);border:1px solid var(--line);border-radius:.5rem;padding:.8rem 1rem;
overflow-x:auto}
pre code{background:none;padding:0}
.skip{position:absolute;left:-999px;top:0}
.skip:focus{left:1rem;top:1rem;z-index:10;background:var(--bg);padding:.5rem 1rem;
border:2px solid var(--accent)}
.wrap{max-width:64rem;margin:0 auto;padding:0 1.25rem}
.site-header{border-bottom:1px solid var(--line);background:var(--soft)}
.site-header .wrap{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.5rem;padding-top:.75rem;
padding-bottom:.75rem}
.brand{display:flex;align-items:center;gap:.5rem;font-weight:700;font-size:1.2rem;
text-decoration:none;color:var(--fg)}
.brand img{width:2rem;height:2rem}
.site-nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
.site-nav a{text-decoration:none;padding:.2rem 0;border-bottom:2px solid transparent}
.site-nav a:hover{border-bottom-color:var(--line)}
.site-nav a[aria-current="page"]{border-bottom-color:var(--accent);color:var(--fg);font-weight:600}
.site-nav .signin{border:1px solid var(--accent);border-radius:.4rem;padding:.15rem .7rem}
main.wrap{display:block;padding-top:1.5rem;padding-bottom:3rem}
h1{font-size:clamp(1.7rem,4vw,2.4rem);line-height:1.2;margin:.5rem 0 1rem}
h2{font-size:1.35rem;line-height:1.3;margin:2rem 0 .5rem}
h3{font-size:1.1rem;margin:1.5rem 0 .25rem}
.lead{font-size:1.15rem;color:var(--muted);max-width:44rem}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin:1.5rem 0}
.button{display:inline-block;padding:.55rem 1.1rem;border-radius:.45rem;border:1px solid var(--accent);
text-decoration:none;font-weight:600}
.button.primary{background:var(--accent);color:var(--accent-fg)}
.grid{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(13rem,1fr));margin:1rem 0;
padding:0;list-style:none}
.card{border:1px solid var(--line);border-radius:.6rem;padding:1rem 1.25rem;background:var(--card)}
.card h2,.card h3{margin-top:.25rem}
.muted{color:var(--muted)}
.meta{color:var(--muted);font-size:.92rem;margin:.25rem 0}
.tier{display:flex;flex-direction:column}
.tier .price{font-size:2rem;font-weight:700;margin:.25rem 0 0}
.tier .price span{font-size:1rem;font-weight:400;color:var(--muted)}
.tier .annual{margin:0 0 .75rem;color:var(--muted)}
.tier .credits{font-weight:600}
.tier ul{padding-left:1.2rem;margin:.5rem 0}
.tier.highlight{border:2px solid var(--accent)}
.badge{display:inline-block;font-size:.75rem;font-weight:700;text-transform:uppercase;
letter-spacing:.04em;color:var(--accent)}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{border-bottom:1px solid var(--line);padding:.45rem .6rem;text-align:left;vertical-align:top}
thead th{background:var(--soft)}
.posts{list-style:none;padding:0;margin:0}
.posts li{border-bottom:1px solid var(--line);padding:1rem 0}
.posts h2{margin:.1rem 0 .2rem;font-size:1.2rem}
.posts p{margin:.25rem 0}
.pager ul{list-style:none;padding:0;margin:1.5rem 0 0;display:flex;flex-wrap:wrap;gap:.5rem 1rem;
align-items:center}
.pager a[aria-current="page"]{font-weight:700;color:var(--fg);text-decoration:none}
article.post{max-width:44rem}
article.post blockquote{margin:1rem 0;padding:.25rem 1rem;border-left:4px solid var(--line);
color:var(--muted)}
.post-nav ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;justify-content:space-between;
gap:1rem;margin:2rem 0 0;border-top:1px solid var(--line);padding-top:1rem}
.site-footer{border-top:1px solid var(--line);background:var(--soft);color:var(--muted);
font-size:.92rem}
.site-footer .wrap{padding-top:1rem;padding-bottom:1.5rem}
.site-footer ul{list-style:none;margin:0 0 .5rem;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
@media (max-width:40rem){body{font-size:16px}.site-header .wrap{gap:.4rem}
.site-nav ul{gap:.1rem .8rem}.tier .price{font-size:1.7rem}}
`;

// A bear's head: two ears and a face, in the accent blue.
const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Ursa">
<circle cx="16" cy="16" r="10" fill="#1f5fbf"/><circle cx="48" cy="16" r="10" fill="#1f5fbf"/>
<circle cx="32" cy="36" r="24" fill="#1f5fbf"/><ellipse cx="32" cy="44" rx="11" ry="8" fill="#dce8fb"/>
<circle cx="23" cy="31" r="3" fill="#fff"/><circle cx="41" cy="31" r="3" fill="#fff"/>
<ellipse cx="32" cy="40" rx="4" ry="3" fill="#14233d"/></svg>
`;

export const STYLESHEET_PATH = '/assets/site.css';
export const LOGO_PATH = '/assets/logo.svg';

export const stylesheet = prepare('text/css; charset=utf-8', STYLESHEET, { maxAge: 3600 });
export const logo = prepare('image/svg+xml', LOGO_SVG, { maxAge: 86400 });

// The homepage diagram: three kinds of callers, three front doors, one engine.
const DIAGRAM_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 260" font-family="system-ui,sans-serif" font-size="15">
<rect width="640" height="260" rx="14" fill="#f3f6fa"/>
<g fill="#fff" stroke="#1f5fbf" stroke-width="2">
<rect x="30" y="24" width="170" height="54" rx="8"/><rect x="235" y="24" width="170" height="54" rx="8"/>
<rect x="440" y="24" width="170" height="54" rx="8"/></g>
<g fill="#1d2330" text-anchor="middle"><text x="115" y="47">AI assistants</text>
<text x="115" y="67" fill="#5a6576" font-size="13">MCP at /mcp</text><text x="320" y="47">Apps, integrations</text>
<text x="320" y="67" fill="#5a6576" font-size="13">REST at /api/v1</text><text x="525" y="47">People, crawlers</text>
<text x="525" y="67" fill="#5a6576" font-size="13">site, llms.txt</text></g>
<g stroke="#1f5fbf" stroke-width="2" marker-end="url(#a)"><line x1="115" y1="80" x2="250" y2="146"/>
<line x1="320" y1="80" x2="320" y2="144"/><line x1="525" y1="80" x2="390" y2="146"/></g>
<defs><marker id="a" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto">
<path d="M0 0L10 5L0 10z" fill="#1f5fbf"/></marker></defs>
<rect x="150" y="150" width="340" height="84" rx="10" fill="#1f5fbf"/>
<g fill="#fff" text-anchor="middle"><text x="320" y="182" font-size="18" font-weight="700">One engine</text>
<text x="320" y="208" font-size="13">permissions · row-level security · AQL · jobs</text></g></svg>
`;

export const DIAGRAM_PATH = '/assets/front-doors.svg';
export const diagram = prepare('image/svg+xml', DIAGRAM_SVG, { maxAge: 86400 });
