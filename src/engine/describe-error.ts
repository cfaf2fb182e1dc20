// An engine error as text a language model can fix its call from (MCP tool errors, the AI
// agent's tool results): AQL errors say where, what was found and what would fit.
import { rulesFor } from './aql/cheatsheet.js';
import type { EngineError } from './errors.js';

export function describeEngineError(
  err: EngineError,
  toolHint = 'get_model lists the objects',
): string {
  const c = err.context as {
    line?: number;
    column?: number;
    found?: string;
    expected?: string[];
    suggestions?: string[];
    issues?: { path: string; message: string }[];
  };
  if (typeof c.line === 'number' && typeof c.column === 'number') {
    // The message may already say where and what it suggests; each fact is given once.
    const lines = [`AQL error: ${err.message}`];
    if (!err.message.includes(`line ${c.line}, column ${c.column}`))
      lines.push(`at line ${c.line}, column ${c.column}`);
    if (c.found !== undefined) lines.push(`found: ${c.found || '(end of query)'}`);
    if (c.expected?.length) lines.push(`expected: ${c.expected.join(', ')}`);
    // Suggestions the message does not already hold; a bare name goes in brackets.
    const more = (c.suggestions ?? []).filter((s) => !err.message.includes(s));
    if (more.length && !/did you mean/i.test(err.message))
      lines.push(`did you mean: ${more.map((s) => (/[[(]/.test(s) ? s : `[${s}]`)).join(', ')}`);
    lines.push(`Fix the query and call the tool again (${toolHint}).`);
    // Assistants repeat SQL habits: the rules about this error come with it.
    lines.push('', rulesFor(`${err.message} ${c.found ?? ''}`));
    return lines.join('\n');
  }
  if (err.kind === 'forbidden') return `permission denied: ${err.message}`;
  if (c.issues && c.issues.length > 1)
    return `${err.message}\n${c.issues.map((i) => `- ${i.path}: ${i.message}`).join('\n')}`;
  return err.message;
}
