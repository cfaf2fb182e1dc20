// The change_delivery tool (registered by ./index.ts): changes what a subscription or alert
// sends, when, or to whom, keeping what the call leaves out. Like the create tools, without
// confirm it only says what it would then send to whom, so the assistant can ask first.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { actorFor, defineTool, projectArg, type McpContext } from './common.js';
import { CREATE_ANNOTATIONS, scheduleArg } from './delivery-views.js';

export function registerChangeDelivery(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'change_delivery',
    input: {
      project: projectArg,
      id: z.string().min(1).describe('A subscription or alert id (list_deliveries)'),
      title: z.string().min(1).max(255).optional(),
      schedule: scheduleArg.optional(),
      paused: z.boolean().optional().describe('true: stop sending; false: send again'),
      format: z.enum(['pdf', 'xlsx', 'csv']).optional().describe('A subscription: attached'),
      filters: z.array(z.string()).optional().describe('A subscription: "attribute:value"'),
      recipients: z.array(z.string()).optional().describe("A subscription: members' e-mails"),
      op: z.enum(['>', '>=', '<', '<=', 'change%', 'nodata']).optional().describe('An alert'),
      value: z.number().optional().describe("An alert's threshold"),
      email: z.array(z.string()).optional().describe("An alert: members' e-mails"),
      confirm: z
        .boolean()
        .optional()
        .describe('false (default): only say what it would then send to whom; true: change it'),
    },
    output: {
      changed: z.boolean().describe('false: a preview only, nothing was saved'),
      id: z.string(),
      summary: z.string().describe('What it sends to whom, and when, after the change'),
    },
    annotations: { ...CREATE_ANNOTATIONS, idempotentHint: true },
    narrow: 'the answer is too large; read it with get_object',
    run: async (args) => {
      const a = await actorFor(ctx, args.project);
      const { object } = await ctx.engine.objects.get(a, args.id);
      const def = { ...(object.def as Record<string, unknown>) };
      const set = (k: string, v: unknown) => v !== undefined && (def[k] = v);
      set('schedule', args.schedule);
      set('paused', args.paused);
      if (object.type === 'subscription') {
        set('format', args.format);
        set('filters', args.filters);
        set('recipients', args.recipients);
      } else {
        set('email', args.email);
        if (args.op !== undefined || args.value !== undefined) {
          const condition = { ...(def.condition as Record<string, unknown> | undefined) };
          if (args.op !== undefined) condition.op = args.op;
          if (args.value !== undefined) condition.value = args.value;
          if (args.op === 'nodata') delete condition.value;
          def.condition = condition;
        }
      }
      const out = await ctx.engine.delivery.manage.update(
        a,
        args.id,
        { ...(args.title !== undefined ? { name: args.title } : {}), def },
        args.confirm === true,
      );
      return { data: { changed: out.changed, id: args.id, summary: out.summary } };
    },
  });
}
