// What every tool shares: the caller's context, the `project` argument (optional when the
// user has exactly one project), one registration path (errors → isError results the model
// can act on, answers → capped()), and the annotation sets.
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ProjectActor } from '../../engine/access/actor.js';
import { describeEngineError } from '../../engine/describe-error.js';
import { EngineError, engineErrorOf, invalid } from '../../engine/errors.js';
import { uuid } from '../../engine/ids.js';
import { toErrorBody } from '../../http/errors.js';
import { toolEntry } from '../../engine/tools/catalog.js';
import { findUnstorable } from '../../shared/storable-text.js';
import { capped, errorResult, type Reply } from '../limits.js';
import type { ToolExtra } from '../wait.js';
import type { McpContext } from '../context.js';

export type { McpContext };

export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

export const projectArg = z
  .string()
  .optional()
  .describe('Project id from list_projects; may be omitted when you have exactly one project');

export interface ToolSpec<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  /** Its title and description come from the tool catalog (src/engine/tools/catalog.ts). */
  name: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /** How to ask for less when the answer is over the output cap. */
  narrow: string;
  /** `extra`: the request's progress token, cancellation signal and notification channel. */
  run(args: z.infer<z.ZodObject<I>>, extra: ToolExtra): Promise<Reply<z.infer<z.ZodObject<O>>>>;
}

/** Registers a tool whose every answer and error goes through the same path. */
export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(
  server: McpServer,
  ctx: McpContext,
  spec: ToolSpec<I, O>,
): void {
  const entry = toolEntry(spec.name, 'mcp');
  server.registerTool(
    spec.name,
    {
      title: entry.title,
      description: entry.description,
      inputSchema: spec.input,
      outputSchema: spec.output,
      annotations: { title: entry.title, ...spec.annotations, readOnlyHint: entry.readOnly },
    },
    (async (args: z.infer<z.ZodObject<I>>, extra: ToolExtra): Promise<CallToolResult> => {
      // Every tool's arguments, once: text the metadata database cannot store is refused.
      const unstorable = findUnstorable(args, 'arguments');
      if (unstorable) return errorResult(unstorable.message);
      try {
        return await capped(await spec.run(args, extra), spec.narrow);
      } catch (err) {
        return errorResult(describeError(ctx, err));
      }
    }) as never,
  );
}

/** The actor for the `project` argument, with errors that name the valid projects. */
export async function actorFor(
  ctx: McpContext,
  project: string | undefined,
): Promise<ProjectActor> {
  const mine = async () =>
    (await ctx.engine.projects.list(ctx.principal)).filter((p) => p.hasAccess);
  const names = (ps: Awaited<ReturnType<typeof mine>>) =>
    ps.map((p) => `"${p.id}" (${p.label})`).join(', ');
  project ||= ctx.defaultProject;
  if (!project) {
    const ps = await mine();
    if (ps.length === 1) project = ps[0]!.id;
    else if (!ps.length)
      throw invalid(
        `you have no projects yet; ask a project Admin to invite ${ctx.principal.email}`,
      );
    else
      throw invalid(
        `project is required: you have ${ps.length} projects: ${names(ps)}; pass one as "project"`,
        { valid: ps.map((p) => p.id) },
      );
  }
  try {
    return await ctx.engine.actor(ctx.principal, project);
  } catch (err) {
    if (err instanceof EngineError && err.kind === 'unauthenticated') {
      const ps = await mine();
      throw new EngineError(
        'not_found',
        `unknown project "${project}"; your projects: ${names(ps) || 'none'}`,
        { project, valid: ps.map((p) => p.id) },
      );
    }
    throw err;
  }
}

/** An error as text a model can fix its call from. */
export function describeError(ctx: McpContext, err: unknown): string {
  const engineErr = engineErrorOf(err);
  if (engineErr) return describeEngineError(engineErr);
  // What REST answers as a 4xx, 503 (the metadata database busy or out of reach, a lost
  // connection) or 507 (a full disk) is said as such: the call may be repeated later.
  const known = toErrorBody(err);
  if (!known.internal) return known.body.message;
  const errorId = uuid();
  ctx.engine.log.error({ err, errorId }, 'MCP tool failed unexpectedly');
  if (ctx.exposeInternalErrors) return `internal error: ${(err as Error)?.message ?? String(err)}`;
  return `internal error (errorId ${errorId}); the server log has the details`;
}
