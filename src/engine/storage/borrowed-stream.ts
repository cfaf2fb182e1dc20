// Reading a stream the caller still owns (an HTTP request, a multipart part). The engine reads
// a copy: refusing (plan limit, wrong size) stops only the copy, so the caller can still drain
// the source and answer instead of resetting the connection. A source that ends early (a
// client that hung up or was timed out) becomes a 400 error of the copy; its other errors
// pass through as they are. Never an unhandled 'error' event, never a wait for bytes that
// will not come.
import { finished, PassThrough, Readable } from 'node:stream';
import { invalid } from '../errors.js';

export function borrow(source: Readable | Buffer): Readable {
  if (Buffer.isBuffer(source)) return Readable.from([source]);
  const copy = new PassThrough();
  // The engine starts reading only after its checks (awaits): an error before then is kept
  // by the destroyed copy and reported to the reader when it starts, not thrown at nobody.
  copy.on('error', () => undefined);
  // finished() keeps its 'error' listener on the source after it has called back, so a
  // source failing later (after a refusal, nobody reading it) does not crash the process.
  finished(source, { writable: false }, (err) => {
    if (err) copy.destroy(endedEarly(err) ? aborted() : err);
  });
  source.pipe(copy);
  return copy;
}

function endedEarly(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET';
}

const aborted = () =>
  invalid('the upload ended before its body was complete (the client hung up or timed out)');
