// A flow's def checked as a whole (FLOWS.md "Flow definition"): box types and parameters,
// edges, cycles, how many inputs each box takes, credentials kinds, expressions that parse.
// Every refusal names the box and the field; the run engine works on the graph it returns.
import { invalid } from '../errors.js';
import { BOXES, type BoxType } from './boxes.js';
import { apiKeyAuthConflict } from './connectors/http.js';
import { BoxError } from './errors.js';
import { parseFlowExpr } from './expressions.js';

export interface Box {
  id: string;
  type: string;
  [param: string]: unknown;
}

export interface FlowGraph {
  boxes: Map<string, Box>;
  /** Box ids, each after the boxes it reads. */
  order: string[];
  /** Incoming box ids of each box, in edge order. */
  inputs: Map<string, string[]>;
  outputs: Map<string, string[]>;
}

/** The def of a credentials object the actor may use, or null when there is none with that id. */
export type CredentialsOf = (ident: string) => { kind?: unknown; apiKey?: unknown } | null;

const NEEDED_KIND: Record<string, string> = {
  'input.http': 'http',
  'input.postgres': 'postgres',
  'input.sftp': 'sftp',
};

export function checkFlowDef(def: unknown, credentialsOf: CredentialsOf | null): FlowGraph {
  const d = def as { boxes?: unknown; edges?: unknown };
  if (!Array.isArray(d?.boxes) || d.boxes.length === 0)
    throw invalid('a flow needs at least one box in def.boxes', { field: 'def.boxes' });
  const boxes = new Map<string, Box>();
  const index = new Map<string, number>();
  d.boxes.forEach((raw, i) => {
    const b = checkBox(raw, i, credentialsOf);
    if (boxes.has(b.id))
      throw invalid(`def.boxes.${i}.id: duplicate box id "${b.id}"`, {
        field: `def.boxes.${i}.id`,
        box: b.id,
      });
    boxes.set(b.id, b);
    index.set(b.id, i);
  });
  const inputs = new Map<string, string[]>([...boxes.keys()].map((k) => [k, []]));
  const outputs = new Map<string, string[]>([...boxes.keys()].map((k) => [k, []]));
  const edges = Array.isArray(d.edges) ? (d.edges as Array<{ from: string; to: string }>) : [];
  edges.forEach((e, i) => {
    for (const end of ['from', 'to'] as const)
      if (!boxes.has(e[end]))
        throw invalid(`def.edges.${i}.${end}: no box with id "${e[end]}"`, {
          field: `def.edges.${i}.${end}`,
          known: [...boxes.keys()],
        });
    if (inputs.get(e.to)!.includes(e.from))
      throw invalid(`def.edges.${i}: edge "${e.from}" → "${e.to}" is listed twice`, {
        field: `def.edges.${i}`,
      });
    inputs.get(e.to)!.push(e.from);
    outputs.get(e.from)!.push(e.to);
  });
  for (const [id, b] of boxes)
    checkArity(b, BOXES.get(b.type)!, inputs.get(id)!, outputs.get(id)!, index.get(id)!);
  const order = topoOrder(boxes, inputs, outputs);
  return { boxes, order, inputs, outputs };
}

function boxError(i: number, box: string, field: string, message: string) {
  return invalid(`def.boxes.${i}${field ? `.${field}` : ''}: box "${box}": ${message}`, {
    field: `def.boxes.${i}${field ? `.${field}` : ''}`,
    box,
  });
}

