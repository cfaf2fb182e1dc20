// A dataset's page in the data browser (/data/datasets/{name}): its columns (role, type,
// key) and its first rows, computed by the engine as the reader (their row-level filter
// applies): the AQL of preview-aql.ts through app/aql/execute, also offered in Explore.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, projectApi } from '../../api';
import { useResource } from '../../data';
import { formatNumber } from '../../format';
import { useProject } from '../../project';
import { appPath, Link } from '../../router';
import { ErrorNote, Loading } from '../../ui';
import { runQuery, type QueryResult } from '../explore/query';
import { Problem } from '../model/parts';
import { exploreHref } from './aql';
import { PREVIEW_ROWS, previewQuery, type LdmDataset } from './preview-aql';

const ROLE = { attribute: 'Attribute', label: 'Label', fact: 'Fact' } as const;

export function DatasetPreview({ name }: { name: string }) {
  const p = useProject();
  const ldm = useResource<{ datasets: LdmDataset[] }>(`${projectApi(p.id)}/pmd/graph/ldm`);
  const ds = ldm.value?.datasets.find((d) => d.name === name);
  const aql = ds ? previewQuery(ds) : null;
  return (
    <section aria-labelledby="preview-title" class="data-preview">
      <p class="crumbs">
        <Link href={appPath('p', p.id, 'data', 'datasets')}>Datasets</Link> › {name}
      </p>
      <h2 id="preview-title">Dataset {name}</h2>
      <Problem error={ldm.error} />
      {!ldm.value && !ldm.error && <Loading what="the dataset" />}
      {ldm.value && !ds && (
        <p role="alert">There is no dataset “{name}” in this project, or you may not read it.</p>
      )}
      {ds && (
        <>
          <h3>Columns</h3>
          <div class="data-table-wrap">
            <table class="data-table" aria-label="Columns">
              <thead>
                <tr>
                  <th scope="col">Title</th>
                  <th scope="col">Role</th>
                  <th scope="col">Type</th>
                  <th scope="col">Identifier</th>
                </tr>
              </thead>
              <tbody>
                {ds.columns.map((c) => (
                  <tr key={c.ident}>
                    <th scope="row">
                      <Link href={appPath('p', p.id, 'model', c.ident)}>{c.name}</Link>
                    </th>
                    <td>
                      {ROLE[c.type]}
                      {c.primaryKey && ' (key)'}
                    </td>
                    <td>{c.dataType}</td>
                    <td>
                      <code>{c.ident}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h3>First rows</h3>
          {aql ? (
            <Rows key={aql} aql={aql} keyed={ds.primaryKey !== null} />
          ) : (
            <p class="muted">It has no attribute you may read to list its rows by.</p>
          )}
        </>
      )}
    </section>
  );
}

function Rows({ aql, keyed }: { aql: string; keyed: boolean }) {
  const p = useProject();
  const [result, setResult] = useState<QueryResult | null>(null);
  const [error, setError] = useState<ApiError>();
  useEffect(() => {
    let live = true;
    runQuery(p.id, aql, () => !live).then(
      (r) => live && r && setResult(r),
      (e: unknown) => live && setError(e instanceof ApiError ? e : new ApiError(0, String(e))),
    );
    return () => {
      live = false;
    };
  }, [p.id, aql]);
  return (
    <>
      <p class="muted">
        The first {PREVIEW_ROWS} rows
        {keyed ? ', by key' : ' (rows alike shown once, their facts summed)'}, as you may read them.{' '}
        <Link href={exploreHref(p.id, aql)}>Open in Explore</Link>
      </p>
      <ErrorNote error={error} />
      {!result && !error && <Loading what="the rows" />}
      {result && result.rows.length === 0 && <p class="muted">No rows.</p>}
      {result && result.rows.length > 0 && (
        <div class="data-table-wrap" tabIndex={0} role="region" aria-label="First rows">
          <table class="data-table data-rows-preview">
            <thead>
              <tr>
                {result.columns.map((c, i) => (
                  <th key={i} scope="col" class={c.kind === 'measure' ? 'num' : undefined}>
                    {c.title}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {result.rows.map((r, i) => (
                <tr key={i}>
                  {result.columns.map((c, j) => (
                    <td key={j} class={c.kind === 'measure' ? 'num' : undefined}>
                      {c.kind === 'measure' && r[j] ? formatNumber(r[j]) : r[j]}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
