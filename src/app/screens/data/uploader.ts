// Chunked uploads into project storage with resumable.js, over the resumable.js protocol at
// /projects/{p}/storage/upload (docs/api.md "Chunked upload"), with the browser session.
// Each file carries its target folder (query `folder`) and its own identifier (size, name and
// folder), so the same file can go into two folders. Per file: progress, pause/resume,
// cancel, and the API's message when a chunk is refused (402 storage limit, 409 …).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { API, projectApi } from '../../api';
import { createResumable, type Resumable, type ResumableFile } from './resumable';
import { fileIdOf, joinPath } from './storage';

export const CHUNK_SIZE = 1024 * 1024;

export type UploadStatus = 'uploading' | 'paused' | 'done' | 'error';

export interface Upload {
  id: string;
  name: string;
  size: number;
  folder: string;
  /** 0–100. */
  percent: number;
  status: UploadStatus;
  message?: string;
  /** The stored file, once assembled. */
  path?: string;
  fileId?: string;
}

/** The API's message in a refused chunk's answer. */
export function messageOf(responseText: string): string {
  try {
    const m = (JSON.parse(responseText) as { message?: unknown }).message;
    if (typeof m === 'string' && m) return m;
  } catch {
    // not JSON: fall through
  }
  return responseText.trim() || 'the upload failed: the server could not be reached';
}

function hash(text: string): string {
  let h = 5381;
  for (let i = 0; i < text.length; i++) h = ((h * 33) ^ text.charCodeAt(i)) >>> 0;
  return h.toString(36);
}

const identifierOf = (file: File, folder: string) =>
  `${file.size}-${file.name.replace(/[^0-9A-Za-z_-]/g, '').slice(0, 120) || 'file'}-${hash(folder)}`;

export function useUploads(project: string) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const folders = useRef(new Map<string, string>());
  const pending = useRef('/');
  const resumable = useRef<Resumable | null>(null);

  const patch = useCallback((id: string, change: Partial<Upload>) => {
    setUploads((list) => list.map((u) => (u.id === id ? { ...u, ...change } : u)));
  }, []);

  useEffect(() => {
    const r = createResumable({
      target: `${API}${projectApi(project)}/storage/upload`,
      chunkSize: CHUNK_SIZE,
      simultaneousUploads: 3,
      testChunks: true,
      method: 'multipart',
      withCredentials: true,
      query: (f) => ({ folder: folders.current.get(f.uniqueIdentifier) ?? '/' }),
      headers: { accept: 'application/json' },
      generateUniqueIdentifier: (file) => identifierOf(file, pending.current),
      // Refusals that sending again cannot change end the file's upload at once.
      permanentErrors: [400, 401, 402, 403, 404, 405, 409, 413, 415, 500, 501],
      maxChunkRetries: 5,
      chunkRetryInterval: 1000,
    });
    const percent = (f: ResumableFile) => Math.min(99, Math.floor(f.progress() * 100));
    r.on('fileAdded', (f) => {
      const folder = folders.current.get(f.uniqueIdentifier) ?? '/';
      setUploads((list) => [
        {
          id: f.uniqueIdentifier,
          name: f.fileName,
          size: f.size,
          folder,
          percent: 0,
          status: 'uploading',
        },
        ...list.filter((u) => u.id !== f.uniqueIdentifier),
      ]);
      r.upload();
    });
    r.on('fileProgress', (f) => {
      if (r.files.includes(f)) patch(f.uniqueIdentifier, { percent: percent(f) });
    });
    r.on('fileSuccess', (f, message) => {
      const folder = folders.current.get(f.uniqueIdentifier) ?? '/';
      const path = joinPath(folder, f.fileName);
      let fileId = fileIdOf(path);
      try {
        const body = JSON.parse(message) as { file?: { fileId?: string; path?: string } };
        if (body.file?.fileId) fileId = body.file.fileId;
      } catch {
        // the id from the path will do
      }
      r.removeFile(f);
      patch(f.uniqueIdentifier, { percent: 100, status: 'done', path, fileId });
    });
    r.on('fileError', (f, message) => {
      r.removeFile(f);
      patch(f.uniqueIdentifier, { status: 'error', message: messageOf(message) });
    });
    resumable.current = r;
    return () => {
      r.files.forEach((f) => f.abort());
      resumable.current = null;
    };
  }, [project, patch]);

  const add = useCallback((files: File[], folder: string) => {
    const r = resumable.current;
    if (!r) return;
    for (const file of files) {
      pending.current = folder;
      folders.current.set(identifierOf(file, folder), folder);
      r.addFile(file);
    }
  }, []);

  const find = (id: string) => resumable.current?.files.find((f) => f.uniqueIdentifier === id);

  const pause = useCallback(
    (id: string) => {
      const f = find(id);
      if (!f) return;
      f.pause(true);
      f.abort();
      patch(id, { status: 'paused' });
    },
    [patch],
  );

  const resume = useCallback(
    (id: string) => {
      const r = resumable.current;
      const f = find(id);
      if (!r || !f) return;
      f.pause(false);
      patch(id, { status: 'uploading' });
      if (r.isUploading()) for (let i = 0; i < 3; i++) r.uploadNextChunk();
      else r.upload();
    },
    [patch],
  );

  const cancel = useCallback((id: string) => {
    find(id)?.cancel();
    setUploads((list) => list.filter((u) => u.id !== id));
  }, []);

  const dismiss = useCallback((id: string) => {
    setUploads((list) => list.filter((u) => u.id !== id));
  }, []);

  return { uploads, add, pause, resume, cancel, dismiss };
}
