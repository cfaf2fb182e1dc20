// A scripted fake LLM on loopback that speaks both the OpenAI chat-completions and the
// Anthropic messages wire formats (JSON and SSE), recording every request body it receives.
// Replies come from the script, then from an optional responder (`options.respond`).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface FakeReplyTurn {
  text?: string;
  toolCalls?: FakeToolCall[];
  usage?: { input: number; output: number };
  /** Defaults: tool_use when there are tool calls, else end. */
  stopReason?: 'end' | 'tool_use' | 'max_tokens';
  /** Wait this long before answering (before any header). */
  delayMs?: number;
  /** When streaming: wait this long between SSE events. */
  chunkDelayMs?: number;
}

export interface FakeErrorTurn {
  status: number;
  message?: string;
  delayMs?: number;
}

export type FakeTurn = FakeReplyTurn | FakeErrorTurn;

export interface RecordedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/**
 * Decides the reply to a request when the script is empty (e.g. an "oracle" agent that
 * answers from the conversation it is sent); undefined means no reply (script exhausted).
 */
export type FakeResponder = (
  body: Record<string, unknown>,
  request: RecordedRequest,
) => FakeTurn | undefined | Promise<FakeTurn | undefined>;

export interface FakeLlmOptions {
  /** Consulted for every request that finds the script empty. */
  respond?: FakeResponder;
}

export interface FakeLlm {
  url: string;
  requests: RecordedRequest[];
  /** Append turns to the script; each request consumes the next one. */
  script(...turns: FakeTurn[]): void;
  close(): Promise<void>;
}

const sleep = (ms: number, res: http.ServerResponse) =>
  new Promise<boolean>((resolve) => {
    if (ms <= 0) return resolve(!res.destroyed);
    const t = setTimeout(() => {
      res.off('close', onClose);
      resolve(!res.destroyed);
    }, ms);
    const onClose = () => {
      clearTimeout(t);
      resolve(false);
    };
    res.once('close', onClose);
  });

/** Split a string into a few pieces so deltas really have to be assembled. */
function pieces(s: string, n = 3): string[] {
  if (s.length <= 1) return [s];
  const size = Math.ceil(s.length / n);
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

function stopOf(turn: FakeReplyTurn): 'end' | 'tool_use' | 'max_tokens' {
  return turn.stopReason ?? ((turn.toolCalls?.length ?? 0) > 0 ? 'tool_use' : 'end');
}

const OPENAI_FINISH = { end: 'stop', tool_use: 'tool_calls', max_tokens: 'length' } as const;
const ANTHROPIC_STOP = { end: 'end_turn', tool_use: 'tool_use', max_tokens: 'max_tokens' } as const;

type Emit = (event: string | null, data: unknown) => Promise<boolean>;

function openAiJson(turn: FakeReplyTurn, model: string) {
  const usage = turn.usage ?? { input: 10, output: 5 };
  const calls = turn.toolCalls ?? [];
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: turn.text ?? null,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((c) => ({
                  id: c.id,
                  type: 'function',
                  function: { name: c.name, arguments: JSON.stringify(c.arguments) },
                })),
              }
            : {}),
        },
        finish_reason: OPENAI_FINISH[stopOf(turn)],
      },
    ],
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
    },
  };
}

