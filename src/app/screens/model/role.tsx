// A column's role from its Model page (an attribute to group and filter by, or a fact to sum
// and average). Attributes and facts are made by loads: PUT pmd/obj cannot change an object's
// type (400), so this does what the Data screen's load does — the prescription saved for the
// file the dataset was loaded from (GET data/guessupload/{fileId}), that column's objectType
// changed and saved (PUT: the API's checks, a fact that is not numeric or a primary key made
// a fact → 400, shown here), and the file loaded again in full (transform/execute), the job
// followed to its end. The column's object then has the other type and identifier
// (attr.<dataset>.<column> ↔ fact.<dataset>.<column>), which opens.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, get, projectApi, type ApiError } from '../../api';
import { useResource } from '../../data';
import { navigate } from '../../router';
import { jobIdOf, useJob } from '../data/jobs';
import { fileIdOf } from '../data/storage';
import type { Dataset, JobLink } from '../data/types';
import type { Guess } from '../../../contract/guess';
import type { ModelObject } from '../../../contract/model';
import { objectHref } from './definition';
import { asApiError, Problem } from './parts';

const ROLES = {
  attribute: { kind: 'A', word: 'an attribute', hint: 'grouped and filtered by' },
  fact: { kind: 'F', word: 'a fact', hint: 'numbers summed, averaged and counted' },
} as const;
type Role = keyof typeof ROLES;

export const hasRole = (o: ModelObject): boolean =>
  (o.type === 'attribute' || o.type === 'fact') &&
  typeof o.def.dataset === 'string' &&
  typeof o.def.column === 'string';

export function ColumnRole({ project, o }: { project: string; o: ModelObject }) {
  const dataset = o.def.dataset as string;
  const column = o.def.column as string;
  const role = o.type as Role;
  const other: Role = role === 'attribute' ? 'fact' : 'attribute';
  const load = useResource<{ dataload: { datasets: Dataset[] } }>(
    `${projectApi(project)}/kodiak/dataload`,
  );
  const source = load.value?.dataload.datasets.find((d) => d.name === dataset)?.source ?? null;
  const [error, setError] = useState<ApiError | undefined>();
  const [busy, setBusy] = useState(false);
  const [jobId, setJobId] = useState<string | null>(null);
  const { job, error: jobError } = useJob(project, jobId);
  const after = `${other === 'fact' ? 'fact' : 'attr'}.${dataset}.${column}`;
  // The structure saved for the file before the change: put back when the load fails.
  const before = useRef<{ path: string; body: unknown } | null>(null);
  const status = job?.status;
  useEffect(() => {
    if (status === 'OK') navigate(objectHref(project, after), true);
    const saved = before.current;
    if ((status === 'ERROR' || status === 'CANCELLED') && saved) {
      before.current = null;
      void api('PUT', saved.path, saved.body).catch((e: unknown) => setError(asApiError(e)));
    }
  }, [status, project, after]);

  const change = async (e: Event) => {
    e.preventDefault();
    if (!source) return;
    setBusy(true);
    setError(undefined);
    try {
      const guess = `${projectApi(project)}/data/guessupload/${encodeURIComponent(fileIdOf(source))}`;
      const { prescription } = await get<Guess>(guess);
      if (
        prescription.clustername !== dataset ||
        !prescription.columns.some((c) => c.id === column)
      )
        throw new Error(
          `the structure saved for ${source} is not dataset “${dataset}” with column “${column}”: change it on the Data screen`,
        );
      const columns = prescription.columns.map((c) =>
        c.id === column ? { ...c, objectType: ROLES[other].kind } : c,
      );
      // `data` is the file's, not ours to send; the API checks the rest (400 with its reason).
      await api('PUT', guess, { prescription: { ...prescription, columns, data: undefined } });
      before.current = {
        path: guess,
        body: { prescription: { ...prescription, data: undefined } },
      };
      const r = await api<JobLink>('POST', `${projectApi(project)}/kodiak/transform/execute`, {
        type: 'cluster',
        clusters: { [dataset]: { source_type: 'webdav', source, mode: 'full' } },
      });
      setJobId(jobIdOf(r));
    } catch (err) {
      setError(asApiError(err));
      // Saved but not loaded (the load refused): the file's structure as it was.
      const saved = before.current;
      before.current = null;
      if (saved) await api('PUT', saved.path, saved.body).catch(() => undefined);
    } finally {
      setBusy(false);
    }
  };

  const running = jobId !== null && (!job || !['OK', 'ERROR', 'CANCELLED'].includes(job.status));
  return (
    <section class="model-role" aria-labelledby="model-role-h">
      <h2 id="model-role-h">Role</h2>
      <p>
        Column <code>{column}</code> of dataset <code>{dataset}</code> is {ROLES[role].word} (
        {ROLES[role].hint}).
      </p>
      {load.value && !source?.startsWith('/') ? (
        <p class="muted">
          Its dataset was not loaded from a file in the project’s storage
          {source ? ` (${source})` : ''}: its columns’ roles are set where it is loaded.
        </p>
      ) : (
        <form aria-label="Change the role" onSubmit={(e) => void change(e)}>
          <p class="muted">
            Making it {ROLES[other].word} loads <code>{source ?? '…'}</code> into{' '}
            <code>{dataset}</code> again (in full) with this column as {ROLES[other].word}; what
            uses it as {ROLES[role].word} stops working.
          </p>
          <button type="submit" disabled={busy || running || !source}>
            Make it {ROLES[other].word}
          </button>
        </form>
      )}
      <Problem error={error ?? jobError ?? load.error} />
      {running && (
        <p role="status">
          Loading {dataset} again: {job?.status ?? 'starting'}{' '}
          {job?.progress?.percentage !== undefined
            ? `${Math.round(job.progress.percentage)} %`
            : ''}
        </p>
      )}
      {job?.status === 'ERROR' && (
        <p class="error" role="alert">
          The load failed, so the column is still {ROLES[role].word}:{' '}
          {job.message ?? 'no reason given'}
        </p>
      )}
    </section>
  );
}
