// Chunked upload over REST, the resumable.js protocol: GET tests whether a chunk is stored,
// POST sends one, as multipart/form-data (field `file`) or as a raw application/octet-stream
// body; a multipart body without resumable parameters is a whole file. The rules live in
// engine/storage/uploads.ts; this file only moves bytes and words.
import busboy from 'busboy';
import { isChunk } from '../../engine/storage/upload-params.js';
import type { ChunkResult } from '../../engine/storage/uploads.js';
import { HttpError } from '../../http/errors.js';
import type { Reply } from '../../http/respond.js';
import { findUnstorable } from '../../shared/storable-text.js';
import { unstorableError } from '../../http/storable.js';
import { uploadedReply } from '../../http/upload-reply.js';
import type { Ctx, RouteDef } from '../../http/router.js';

/** Multipart fields beyond the protocol's dozen are not needed; these bound the parser. */
const MULTIPART_LIMITS = { files: 1, fields: 50, fieldSize: 64 * 1024, parts: 51 };

type Params = Record<string, unknown>;

function chunkReply(projectId: string, r: ChunkResult): Reply {
  if (!r.complete)
    return {
      title: 'Upload in progress',
      body: { uploadId: r.uploadId, received: r.received, total: r.total },
    };
  const { body, location } = uploadedReply(projectId, r.uploadId, r.file);
  return { status: 201, title: 'Upload complete', body, headers: { Location: location } };
}

/**
 * Reads a multipart body. With resumable… parameters (before the file part, as resumable.js
 * sends them, or in the query) its `file` part is one chunk; without any, it is a whole file
 * (`curl -F file=@x.csv`). Either way the part is streamed to disk as it arrives.
 */
function multipartUpload(c: Ctx): Promise<ChunkResult> {
  return new Promise((resolve, reject) => {
    const params: Params = { ...c.query };
    let work: Promise<ChunkResult> | undefined;
    const late: string[] = []; // fields after the file part
    let bb: busboy.Busboy;
    // On a refusal the rest of the body is read and dropped, so the client gets the answer
    // instead of a reset connection.
    const fail = (err: unknown) => {
      c.req.unpipe();
      c.req.resume();
      reject(err);
    };
    // A whole file becomes visible only once the body was read to its end and held nothing
    // after the file part that would have changed where it goes.
    let settleBody!: (err?: unknown) => void;
    const bodyRead = new Promise<void>((ok, no) => {
      settleBody = (err) => (err ? no(err) : ok());
    });
    bodyRead.catch(() => undefined); // only a whole-file upload waits for it
    try {
      bb = busboy({ headers: c.req.headers, limits: MULTIPART_LIMITS });
    } catch (err) {
      return fail(new HttpError(400, `unreadable multipart body: ${(err as Error).message}`));
    }
    let fileAsText = false;
    // Field names and values, and the file's name, are text kept in the metadata database
    // (src/shared/storable-text.ts); the file's bytes are data, never checked.
    let refused = false;
    const refuseText = (...texts: [string, string][]) => {
      for (const [value, field] of texts) {
        const found = findUnstorable(value, field);
        if (!found) continue;
        refused = true;
        const err = unstorableError(found);
        settleBody(err); // a whole file already being read is not kept
        fail(err);
        return true;
      }
      return refused;
    };
    bb.on('field', (name, value) => {
      if (refuseText([name, 'the name of a multipart field'], [value, `body.${name}`])) return;
      if (name === 'file') fileAsText = true;
      if (work) late.push(name);
      else params[name] = value;
    });
    bb.on('file', (name, stream, info) => {
      const named = [name, 'the name of a multipart part'] as [string, string];
      if (
        refuseText(named, [info.filename ?? '', `the file name of body.${name}`]) ||
        name !== 'file' ||
        work
      ) {
        stream.resume();
        return;
      }
      // The engine borrows the part's stream and reports its premature end; nothing here
      // destroys a stream with an error nobody may be listening for.
      work = isChunk(params)
        ? c.engine.uploads.putChunk(c.actor, { ...params }, stream)
        : c.engine.uploads.putWhole(c.actor, { ...params }, info.filename, stream, {
            confirm: () => bodyRead,
          });
      work.catch(fail);
    });
    // A client that hangs up (or is timed out) ends the parser without an error: the part
    // being read ends early, which the engine sees; before the part nobody is reading.
    c.req.once('close', () => {
      if (c.req.complete) return;
      const err = new HttpError(400, 'the request ended before its body did');
      settleBody(err);
      if (!work) fail(err);
      bb.destroy();
    });
    bb.on('error', (err) => {
      const refused = new HttpError(400, `unreadable multipart body: ${(err as Error).message}`);
      settleBody(refused);
      fail(refused);
    });
    bb.on('close', () => {
      settleBody(
        late.length
          ? new HttpError(
              400,
              `the parameters must come before the \`file\` part of the multipart body, or in the query; after it: ${late.join(', ')}`,
              { after: late },
            )
          : undefined,
      );
      if (!work)
        return fail(
          new HttpError(
            400,
            fileAsText
              ? 'the `file` part of the multipart body is text, not a file: send it as a file (curl -F file=@x.csv, with the @)'
              : 'the multipart body has no `file` part holding the file',
            { field: 'file' },
          ),
        );
      work.then(resolve, fail);
    });
    c.req.pipe(bb);
  });
}

/** A raw body is the chunk itself (resumable.js `method: 'octet'`); parameters are in the query. */
async function octetChunk(c: Ctx): Promise<ChunkResult> {
  try {
    // The engine borrows the request: a refusal stops its copy, and the request is drained.
    return await c.engine.uploads.putChunk(c.actor, { ...c.query }, c.req);
  } catch (err) {
    c.req.resume();
    throw err;
  }
}

export const uploadRoutes: RouteDef[] = [
  {
    group: 'Storage',
    path: '/projects/:project/storage/upload',
    ops: {
      GET: {
        access: 'mdadmin',
        description:
          'resumable.js test-chunk: the resumable… parameters in the query; 200 when that chunk is stored, 204 when it must be sent.',
        handler: async ({ engine, actor, query }) => {
          const t = await engine.uploads.testChunk(actor, query);
          if (!t.present) return { status: 204 };
          return {
            title: 'Chunk stored',
            body: { uploadId: t.uploadId, received: t.received, total: t.total },
          };
        },
      },
      POST: {
        access: 'mdadmin',
        body: 'raw',
        description:
          'One chunk of a resumable.js upload: multipart/form-data (field `file`, parameters as fields before it or in the query) or application/octet-stream (parameters in the query); `folder` chooses the target folder. 200 `{ uploadId, received, total }`; 201 `{ uploadId, file }` once assembled. A multipart body without resumable… parameters is a whole file (`curl -F file=@x.csv`): 201 at once.',
        handler: async (c) => {
          // Refused before a byte of the body is read; the engine checks again in every call.
          c.engine.files.authorize(c.actor);
          const type = (c.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
          let result: ChunkResult;
          if (type === 'multipart/form-data') result = await multipartUpload(c);
          else if (type === 'application/octet-stream' || type === '') result = await octetChunk(c);
          else
            throw new HttpError(
              415,
              `unsupported chunk body type "${type}"; send multipart/form-data or application/octet-stream`,
              { contentType: type },
            );
          return chunkReply(c.actor.projectId, result);
        },
      },
    },
  },
];
