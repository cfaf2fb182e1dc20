// Chunked upload over REST, the resumable.js protocol: GET tests whether a chunk is stored,
// POST sends one, as multipart/form-data (field `file`) or as a raw application/octet-stream
// body. The rules live in engine/storage/uploads.ts; this file only moves bytes and words.
import { PassThrough, type Readable } from 'node:stream';
import busboy from 'busboy';
import { requireStorageAccess } from '../../engine/storage/access.js';
import type { StorageItem } from '../../engine/storage/storage.js';
import type { ChunkResult } from '../../engine/storage/uploads.js';
import { HttpError } from '../errors.js';
import { enc, link, projectPath } from '../links.js';
import type { Reply } from '../respond.js';
import type { Ctx, RouteDef } from '../router.js';

/** Multipart fields beyond the protocol's dozen are not needed; these bound the parser. */
const MULTIPART_LIMITS = { files: 1, fields: 50, fieldSize: 64 * 1024, parts: 51 };

type Params = Record<string, unknown>;

function fileView(projectId: string, item: StorageItem) {
  const self = `${projectPath(projectId)}/storage/list/${enc(item.fileId)}`;
  return {
    ...item,
    link: [
      link('self', self, { id: item.fileId, title: item.name }),
      link('download', `${self}/download`),
    ],
  };
}

function chunkReply(projectId: string, r: ChunkResult): Reply {
  if (!r.complete)
    return {
      title: 'Upload in progress',
      body: { uploadId: r.uploadId, received: r.received, total: r.total },
    };
  const file = fileView(projectId, r.file);
  return {
    status: 201,
    title: 'Upload complete',
    body: {
      uploadId: r.uploadId,
      file,
      link: [
        ...file.link.map((l) => (l.rel === 'self' ? { ...l, rel: 'file' } : l)),
        link('guessupload', `${projectPath(projectId)}/data/guessupload/${enc(r.uploadId)}`, {
          id: r.uploadId,
        }),
      ],
    },
    headers: { Location: file.link[0]!.href },
  };
}

/** A piped stream does not learn that its source died: without this, the engine would wait
 * for the rest of an aborted chunk forever, its temporary file open. */
function onAbort(c: Ctx, chunk: Readable): void {
  c.req.once('close', () => {
    if (!c.req.complete) chunk.destroy(new Error('the request ended before its body did'));
  });
}

/**
 * Reads the chunk of a multipart body. The parameters must come before the file part (as
 * resumable.js sends them) or in the query: the chunk is streamed to disk as it arrives.
 */
function multipartChunk(c: Ctx): Promise<ChunkResult> {
  return new Promise((resolve, reject) => {
    const params: Params = { ...c.query };
    let work: Promise<ChunkResult> | undefined;
    let bb: busboy.Busboy;
    // On a refusal the rest of the body is read and dropped, so the client gets the answer
    // instead of a reset connection.
    const fail = (err: unknown) => {
      c.req.unpipe();
      c.req.resume();
      reject(err);
    };
    try {
      bb = busboy({ headers: c.req.headers, limits: MULTIPART_LIMITS });
    } catch (err) {
      return fail(new HttpError(400, `unreadable multipart body: ${(err as Error).message}`));
    }
    bb.on('field', (name, value) => {
      params[name] = value;
    });
    bb.on('file', (name, stream) => {
      if (name !== 'file' || work) {
        stream.resume();
        return;
      }
      if (params.resumableIdentifier === undefined) {
        stream.resume();
        return fail(
          new HttpError(
            400,
            'the resumable… parameters must come before the `file` part of the multipart body, or in the query',
            { field: 'file' },
          ),
        );
      }
      onAbort(c, stream);
      work = c.engine.uploads.putChunk(c.actor, { ...params }, stream);
      work.catch(fail);
    });
    // Aborted before the file part: nothing is waiting on a stream, but the answer is.
    c.req.once('close', () => {
      if (!c.req.complete && !work)
        fail(new HttpError(400, 'the request ended before its body did'));
    });
    bb.on('error', (err) =>
      fail(new HttpError(400, `unreadable multipart body: ${(err as Error).message}`)),
    );
    bb.on('close', () => {
      if (!work)
        return fail(
          new HttpError(400, 'the multipart body has no `file` part holding the chunk', {
            field: 'file',
          }),
        );
      work.then(resolve, fail);
    });
    c.req.pipe(bb);
  });
}

/** A raw body is the chunk itself (resumable.js `method: 'octet'`); parameters are in the query. */
async function octetChunk(c: Ctx): Promise<ChunkResult> {
  // A refused chunk stops the engine reading its source; between it and the request sits a
  // pass-through so the request can still be drained and answered.
  const body = new PassThrough();
  onAbort(c, body);
  c.req.pipe(body);
  try {
    return await c.engine.uploads.putChunk(c.actor, { ...c.query }, body);
  } catch (err) {
    c.req.unpipe(body);
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
          'One chunk of a resumable.js upload: multipart/form-data (field `file`, parameters as fields before it or in the query) or application/octet-stream (parameters in the query); `folder` chooses the target folder. 200 `{ uploadId, received, total }`; 201 `{ uploadId, file }` once assembled.',
        handler: async (c) => {
          requireStorageAccess(c.actor); // before a byte of the body is read
          const type = (c.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
          let result: ChunkResult;
          if (type === 'multipart/form-data') result = await multipartChunk(c);
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
