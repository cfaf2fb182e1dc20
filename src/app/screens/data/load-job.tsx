// A load job followed to its end: a progress bar from the job's `progress.percentage`, then
// the rows loaded and a link to Explore with a query on the dataset, or the API's message.
import { useProject } from '../../project';
import { appPath, Link } from '../../router';
import { Problem } from '../model/parts';
import { useEffect, useState } from 'preact/hooks';
import { datasetQuery, exploreHref, firstBreakdown } from './aql';
import { useJob } from './jobs';
import type { Prescription } from '../../../contract/guess';

export function LoadJob(props: { id: string; prescription: Prescription }) {
  const p = useProject();
  const { job, error } = useJob(p.id, props.id);
  const ds = props.prescription.clustername;
  const status = job?.status ?? 'PREPARED';
  const percent = Math.round(job?.progress?.percentage ?? (status === 'OK' ? 100 : 0));
  const result = job?.result?.clusters?.[ds];
  // Once loaded, the first question asked in Explore: counted by an attribute of few values.
  const [first, setFirst] = useState<string | null>(null);
  const loaded = status === 'OK';
  const { prescription } = props;
  useEffect(() => {
    if (!loaded) return;
    let live = true;
    void firstBreakdown(p.id, prescription).then(
      (b) => live && setFirst(datasetQuery(prescription, b)),
    );
    return () => {
      live = false;
    };
  }, [loaded, p.id, prescription]);
  return (
    <section class={`card data-job ${status.toLowerCase()}`} aria-labelledby="job-title">
      <h2 id="job-title">Loading {ds}</h2>
      <Problem error={error} />
      <progress max={100} value={percent} aria-label={`Load of ${ds}: ${percent} %`} />
      <p role="status" class="data-job-status">
        <span class="badge">{status}</span> {percent} %
      </p>
      {status === 'ERROR' && (
        <p class="error" role="alert">
          {job?.message ?? 'The load failed.'}
        </p>
      )}
      {status === 'CANCELLED' && <p role="alert">The load was cancelled: nothing changed.</p>}
      {status === 'OK' && (
        <>
          <p class="data-job-result">
            {!result
              ? `Dataset “${ds}” is loaded.`
              : // The counts are over every row: withheld (null) from a reader with a row filter.
                result.loaded == null || result.rows === null
                ? `Dataset “${ds}” is loaded (${result.mode}); its row counts are hidden under your row-level filter.`
                : `Loaded ${result.loaded} rows into dataset “${ds}” (${result.mode}); it holds ${result.rows} rows.`}
          </p>
          <div class="actions">
            <Link class="button" href={exploreHref(p.id, first ?? datasetQuery(prescription))}>
              Explore {ds}
            </Link>
            <Link class="button quiet" href={appPath('p', p.id, 'data', 'datasets')}>
              All datasets
            </Link>
          </div>
        </>
      )}
    </section>
  );
}
