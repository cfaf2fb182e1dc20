// The public web surface. For now the homepage; pricing, blog, llms.txt and the MCP server
// card join it with the MCP issue.
import type { RouteDef } from '../rest/router.js';
import { homePage } from './home.js';

export const siteRoutes: RouteDef[] = [
  {
    group: 'Site',
    path: '/',
    ops: {
      GET: {
        access: 'public',
        description: 'Homepage.',
        handler: ({ res }) => {
          res.type('text/html; charset=utf-8').send(homePage());
        },
      },
    },
  },
];