async function openAiStream(turn: FakeReplyTurn, model: string, usageWanted: boolean, emit: Emit) {
  const usage = turn.usage ?? { input: 10, output: 5 };
  const chunk = (delta: unknown, finish: string | null = null) => ({
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  if (!(await emit(null, chunk({ role: 'assistant', content: '' })))) return;
  for (const p of turn.text ? pieces(turn.text) : []) {
    if (!(await emit(null, chunk({ content: p })))) return;
  }
  for (const [index, c] of (turn.toolCalls ?? []).entries()) {
    const first = { index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } };
    if (!(await emit(null, chunk({ tool_calls: [first] })))) return;
    for (const p of pieces(JSON.stringify(c.arguments))) {
      if (!(await emit(null, chunk({ tool_calls: [{ index, function: { arguments: p } }] })))) {
        return;
      }
    }
  }
  if (!(await emit(null, chunk({}, OPENAI_FINISH[stopOf(turn)])))) return;
  if (usageWanted) {
    const u = {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
    };
    if (!(await emit(null, { ...chunk({}), choices: [], usage: u }))) return;
  }
  await emit(null, '[DONE]');
}

function anthropicJson(turn: FakeReplyTurn, model: string) {
  const usage = turn.usage ?? { input: 10, output: 5 };
  return {
    id: 'msg_fake',
    type: 'message',
    role: 'assistant',
    model,
    content: [
      ...(turn.text ? [{ type: 'text', text: turn.text }] : []),
      ...(turn.toolCalls ?? []).map((c) => ({
        type: 'tool_use',
        id: c.id,
        name: c.name,
        input: c.arguments,
      })),
    ],
    stop_reason: ANTHROPIC_STOP[stopOf(turn)],
    stop_sequence: null,
    usage: { input_tokens: usage.input, output_tokens: usage.output },
  };
}

async function anthropicStream(turn: FakeReplyTurn, model: string, emit: Emit) {
  const usage = turn.usage ?? { input: 10, output: 5 };
  const start = {
    type: 'message_start',
    message: {
      ...anthropicJson(turn, model),
      content: [],
      stop_reason: null,
      usage: { input_tokens: usage.input, output_tokens: 1 },
    },
  };
  if (!(await emit('message_start', start))) return;
  let index = 0;
  if (turn.text) {
    const cb = { type: 'content_block_start', index, content_block: { type: 'text', text: '' } };
    if (!(await emit('content_block_start', cb))) return;
    for (const p of pieces(turn.text)) {
      const d = { type: 'content_block_delta', index, delta: { type: 'text_delta', text: p } };
      if (!(await emit('content_block_delta', d))) return;
    }
    if (!(await emit('content_block_stop', { type: 'content_block_stop', index }))) return;
    index++;
  }
  for (const c of turn.toolCalls ?? []) {
    const cb = {
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} },
    };
    if (!(await emit('content_block_start', cb))) return;
    for (const p of pieces(JSON.stringify(c.arguments))) {
      const d = {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: p },
      };
      if (!(await emit('content_block_delta', d))) return;
    }
    if (!(await emit('content_block_stop', { type: 'content_block_stop', index }))) return;
    index++;
  }
  const md = {
    type: 'message_delta',
    delta: { stop_reason: ANTHROPIC_STOP[stopOf(turn)], stop_sequence: null },
    usage: { output_tokens: usage.output },
  };
  if (!(await emit('message_delta', md))) return;
  await emit('message_stop', { type: 'message_stop' });
}

export async function startFakeLlm(
  initial: FakeTurn[] = [],
  options: FakeLlmOptions = {},
): Promise<FakeLlm> {
  const turns: FakeTurn[] = [...initial];
  const requests: RecordedRequest[] = [];

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = (req.url ?? '').split('?')[0] ?? '';
    const isOpenAi = req.method === 'POST' && path === '/v1/chat/completions';
    const isAnthropic = req.method === 'POST' && path === '/v1/messages';
    if (!isOpenAi && !isAnthropic) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}` } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<
      string,
      unknown
    >;
    const recorded: RecordedRequest = { path, headers: req.headers, body };
    requests.push(recorded);
    const turn = turns.shift() ?? (await options.respond?.(body, recorded));
    if (!turn) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'fake-llm: script exhausted' } }));
      return;
    }
    if (!(await sleep(turn.delayMs ?? 0, res))) return;
    if ('status' in turn) {
      const message = turn.message ?? `fake failure ${turn.status}`;
      const errBody = isOpenAi
        ? { error: { message, type: 'server_error', code: null } }
        : { type: 'error', error: { type: 'api_error', message } };
      res.writeHead(turn.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(errBody));
      return;
    }
    const model = typeof body['model'] === 'string' ? body['model'] : 'fake';
    if (body['stream'] !== true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(isOpenAi ? openAiJson(turn, model) : anthropicJson(turn, model)));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const emit: Emit = async (event, data) => {
      if (res.destroyed) return false;
      const payload = typeof data === 'string' ? data : JSON.stringify(data);
      res.write(`${event ? `event: ${event}\n` : ''}data: ${payload}\n\n`);
      return sleep(turn.chunkDelayMs ?? 0, res);
    };
    if (isOpenAi) {
      const opts = body['stream_options'] as { include_usage?: boolean } | undefined;
      await openAiStream(turn, model, opts?.include_usage === true, emit);
    } else {
      await anthropicStream(turn, model, emit);
    }
    res.end();
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(err) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...more) => {
      turns.push(...more);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
