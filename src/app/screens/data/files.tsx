// The Files tab: the upload panel and the files of the chosen folder, each tabular one with a
// link to load it as a dataset. The folder is kept in the address (?folder=/uploads).
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { ApiError } from '../../api';
import { useProject } from '../../project';
import { appPath, Link, navigate, useLocation } from '../../router';
import { Loading } from '../../ui';
import { asApiError, Problem, When } from '../model/parts';
import { findFolder, isTabular, listFolder, normalizeFolder } from './storage';
import type { StorageItem } from './types';
import { DEFAULT_FOLDER, formatSize, UploadPanel } from './upload';

export function Files() {
  const p = useProject();
  const loc = useLocation();
  const folder = normalizeFolder(loc.query.get('folder') ?? DEFAULT_FOLDER);
  const [tick, setTick] = useState(0);
  const [items, setItems] = useState<StorageItem[] | null | undefined>();
  const [folders, setFolders] = useState<string[]>(['/', DEFAULT_FOLDER]);
  const [error, setError] = useState<ApiError | undefined>();

  useEffect(() => {
    let live = true;
    setError(undefined);
    Promise.all([findFolder(p.id, folder), listFolder(p.id, '/')]).then(
      ([listing, root]) => {
        if (!live) return;
        setItems(listing ? listing.items.filter((i) => i.type === 'file') : null);
        const known = root.items.filter((i) => i.type === 'folder').map((i) => i.path);
        setFolders([...new Set(['/', DEFAULT_FOLDER, ...known])]);
      },
      (e: unknown) => live && setError(asApiError(e)),
    );
    return () => {
      live = false;
    };
  }, [p.id, folder, tick]);

  const onFolder = useCallback(
    (f: string) => {
      if (f !== folder)
        navigate(
          `${appPath('p', p.id, 'data', 'files')}?${new URLSearchParams({ folder: f })}`,
          true,
        );
    },
    [p.id, folder],
  );
  const onStored = useCallback(() => setTick((t) => t + 1), []);

  return (
    <>
      <UploadPanel folder={folder} folders={folders} onFolder={onFolder} onStored={onStored} />
      <section aria-labelledby="files-title">
        <h2 id="files-title">Files in {folder}</h2>
        <Problem error={error} />
        {items === undefined && !error ? (
          <Loading what="the files" />
        ) : items === null ? (
          <p class="muted">There is no folder {folder} yet: it is made with the first upload.</p>
        ) : items && items.length === 0 ? (
          <p class="muted">No files here yet.</p>
        ) : (
          items && (
            <div class="data-table-wrap">
              <table class="data-table">
                <thead>
                  <tr>
                    <th scope="col">File</th>
                    <th scope="col" class="num">
                      Size
                    </th>
                    <th scope="col">Changed</th>
                    <th scope="col">
                      <span class="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((f) => (
                    <tr key={f.fileId}>
                      <td>{f.name}</td>
                      <td class="num">{formatSize(f.size)}</td>
                      <td>
                        <When iso={f.modified} />
                      </td>
                      <td>
                        {isTabular(f.name) && (
                          <Link
                            href={appPath('p', p.id, 'data', 'load', f.fileId)}
                            aria-label={`Load ${f.name}`}
                          >
                            Load…
                          </Link>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        )}
      </section>
    </>
  );
}
