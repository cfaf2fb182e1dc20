// The signal a door hands the engine so that work for a caller who went away stops.
import type { ServerResponse } from 'node:http';

/**
 * Aborted when the connection closes before the response was sent whole. A response that
 * finished closes too: aborting then would build an AbortError (with its stack) per request
 * for nobody to hear.
 */
export function untilCallerGone(res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return gone.signal;
}
