// AQL errors: found before execution, answered as 400 with where and what, precise enough
// that a person or an AI assistant can fix the query from the message alone.
import { EngineError } from '../errors.js';

export interface AqlErrorContext extends Record<string, unknown> {
  line: number;
  column: number;
  /** The offending text. */
  found: string;
  expected?: string[];
  suggestions?: string[];
}

export class AqlError extends EngineError {
  /** A habit from SQL (FROM, COUNT(*), bare names…): the message may offer the query in AQL. */
  sqlHabit = false;

  constructor(message: string, context: AqlErrorContext) {
    super('invalid', message, context);
    this.name = 'AqlError';
  }
}

/** Marks an error as a SQL habit (see sql-rewrite.ts). */
export function sqlHabit(e: AqlError): AqlError {
  e.sqlHabit = true;
  return e;
}
