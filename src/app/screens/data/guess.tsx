// Loading one stored file as a dataset (/data/load/{fileId}): the structure guess (GET
// data/guessupload), edited here (dataset name, columns, key, references) with the file's
// first rows beside it; Save (PUT) keeps the edits for the file, Load saves them and starts
// the load (transform/execute type cluster), whose job is kept in the address (?job=…) and
// followed to its end.
import { useEffect, useState } from 'preact/hooks';
import { api, projectApi, type ApiError } from '../../api';
import { useResource } from '../../data';
import { useProject } from '../../project';
import { appPath, Link, navigate, useLocation } from '../../router';
import { Loading } from '../../ui';
import { asApiError, Problem } from '../model/parts';
import { ColumnsEditor, SampleRows } from './columns';
import { jobIdOf } from './jobs';
import { LoadJob } from './load-job';
import { pathOfFileId } from './storage';
import type { Guess, Prescription } from '../../../contract/guess';
import type { Dataset, JobLink } from './types';

const NAME = /^[a-z][a-z0-9_]{0,62}$/;

export function LoadFile({ uploadId }: { uploadId: string }) {
  const p = useProject();
  const loc = useLocation();
  const base = `${projectApi(p.id)}/data/guessupload/${encodeURIComponent(uploadId)}`;
  const guess = useResource<Guess>(base);
  const datasets = useResource<{ dataload: { datasets: Dataset[] } }>(
    `${projectApi(p.id)}/kodiak/dataload`,
  );
  const [rx, setRx] = useState<Prescription | undefined>();
  const [mode, setMode] = useState<'full' | 'incremental'>('full');
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const job = loc.query.get('job');
  const path = pathOfFileId(uploadId);

  useEffect(() => {
    if (guess.value) setRx(guess.value.prescription);
  }, [guess.value]);

  const change = (next: Prescription) => {
    setRx(next);
    setSaved(false);
  };

  const save = async (current: Prescription): Promise<Prescription> => {
    // `data` is the file's, not ours to send (JSON leaves undefined out).
    const r = await api<Guess>('PUT', base, { prescription: { ...current, data: undefined } });
    return { ...r.prescription, data: current.data };
  };

  const run = async (load: boolean) => {
    if (!rx) return;
    setBusy(true);
    setError(undefined);
    try {
      const next = await save(rx);
      setRx(next);
      setSaved(true);
      if (load) {
        if (!path) throw new Error('this upload has no file path to load from');
        const r = await api<JobLink>('POST', `${projectApi(p.id)}/kodiak/transform/execute`, {
          type: 'cluster',
          clusters: { [next.clustername]: { source_type: 'webdav', source: path, mode } },
        });
        navigate(`${location.pathname}?${new URLSearchParams({ job: jobIdOf(r) })}`, true);
      }
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  };

  if (guess.error)
    return (
      <>
        <Problem error={guess.error} />
        <p>
          <Link href={appPath('p', p.id, 'data', 'files')}>Back to the files</Link>
        </p>
      </>
    );
  if (!rx) return <Loading what="the structure of the file" />;
  const nameOk = NAME.test(rx.clustername);
  const names = datasets.value?.dataload.datasets.map((d) => d.name) ?? [];
  const exists = names.includes(rx.clustername);
  return (
    <div class="data-load">
      <p class="data-path">
        File <code>{path ?? uploadId}</code>
      </p>
      {job ? (
        <>
          <LoadJob id={job} prescription={rx} />
          <p>
            <button type="button" class="quiet" onClick={() => navigate(location.pathname, true)}>
              Edit the structure again
            </button>
          </p>
        </>
      ) : (
        <form
          class="data-guess"
          onSubmit={(e) => {
            e.preventDefault();
            void run(true);
          }}
        >
          <div class="data-fields">
            <div class="data-field">
              <label for="data-dataset">Dataset</label>
              <input
                id="data-dataset"
                name="dataset"
                value={rx.clustername}
                pattern="[a-z][a-z0-9_]{0,62}"
                required
                aria-invalid={!nameOk}
                aria-describedby="dataset-hint"
                onInput={(e) => change({ ...rx, clustername: e.currentTarget.value })}
              />
              <span id="dataset-hint" class="hint">
                {exists
                  ? 'A dataset of this name exists: the load replaces it (full) or adds to it (incremental).'
                  : 'Lowercase letters, digits and _, starting with a letter.'}
              </span>
            </div>
            <label>
              Mode
              <select
                name="mode"
                value={mode}
                onChange={(e) => setMode(e.currentTarget.value as 'full' | 'incremental')}
              >
                <option value="full">Full: the file replaces the dataset</option>
                <option value="incremental">Incremental: rows upserted by primary key</option>
              </select>
            </label>
          </div>
          <h2>Columns</h2>
          <ColumnsEditor rx={rx} datasets={names} onChange={change} />
          <h2>First rows</h2>
          <SampleRows rx={rx} />
          <Problem error={error} />
          {saved && !error && (
            <p class="data-ok" role="status">
              Saved for this file.
            </p>
          )}
          <div class="actions">
            <button type="submit" disabled={busy || !nameOk}>
              Load
            </button>
            <button type="button" class="quiet" disabled={busy} onClick={() => void run(false)}>
              Save structure
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
