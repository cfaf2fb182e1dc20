// The run_aql tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { invalid } from '../../engine/errors.js';
import { actorFor, defineTool, projectArg, READ_ONLY, type McpContext } from './common.js';
import {
  DEFAULT_ROWS,
  decodeCursor,
  clip,
  resultShape,
  page,
  execute,
  RUN_AQL,
  RESULT_NARROW,
  exactArg,
} from './aql-results.js';

export function registerRunAql(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'run_aql',
    input: {
      project: projectArg,
      // The catalog's aql, optional here: a cursor alone continues a query.
      aql: RUN_AQL.aql.optional(),
      cursor: z
        .string()
        .optional()
        .describe('cursor of a previous answer: its next rows (or its rows once RUNNING ends)'),
      limit: RUN_AQL.limit,
      exact: exactArg,
    },
    output: resultShape,
    annotations: READ_ONLY,
    narrow: RESULT_NARROW,
    run: async ({ project, aql, cursor, limit, exact }, extra) => {
      if (cursor) {
        const c = decodeCursor(cursor);
        if (project && project !== c.p)
          throw invalid(`the cursor belongs to project "${c.p}", not "${project}"`);
        const a = await actorFor(ctx, c.p);
        const job = await ctx.engine.jobs.get(a, c.j);
        if (job.type !== 'report') throw invalid('invalid cursor: it does not point at a query');
        // A cursor continues its own query only: rows of another query must never pass for
        // this one's.
        const own = String((job.params as { aql?: unknown }).aql ?? '');
        if (aql !== undefined && aql.trim() !== own.trim())
          throw invalid(
            `the cursor belongs to a different query than this aql (the cursor's query: ${clip(own)}); pass the cursor alone to continue that query, or aql alone to run this one`,
          );
        return page(ctx, a, job, c.o, limit ?? c.l, extra, undefined, exact ?? c.x === true);
      }
      if (!aql?.trim()) throw invalid('pass aql (the query to run) or cursor (to continue one)');
      return execute(
        ctx,
        await actorFor(ctx, project),
        aql,
        limit ?? DEFAULT_ROWS,
        extra,
        exact === true,
      );
    },
  });
}
