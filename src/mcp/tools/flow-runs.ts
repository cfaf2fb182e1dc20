// What list_flows, get_flow_run and run_flow share: a flow run's output shape. The engine
// checks levels and runs; the tools only translate.
import { z } from 'zod';
import type { ProjectActor } from '../../engine/access/actor.js';
import type { Job } from '../../engine/jobs/jobs.js';

export const runShape = {
  project: z.string(),
  flow: z.string(),
  jobId: z.string(),
  status: z
    .enum(['PREPARED', 'EXPANDING', 'RUNNING', 'OK', 'ERROR', 'CANCELLED'])
    .describe('RUNNING (or PREPARED): call get_flow_run with jobId later'),
  message: z.string().optional().describe('Why it failed: names the box and field'),
  started: z.string().nullable(),
  finished: z.string().nullable(),
  boxes: z
    .record(
      z.string(),
      z.object({
        status: z.string().optional(),
        rows: z.number().nullable().optional().describe('null under a row-level filter'),
        ms: z.number().optional(),
      }),
    )
    .describe('Per box: rows and milliseconds (status while running)'),
  outputs: z
    .array(z.record(z.string(), z.unknown()))
    .describe(
      'What the run wrote: datasets (rows, mode) and files (path, rows); rows are null under a row-level filter',
    ),
};
type RunOut = z.infer<z.ZodObject<typeof runShape>>;

export function runOut(a: ProjectActor, job: Job): RunOut {
  const result = job.result as
    | {
        boxes?: Record<string, { rows: number | null; ms: number }>;
        outputs?: Record<string, unknown>[];
      }
    | undefined;
  const progress = job.progress as { boxes?: RunOut['boxes'] } | undefined;
  return {
    project: a.projectId,
    flow: String(job.params.id),
    jobId: job.id,
    status: job.status,
    ...(job.message ? { message: job.message } : {}),
    started: job.started ?? null,
    finished: job.finished ?? null,
    boxes: result?.boxes ?? progress?.boxes ?? {},
    outputs: result?.outputs ?? [],
  };
}