function checkBox(raw: unknown, i: number, credentialsOf: CredentialsOf | null): Box {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    throw invalid(`def.boxes.${i}: a box is an object { id, type, …parameters }`, {
      field: `def.boxes.${i}`,
    });
  const { id, type, ...params } = raw as Record<string, unknown>;
  if (typeof id !== 'string' || !/^[A-Za-z0-9_.-]{1,100}$/.test(id))
    throw invalid(`def.boxes.${i}.id: a box id is 1-100 letters, digits, "_", "." or "-"`, {
      field: `def.boxes.${i}.id`,
    });
  const bt = typeof type === 'string' ? BOXES.get(type) : undefined;
  if (!bt)
    throw boxError(
      i,
      id,
      'type',
      `unknown box type ${JSON.stringify(type)}; box types: ${[...BOXES.keys()].join(', ')}`,
    );
  const r = bt.params.safeParse(params);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const field = issue.path.map(String).join('.');
    const unknownKeys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    if (unknownKeys.length)
      throw boxError(
        i,
        id,
        unknownKeys[0]!,
        `unknown parameter${unknownKeys.length > 1 ? 's' : ''} ${unknownKeys.map((k) => `"${k}"`).join(', ')} for ${bt.id}; its parameters: ${Object.keys(bt.params.shape).join(', ') || 'none'}`,
      );
    throw boxError(i, id, field, issue.message);
  }
  const box: Box = { id, type: bt.id, ...(r.data as Record<string, unknown>) };
  const needed = NEEDED_KIND[bt.id];
  const cred = box.credentials as string | undefined;
  if (needed && cred && credentialsOf) {
    const c = credentialsOf(cred);
    if (c === null) throw boxError(i, id, 'credentials', `no credentials object "${cred}"`);
    if (c.kind !== needed)
      throw boxError(
        i,
        id,
        'credentials',
        `"${cred}" holds ${String(c.kind)} credentials; ${bt.id} needs credentials of kind "${needed}"`,
      );
    if (c.apiKey && box.auth !== undefined)
      throw boxError(
        i,
        id,
        'auth',
        apiKeyAuthConflict(cred, c.apiKey as { in: string; name: string }),
      );
  }
  for (const { field, text } of bt.expressions?.(box) ?? []) {
    try {
      parseFlowExpr(text, id, field);
    } catch (err) {
      if (err instanceof BoxError)
        throw boxError(i, id, field, err.message.replace(/^box "[^"]*" \([^)]*\): /, ''));
      throw err;
    }
  }
  return box;
}

function checkArity(b: Box, bt: BoxType, ins: string[], outs: string[], i: number): void {
  const [min, max] = bt.inputs;
  if (bt.kind === 'input' && ins.length)
    throw boxError(
      i,
      b.id,
      '',
      `an input box takes no incoming edges (from ${ins.map((x) => `"${x}"`).join(', ')})`,
    );
  if (bt.kind === 'output' && outs.length)
    throw boxError(
      i,
      b.id,
      '',
      `an output box has no outgoing edges (to ${outs.map((x) => `"${x}"`).join(', ')})`,
    );
  if (bt.kind !== 'input' && (ins.length < min || ins.length > max))
    throw boxError(
      i,
      b.id,
      '',
      `${bt.id} takes ${min === max ? min : `${min} to ${max}`} input${max === 1 ? '' : 's'}, but ${ins.length} edge${ins.length === 1 ? '' : 's'} lead${ins.length === 1 ? 's' : ''} to it`,
    );
  if (bt.id === 'transform.join') {
    for (const side of ['left', 'right'] as const)
      if (!ins.includes(String(b[side])))
        throw boxError(
          i,
          b.id,
          side,
          `"${String(b[side])}" is not one of the join's inputs (${ins.map((x) => `"${x}"`).join(', ')})`,
        );
    if (b.left === b.right)
      throw boxError(i, b.id, 'right', 'left and right must be different boxes');
  }
  if (bt.kind !== 'output' && outs.length === 0)
    throw boxError(i, b.id, '', 'nothing reads this box: connect it to a transform or an output');
}

/** Kahn's algorithm; what is left over lies on a cycle. */
function topoOrder(
  boxes: Map<string, Box>,
  inputs: Map<string, string[]>,
  outputs: Map<string, string[]>,
): string[] {
  const waiting = new Map([...inputs].map(([k, v]) => [k, v.length]));
  const ready = [...boxes.keys()].filter((k) => waiting.get(k) === 0);
  const order: string[] = [];
  while (ready.length) {
    const id = ready.shift()!;
    order.push(id);
    for (const next of outputs.get(id)!) {
      const n = waiting.get(next)! - 1;
      waiting.set(next, n);
      if (n === 0) ready.push(next);
    }
  }
  if (order.length < boxes.size) {
    const cycle = [...boxes.keys()].filter((k) => !order.includes(k));
    throw invalid(`def.edges: the boxes ${cycle.map((c) => `"${c}"`).join(', ')} form a cycle`, {
      field: 'def.edges',
      cycle,
    });
  }
  return order;
}
