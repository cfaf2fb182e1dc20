// What a finished upload answers, whichever door it came through (a chunked or one-shot
// upload over REST, a WebDAV PUT): the stored file with its links and the structure-guess
// link for its uploadId, and the file's URL as Location.
import type { StorageItem } from '../engine/storage/project-files.js';
import { enc, link, projectPath, type Link } from './links.js';

export function fileView(projectId: string, item: StorageItem) {
  const self = `${projectPath(projectId)}/storage/list/${enc(item.fileId)}`;
  return {
    ...item,
    link: [
      link('self', self, { id: item.fileId, title: item.name }),
      link('download', `${self}/download`),
    ],
  };
}

/** `{ uploadId, file, link }` and the Location of the file. */
export function uploadedReply(
  projectId: string,
  uploadId: string,
  item: StorageItem,
): {
  body: { uploadId: string; file: ReturnType<typeof fileView>; link: Link[] };
  location: string;
} {
  const file = fileView(projectId, item);
  return {
    body: {
      uploadId,
      file,
      link: [
        ...file.link.map((l) => (l.rel === 'self' ? { ...l, rel: 'file' } : l)),
        link('guessupload', `${projectPath(projectId)}/data/guessupload/${enc(uploadId)}`, {
          id: uploadId,
        }),
      ],
    },
    location: file.link[0]!.href,
  };
}
