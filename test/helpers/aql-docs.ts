// docs/aql.md as tests read it: its ```aql blocks (a markdown table right after one is its
// exact result), its ```aql-error blocks (refused with the text of their `-- error:` line) and
// the ```json block of saved metrics and filters the examples use. test/aql-docs.test.ts runs
// them on DuckDB, test/aql-docs-pg.test.ts on a warehouse project in PostgreSQL.
import fs from 'node:fs';

const DOC = fs.readFileSync(new URL('../../docs/aql.md', import.meta.url), 'utf8');

export interface Block {
  kind: 'aql' | 'aql-error' | 'json';
  text: string;
  line: number;
  /** The markdown table right after the block: titles, then rows. */
  table: string[][] | null;
}

function blocks(doc: string): Block[] {
  const lines = doc.split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(aql-error|aql|json)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) body.push(lines[i]!);
    // An optional table after blank lines.
    let j = i + 1;
    while (j < lines.length && lines[j]!.trim() === '') j++;
    let table: string[][] | null = null;
    if (lines[j]?.startsWith('|')) {
      table = [];
      for (; j < lines.length && lines[j]!.startsWith('|'); j++) {
        const cells = lines[j]!.split('|')
          .slice(1, -1)
          .map((c) => c.trim());
        if (cells.every((c) => /^:?-+:?$/.test(c))) continue; // the separator row
        table.push(cells);
      }
    }
    out.push({
      kind: open[1] as Block['kind'],
      text: body.join('\n'),
      line: start + 1,
      table: open[1] === 'json' ? null : table,
    });
  }
  return out;
}

const all = blocks(DOC);
export const queries = all.filter((b) => b.kind === 'aql');
export const errors = all.filter((b) => b.kind === 'aql-error');
export const setup = all
  .filter((b) => b.kind === 'json')
  .map((b) => {
    try {
      return JSON.parse(b.text) as unknown;
    } catch {
      return null;
    }
  })
  .filter(
    (j): j is { type: string }[] =>
      Array.isArray(j) &&
      j.every((o) => ['metric', 'filter'].includes((o as { type: string }).type)),
  );

export const firstLine = (b: Block) => `line ${b.line}: ${b.text.split('\n')[0]!.slice(0, 70)}`;
