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
  const issues = r.error.issues
    .flatMap((i) => plain(i, [], value))
    .map((i) => ({ path: i.path.map(String).join('.') || '(body)', message: i.message }));
  const first = issues[0]!;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  const field = first.path === '(body)' ? {} : { field: first.path.split('.')[0] };
  throw invalid(`invalid ${what}: ${first.path}: ${first.message}${more}`, { ...field, issues });
}

type Issue = z.core.$ZodIssue;
type PlainIssue = { path: PropertyKey[]; message: string };

/**
 * A union's issue in words: zod says only "Invalid input". When one alternative took the
 * value's type and failed inside it, its own issues say what is wrong; otherwise what each
 * alternative would take, and what was sent.
 */
function plain(issue: Issue, at: PropertyKey[], input: unknown): PlainIssue[] {
  const path = [...at, ...issue.path];
  if (issue.code !== 'invalid_union' || !issue.errors.length)
    return [{ path, message: issue.message }];
  const wrongType = (i: Issue) =>
    i.path.length === 0 && (i.code === 'invalid_type' || i.code === 'invalid_value');
  const inside = issue.errors.filter((branch) => !branch.every(wrongType));
  if (inside.length === 1) return inside[0]!.flatMap((i) => plain(i, path, input));
  const wants = issue.errors.flatMap((branch) => branch.filter(wrongType).map(wanted));
  return [{ path, message: `must be ${wants.join(' or ')}, not ${kindOf(valueAt(input, path))}` }];
}

function wanted(i: Issue): string {
  if (i.code === 'invalid_value')
    return `one of ${i.values.map((v) => JSON.stringify(v)).join(', ')}`;
  if (i.code === 'invalid_type')
    return i.expected === 'null' ? 'null' : `${article(i.expected)} ${i.expected}`;
  return i.message;
}

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let v = input;
  for (const k of path)
    v = v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string')
    return `the string ${JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v)}`;
  return `${article(typeof v)} ${typeof v}`;
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
