// Uploading files into project storage: a folder (default /uploads, created when missing),
// files chosen or dropped, then one row per file with its progress bar, pause/resume or
// cancel, the API's message when refused, and a link to load a finished CSV as a dataset.
import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from '../../api';
import { useProject } from '../../project';
import { appPath, Link } from '../../router';
import { asApiError, Problem } from '../model/parts';
import { ensureFolder, isTabular, normalizeFolder } from './storage';
import { useUploads, type Upload } from './uploader';

export const DEFAULT_FOLDER = '/uploads';

export function UploadPanel(props: {
  folder: string;
  folders: string[];
  onFolder: (folder: string) => void;
  onStored: () => void;
}) {
  const p = useProject();
  const { uploads, add, pause, resume, cancel, dismiss } = useUploads(p.id);
  const [over, setOver] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const [folderText, setFolderText] = useState(props.folder);
  useEffect(() => setFolderText(props.folder), [props.folder]);

  const done = uploads.filter((u) => u.status === 'done').length;
  const { onStored } = props;
  useEffect(() => {
    if (done) onStored();
  }, [done, onStored]);

  const start = async (files: File[]) => {
    if (!files.length) return;
    const folder = normalizeFolder(folderText);
    setError(undefined);
    try {
      await ensureFolder(p.id, folder);
    } catch (e) {
      setError(asApiError(e));
      return;
    }
    props.onFolder(folder);
    add(files, folder);
  };

  return (
    <section class="data-upload" aria-labelledby="upload-title">
      <h2 id="upload-title">Upload files</h2>
      <div class="data-upload-row">
        <label class="data-folder">
          Into folder
          <input
            name="folder"
            value={folderText}
            list="data-folders"
            spellcheck={false}
            onInput={(e) => setFolderText(e.currentTarget.value)}
            onChange={(e) => props.onFolder(normalizeFolder(e.currentTarget.value))}
          />
          <datalist id="data-folders">
            {props.folders.map((f) => (
              <option key={f} value={f} />
            ))}
          </datalist>
        </label>
        <div
          class={over ? 'data-drop over' : 'data-drop'}
          onDragOver={(e) => {
            e.preventDefault();
            setOver(true);
          }}
          onDragLeave={() => setOver(false)}
          onDrop={(e) => {
            e.preventDefault();
            setOver(false);
            void start([...(e.dataTransfer?.files ?? [])]);
          }}
        >
          <label class="button data-choose">
            Choose files
            <input
              type="file"
              multiple
              class="data-file-input"
              aria-label="Files to upload"
              onChange={(e) => {
                const input = e.currentTarget;
                const files = [...(input.files ?? [])];
                input.value = '';
                void start(files);
              }}
            />
          </label>
          <span class="muted">or drop them here</span>
        </div>
      </div>
      <Problem error={error} />
      {uploads.length > 0 && (
        <ul class="data-uploads" aria-label="Uploads">
          {uploads.map((u) => (
            <UploadRow
              key={u.id}
              u={u}
              project={p.id}
              onPause={() => pause(u.id)}
              onResume={() => resume(u.id)}
              onCancel={() => cancel(u.id)}
              onDismiss={() => dismiss(u.id)}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

export const formatSize = (n: number) =>
  n < 1024
    ? `${n} B`
    : n < 1024 * 1024
      ? `${(n / 1024).toFixed(1)} KB`
      : `${(n / 1024 / 1024).toFixed(1)} MB`;

const STATUS: Record<Upload['status'], string> = {
  uploading: 'Uploading',
  paused: 'Paused',
  done: 'Uploaded',
  error: 'Failed',
};

function UploadRow(props: {
  u: Upload;
  project: string;
  onPause: () => void;
  onResume: () => void;
  onCancel: () => void;
  onDismiss: () => void;
}) {
  const { u } = props;
  const label = `${u.name}: ${u.percent} %`;
  return (
    <li class={`card data-upload-item ${u.status}`} aria-label={u.name}>
      <div class="data-upload-head">
        <strong class="data-name">{u.name}</strong>
        <span class="muted">
          {formatSize(u.size)} → {u.folder}
        </span>
        <span class="data-status" role="status">
          {STATUS[u.status]} · {u.percent} %
        </span>
      </div>
      <progress max={100} value={u.percent} aria-label={label} />
      {u.status === 'error' && (
        <p class="error" role="alert">
          {u.message}
        </p>
      )}
      <div class="actions">
        {u.status === 'uploading' && (
          <button type="button" class="quiet" onClick={props.onPause}>
            Pause
          </button>
        )}
        {u.status === 'paused' && (
          <button type="button" onClick={props.onResume}>
            Resume
          </button>
        )}
        {(u.status === 'uploading' || u.status === 'paused') && (
          <button type="button" class="quiet" onClick={props.onCancel}>
            Cancel
          </button>
        )}
        {u.status === 'done' && u.fileId && isTabular(u.name) && (
          <Link class="button" href={appPath('p', props.project, 'data', 'load', u.fileId)}>
            Load as dataset
          </Link>
        )}
        {(u.status === 'done' || u.status === 'error') && (
          <button type="button" class="quiet" onClick={props.onDismiss}>
            Dismiss
          </button>
        )}
      </div>
    </li>
  );
}
