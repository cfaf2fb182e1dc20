// Reading a stream the caller still owns (an HTTP request, a multipart part). The engine reads
// a copy: refusing (plan limit, wrong size) stops only the copy, so the caller can still drain
// the source and answer instead of resetting the connection. Whatever ends the source early
// (an error, a client that hung up or was timed out) becomes an error of the copy, a 400 for
// the front doors: never an unhandled 'error' event, never a wait for bytes that will not come.
import { finished, PassThrough, Readable } from 'node:stream';
import { invalid } from '../errors.js';

export function borrow(source: Readable | Buffer): Readable {
  if (Buffer.isBuffer(source)) return Readable.from([source]);
  const copy = new PassThrough();
  // finished() keeps its 'error' listener on the source after it has called back, so a
  // source failing later (after a refusal, nobody reading it) does not crash the process.
  finished(source, { writable: false }, (err) => {
    if (err) copy.destroy(ended(err));
  });
  source.pipe(copy);
  return copy;
}

function ended(err: Error) {
  const premature =
    (err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE' ||
    (err as NodeJS.ErrnoException).code === 'ECONNRESET';
  return invalid(
    premature
      ? 'the upload ended before its body was complete (the client hung up or timed out)'
      : `the upload's body could not be read to its end: ${err.message}`,
  );
}
