// Plans are configuration: a YAML file validated at start-up.
import fs from 'node:fs';
import { z } from 'zod';
import { parseYaml } from '../../shared/yaml.js';

// The limit names are the API's (limitadherence answers one entry each).
import { LIMIT_NAMES, type LimitName } from '../../contract/projects.js';
export { LIMIT_NAMES, type LimitName };

const limitValue = z.number().int().nonnegative();
const planSchema = z.object({
  label: z.string().min(1),
  limits: z
    .object(
      Object.fromEntries(LIMIT_NAMES.map((n) => [n, limitValue])) as Record<
        LimitName,
        typeof limitValue
      >,
    )
    .strict(),
});
const plansSchema = z.object({ plans: z.record(z.string().regex(/^[a-z0-9_-]+$/), planSchema) });

export type Plan = z.infer<typeof planSchema>;
export type Plans = Record<string, Plan>;

export function loadPlans(file: string, defaultPlan: string): Plans {
  let doc: unknown;
  try {
    doc = parseYaml(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read plans file ${file}: ${(err as Error).message}`, { cause: err });
  }
  const parsed = plansSchema.safeParse(doc);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid plans file ${file}:\n${lines.join('\n')}`);
  }
  if (!parsed.data.plans[defaultPlan]) {
    throw new Error(`plans file ${file} has no plan "${defaultPlan}" (URSA_DEFAULT_PLAN)`);
  }
  return parsed.data.plans;
}
