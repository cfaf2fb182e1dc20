// What an AI chat message produces: the result of a finished `ai` job, also kept on the
// conversation (src/contract/chat.ts). Every number in `answer` should come from `queries`.
// Stored answers keep text cells (the agent and the grounding check read text): clients read
// them through json-answer.ts.
import type * as chat from '../../contract/chat.js';

export type { AiChart, AiLink, AiUsage } from '../../contract/chat.js';

export type AiQuery = chat.AiQuery<string>;
export type AiAnswer = chat.AiAnswer<string>;
