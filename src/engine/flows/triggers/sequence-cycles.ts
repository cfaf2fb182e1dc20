// flowSequence triggers make a graph of flows: "flow after after" is an edge after → flow. A
// cycle in it (A after B and B after A, or a flow after itself) would start runs forever, so a
// trigger that closes one is refused on save, enabled or not, and so is enabling one that does.
import type { ObjectRow } from '../../model/store.js';

interface SequenceDef {
  type?: unknown;
  flow?: unknown;
  after?: unknown;
}

/**
 * The cycle the flowSequence trigger `def` closes among `rows` (every object of the project,
 * the trigger itself included or not), as the flows run: its `after`, its `flow`, …, its
 * `after` again. Null when it closes none (or is not a flowSequence trigger).
 */
export function sequenceCycle(rows: readonly ObjectRow[], def: SequenceDef): string[] | null {
  if (def.type !== 'flowSequence' || typeof def.flow !== 'string' || typeof def.after !== 'string')
    return null;
  const { flow, after } = def;
  if (flow === after) return [after, flow];
  const next = new Map<string, Set<string>>();
  for (const r of rows) {
    const d = r.def as SequenceDef;
    if (r.type !== 'trigger' || d.type !== 'flowSequence') continue;
    if (typeof d.after !== 'string' || typeof d.flow !== 'string') continue;
    const set = next.get(d.after) ?? new Set<string>();
    set.add(d.flow);
    next.set(d.after, set);
  }
  // The shortest way from `flow` back to `after` (breadth first), then the edge after → flow.
  const cameFrom = new Map<string, string>([[flow, '']]);
  const queue = [flow];
  while (queue.length) {
    const at = queue.shift()!;
    if (at === after) {
      const path = [at];
      for (let p = cameFrom.get(at)!; p; p = cameFrom.get(p)!) path.unshift(p);
      return [after, ...path];
    }
    for (const to of next.get(at) ?? [])
      if (!cameFrom.has(to)) {
        cameFrom.set(to, at);
        queue.push(to);
      }
  }
  return null;
}

/** A cycle as a reader sees it (flows they may not read unnamed), and why it is refused. */
export function describeCycle(
  cycle: string[],
  visible: (flow: string) => boolean,
): { cycle: string[]; message: string } {
  const shown = cycle.map((f) => (visible(f) ? f : '(a flow you cannot read)'));
  return {
    cycle: shown,
    message: `flowSequence triggers would start these flows in a cycle, forever: ${shown.join(' → ')}; remove one of its triggers or start that flow another way`,
  };
}
