// The layers of docs/architecture.md, enforced by `npm run lint` (depcruise). Paths are from
// the repository root. Each rule names what a layer may not import; anything else is allowed.
const DOORS = ['rest', 'webdav', 'mcp', 'site', 'sql'];
const door = (d) => `^src/${d}/`;
const otherDoors = (d) => `^src/(${DOORS.filter((x) => x !== d).join('|')})/`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'shared-is-pure',
      comment: 'src/shared holds pure kits: it imports nothing of Ursa outside itself.',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { path: '^src/', pathNot: '^src/shared/' },
    },
    {
      name: 'contract-is-pure',
      comment: "src/contract (the API's types and URLs) imports only itself and src/shared.",
      severity: 'error',
      from: { path: '^src/contract/' },
      to: { path: '^src/', pathNot: '^src/(contract|shared)/' },
    },
    {
      name: 'engine-has-no-http',
      comment:
        'The engine imports no door, no door kit (src/http, src/web), no composition root and no express.',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: {
        path: [
          '^src/(http|web|rest|webdav|mcp|site|sql|app)/',
          '^src/(server|cli)\\.ts$',
          '(^|/)node_modules/(express|@types/express|@types/express-serve-static-core)/',
        ],
      },
    },
    {
      name: 'kits-import-no-door',
      comment: 'The door kits (src/http, src/web) serve every door and import none.',
      severity: 'error',
      from: { path: '^src/(http|web)/' },
      to: { path: ['^src/(rest|webdav|mcp|site|sql|app)/', '^src/(server|cli)\\.ts$'] },
    },
    ...DOORS.map((d) => ({
      name: `door-${d}-imports-no-door`,
      comment: `No door imports another: src/${d} imports none of the other doors (src/server.ts composes them).`,
      severity: 'error',
      from: { path: door(d) },
      to: { path: [otherDoors(d), '^src/app/', '^src/(server|cli)\\.ts$'] },
    })),
    {
      name: 'app-imports-contract-only',
      comment: 'The browser app imports only itself, src/shared and src/contract of the server.',
      severity: 'error',
      from: { path: '^src/app/' },
      to: { path: '^src/', pathNot: '^src/(app|shared|contract)/' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles between files (type-only imports count).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are imports: a layer that needs another's types depends on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts'],
    },
    // Per work tree (node_modules may be shared between work trees).
    cache: { folder: '.tmp/dependency-cruiser', strategy: 'content' },
  },
};
