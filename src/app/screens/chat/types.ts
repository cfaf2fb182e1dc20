// The AI chat's answers are the API's (src/contract/chat.ts); here only how the app reads an
// `ai` job and the links of an answer.
import type { AiAnswer, AiProgress } from '../../../contract/chat';
import type { JobStatus } from '../../../contract/jobs';
import type { Link } from '../../../contract/links';

export { isFinal } from '../../../contract/jobs';

/** The parts of an `ai` job the chat reads while it runs and once it ended. */
export interface AiJob {
  id: string;
  status: JobStatus;
  message?: string;
  progress?: AiProgress;
  result?: AiAnswer;
}

export const linkOf = (links: Link[] | undefined, rel: string) =>
  links?.find((l) => l.rel === rel)?.href;
