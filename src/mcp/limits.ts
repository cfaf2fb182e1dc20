// The output cap: no tool result may exceed ~25,000 tokens (100 KB of JSON, counted over the
// whole result: the text block, structuredContent and links). Every tool answer passes
// through capped(): a tool that can give less (fewer rows, with truncated=true and a cursor)
// offers a shrink step; otherwise an oversized answer becomes an isError telling how to
// narrow the call. Images (charts as PNG) are not counted in those bytes — a model reads an
// image by its pixels, not its base64 — so the tools that attach them bound their number.
import type {
  CallToolResult,
  ImageContent,
  ResourceLink,
} from '@modelcontextprotocol/sdk/types.js';

export const MAX_OUTPUT_BYTES = 100_000;
/** Error texts are short by design; a pathological one is cut rather than flooding the model. */
const MAX_ERROR_CHARS = 8_000;

export interface Reply<T extends object> {
  data: T;
  /** Extra content blocks, e.g. a link to the full CSV. */
  links?: ResourceLink[];
  /** Image blocks after the text and links (not counted in MAX_OUTPUT_BYTES). */
  images?: ImageContent[];
  /** A smaller answer of the same shape (e.g. half the rows), or null when it cannot shrink. */
  shrink?: (data: T) => T | null | Promise<T | null>;
}

function build<T extends object>(data: T, links: ResourceLink[] = []): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(data) }, ...links],
    structuredContent: data as Record<string, unknown>,
  };
}

export const sizeOf = (r: CallToolResult) => Buffer.byteLength(JSON.stringify(r), 'utf8');

/** The tool result for `reply`, at most MAX_OUTPUT_BYTES, or an isError saying how to narrow. */
export async function capped<T extends object>(
  reply: Reply<T>,
  narrow: string,
  max = MAX_OUTPUT_BYTES,
): Promise<CallToolResult> {
  let data = reply.data;
  let result = build(data, reply.links);
  let size = sizeOf(result);
  while (size > max && reply.shrink) {
    const smaller = await reply.shrink(data);
    if (!smaller) break;
    data = smaller;
    result = build(data, reply.links);
    size = sizeOf(result);
  }
  if (size <= max) {
    if (reply.images?.length) result.content.push(...reply.images);
    return result;
  }
  return errorResult(
    `the answer would be ${Math.ceil(size / 1000)} KB, over the ${max / 1000} KB limit of one tool call; ${narrow}`,
  );
}

export function errorResult(text: string): CallToolResult {
  const t = text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
  return { content: [{ type: 'text', text: t }], isError: true };
}
