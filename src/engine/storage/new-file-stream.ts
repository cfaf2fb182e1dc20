// A write stream on a file that exists before the stream does. fs.createWriteStream opens
// its file asynchronously: a pipeline whose source has already failed rejects before that
// open, and a cleanup that removes the file then runs first, so the file appears afterwards
// and stays. Opening it here first makes "remove it on failure" reliable.
import fs from 'node:fs/promises';
import type { WriteStream } from 'node:fs';

/** Creates `file` (`wx`: never an existing one; `w`: replace) and a stream writing it. The
 * stream closes the file when it ends or is destroyed. */
export async function newFileStream(file: string, flags: 'wx' | 'w' = 'wx'): Promise<WriteStream> {
  const fh = await fs.open(file, flags);
  return fh.createWriteStream();
}
