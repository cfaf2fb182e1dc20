// The ```sh examples of a Markdown document, split into commands the way bash reads them
// (backslash continuations, quotes and $( … ) spanning lines), each with the HTTP status its
// trailing comment expects (`# 409: …`, `# 201 {…}`).

export interface ShellCommand {
  /** First and last line, counted from the block's first line (0). */
  from: number;
  to: number;
  text: string;
  expect: number | null;
}

export interface ShellBlock {
  doc: string;
  /** Line of the opening fence (1-based). */
  line: number;
  text: string;
  norun: boolean;
  /** Why a norun block is not run (the fence's words after `norun`). */
  reason: string;
  commands: ShellCommand[];
}

export function parseShellExamples(doc: string, markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const out: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```sh(?:\s+(norun)\b\s*(.*))?\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) body.push(lines[i]!);
    out.push({
      doc,
      line: start + 1,
      text: body.join('\n'),
      norun: open[1] === 'norun',
      reason: open[2] ?? '',
      commands: splitCommands(body),
    });
  }
  return out;
}

/** Splits lines into commands; a command ends at a newline outside quotes and $( ). */
export function splitCommands(lines: string[]): ShellCommand[] {
  const out: ShellCommand[] = [];
  let from = -1;
  let text = '';
  let quote: '' | "'" | '"' = '';
  let depth = 0;
  let comment = '';
  lines.forEach((line, n) => {
    let continued = false;
    let lineComment = '';
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (quote === "'") {
        if (c === "'") quote = '';
      } else if (quote === '"') {
        if (c === '\\') i++;
        else if (c === '"') quote = '';
      } else if (c === '\\') {
        if (i === line.length - 1) continued = true;
        i++;
      } else if (c === "'" || c === '"') quote = c;
      else if (c === '$' && line[i + 1] === '(') {
        depth++;
        i++;
      } else if (c === '(') depth++;
      else if (c === ')') depth = Math.max(0, depth - 1);
      else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) {
        lineComment = line.slice(i + 1).trim();
        break;
      }
    }
    const code = line.slice(0, line.length - (lineComment ? lineComment.length + 1 : 0)).trim();
    if (from < 0) {
      if (!code && !quote) return; // blank or comment-only line between commands
      from = n;
    }
    text += (text ? '\n' : '') + line;
    if (lineComment) comment = lineComment;
    if (continued || quote || depth > 0) return;
    const status = /^(\d{3})\b/.exec(comment);
    out.push({ from, to: n, text, expect: status ? Number(status[1]) : null });
    from = -1;
    text = '';
    comment = '';
  });
  return out;
}
