// Input validation with zod; failures become one clear 'invalid' error listing every issue.
import { z } from 'zod';
import { invalid } from './errors.js';

export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => ({
    path: i.path.map(String).join('.') || '(body)',
    message: i.message,
  }));
  const first = issues[0]!;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  throw invalid(`invalid ${what}: ${first.path}: ${first.message}${more}`, { issues });
}

/** Booleans as JSON, YAML or form fields ("true"/"false"/"1"/"0"). */
export const zBool = z.union([
  z.boolean(),
  z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
]);

/** Paging for lists that can grow without bound. */
export const pagingSchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});
