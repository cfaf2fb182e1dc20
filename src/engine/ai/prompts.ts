// The AI chat's texts, from prompts/chat/: the system prompt, the AQL primer and the agent's
// nudges (tools are described in the one tool catalog, src/engine/tools/). Read once; a missing file or key fails at start-up.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { parseYaml } from '../../shared/yaml.js';
import { installed } from '../../shared/install-root.js';

export const CHAT_PROMPTS_DIR = installed('prompts', 'chat') + path.sep;

const NUDGES = [
  'ungrounded',
  'last_step',
  'out_of_budget',
  'no_answer',
  'unverified_note',
  'row_filter_none',
  'row_filter_set',
] as const;
export type NudgeName = (typeof NUDGES)[number];

const nudgesSchema = z.object(
  Object.fromEntries(NUDGES.map((n) => [n, z.string().min(1)])) as Record<NudgeName, z.ZodString>,
);

export interface ChatPrompts {
  system: string;
  aqlGuide: string;
  nudges: Record<NudgeName, string>;
}

function read(dir: string, file: string): string {
  try {
    return fs.readFileSync(path.join(dir, file), 'utf8');
  } catch (err) {
    throw new Error(
      `AI chat prompt ${path.join(dir, file)} cannot be read: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
}

function parse<T>(schema: z.ZodType<T>, text: string, file: string): T {
  const r = schema.safeParse(parseYaml(text));
  if (!r.success)
    throw new Error(
      `AI chat prompt ${file}: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
    );
  return r.data;
}

/** The placeholders each text is filled with; any other in the file is a typo. */
const PLACEHOLDERS: Record<'system' | NudgeName, readonly string[]> = {
  system: ['project', 'user', 'today', 'row_filter', 'aql_guide', 'model'],
  ungrounded: ['numbers'],
  last_step: [],
  out_of_budget: ['limit'],
  no_answer: [],
  unverified_note: ['numbers'],
  row_filter_none: [],
  row_filter_set: ['filter'],
};

function checkPlaceholders(name: 'system' | NudgeName, text: string, file: string): void {
  for (const m of text.matchAll(/\{\{\s*([^}\s]*)\s*\}\}/g)) {
    if (!PLACEHOLDERS[name].includes(m[1]!))
      throw new Error(
        `AI chat prompt ${file}${name === 'system' ? '' : ` (${name})`}: unknown placeholder {{${m[1]}}}; it takes ${PLACEHOLDERS[name].map((p) => `{{${p}}}`).join(', ') || 'none'}`,
      );
  }
}

const cache = new Map<string, ChatPrompts>();

export function loadChatPrompts(dir = CHAT_PROMPTS_DIR): ChatPrompts {
  let hit = cache.get(dir);
  if (!hit) {
    hit = {
      system: read(dir, 'system.md'),
      aqlGuide: read(dir, 'aql-guide.md').trim(),
      nudges: parse(nudgesSchema, read(dir, 'nudges.yaml'), 'nudges.yaml'),
    };
    checkPlaceholders('system', hit.system, 'system.md');
    for (const n of NUDGES) checkPlaceholders(n, hit.nudges[n], 'nudges.yaml');
    cache.set(dir, hit);
  }
  return hit;
}

/** Fills {{name}} placeholders; every placeholder of the text must be given. */
export function fill(text: string, values: Record<string, string>): string {
  return text.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (_all, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`AI chat prompt placeholder {{${name}}} has no value`);
    return v;
  });
}
