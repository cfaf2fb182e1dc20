// Storage over REST: list, create folder, details, delete, download (ranges), move. Who may
// use the files is the engine's to check (engine.files), in every call.
import type { Ctx, RouteDef } from '../../http/router.js';
import { z } from 'zod';
import { pathOfFileId } from '../../engine/storage/paths.js';
import type { StorageItem } from '../../engine/storage/project-files.js';
import { parseInput } from '../../engine/validate.js';
import { HttpError } from '../../http/errors.js';
import { sendStoredFile } from '../../http/file-response.js';
import { addProjectLinks, enc, link, projectPath } from '../../http/links.js';

const folderSchema = z.object({ folder: z.string().min(1) }).strict();
const moveSchema = z.object({ source: z.string().min(1), target: z.string().min(1) }).strict();

const listPath = (projectId: string) => `${projectPath(projectId)}/storage/list`;

addProjectLinks((id) => [link('storage', listPath(id))]);

function withLinks(projectId: string, item: StorageItem) {
  const self =
    item.path === '/' ? listPath(projectId) : `${listPath(projectId)}/${enc(item.fileId)}`;
  const links = [link('self', self, { id: item.fileId, title: item.name || '/' })];
  if (item.type === 'file') links.push(link('download', `${self}/download`));
  return { ...item, link: links };
}

async function listing(c: Ctx, rawPath: string) {
  const withStats = c.query.withStats === '1' || c.query.withStats === 'true';
  const { item, children } = await c.engine.files.list(c.actor, rawPath, { withStats });
  const p = c.actor.projectId;
  return {
    title: `Storage ${item.path}`,
    body: {
      item: withLinks(p, item),
      items: children.map((ch) => withLinks(p, ch)),
      link: [link('project', projectPath(p)), link('upload', `${projectPath(p)}/storage/upload`)],
    },
    tabular: children.map(({ fileId, name, path, type, size, modified, items }) => ({
      fileId,
      name,
      path,
      type,
      size,
      modified,
      items,
    })),
    filename: 'storage',
  };
}

async function download(c: Ctx): Promise<void> {
  const item = await c.engine.files.require(c.actor, pathOfFileId(c.params.fileId!));
  if (item.type !== 'file')
    throw new HttpError(400, `"${item.path}" is a folder; only files can be downloaded`, {
      path: item.path,
    });
  await sendStoredFile(c.engine, c.actor, item, c.req, c.res);
}

export const storageRoutes: RouteDef[] = [
  {
    group: 'Storage',
    path: '/projects/:project/storage/list',
    ops: {
      GET: {
        access: 'mdadmin',
        description: 'Root folder listing; `withStats=1` adds folder sizes and item counts.',
        handler: (c) => listing(c, '/'),
      },
      POST: {
        access: 'mdadmin',
        description: 'Create a folder `{ folder: <path> }` (with missing parents).',
        handler: async (c) => {
          const { folder } = parseInput(folderSchema, c.body, 'folder');
          const item = await c.engine.files.mkdir(c.actor, folder, { parents: true });
          const view = withLinks(c.actor.projectId, item);
          return {
            status: 201,
            title: 'Folder created',
            body: { item: view },
            headers: { Location: view.link[0]!.href },
          };
        },
      },
    },
  },
  {
    group: 'Storage',
    path: '/projects/:project/storage/list/:fileId',
    ops: {
      GET: {
        access: 'mdadmin',
        description: 'Details of a file, or a folder with its contents (`withStats=1`).',
        handler: (c) => listing(c, pathOfFileId(c.params.fileId!)),
      },
      DELETE: {
        access: 'mdadmin',
        description: 'Delete a file, or a folder with everything in it.',
        handler: async (c) => {
          await c.engine.files.remove(c.actor, pathOfFileId(c.params.fileId!));
          return { status: 204 };
        },
      },
    },
  },
  {
    group: 'Storage',
    path: '/projects/:project/storage/list/:fileId/download',
    ops: {
      GET: {
        access: 'mdadmin',
        description: 'The file itself (streamed; Range requests answer 206).',
        handler: download,
      },
    },
  },
  {
    group: 'Storage',
    path: '/projects/:project/storage/move',
    ops: {
      POST: {
        access: 'mdadmin',
        description: 'Move or rename `{ source, target }` (paths); an existing target → 409.',
        handler: async (c) => {
          const { source, target } = parseInput(moveSchema, c.body, 'move');
          const { item } = await c.engine.files.move(c.actor, source, target);
          return { title: 'Moved', body: { item: withLinks(c.actor.projectId, item) } };
        },
      },
    },
  },
];
