// The Datasets tab: every dataset the member may read (GET kodiak/dataload) with its rows,
// columns, key and source, and its latest load (GET activity/loads?latest=1): when, by whom,
// how many rows, in which mode. Each opens its page (columns and first rows, preview.tsx)
// and links to Explore with a query on it.
import { formatNumber } from '../../format';
import { projectApi } from '../../api';
import { useResource } from '../../data';
import { useProject } from '../../project';
import { appPath, Link } from '../../router';
import { Loading } from '../../ui';
import { Problem, When } from '../model/parts';
import { countQuery, exploreHref } from './aql';
import type { Dataset, LoadEvent } from './types';

export function Datasets() {
  const p = useProject();
  const list = useResource<{ dataload: { dataVersion: number; datasets: Dataset[] } }>(
    `${projectApi(p.id)}/kodiak/dataload`,
  );
  const loads = useResource<{ loads: LoadEvent[] }>(`${projectApi(p.id)}/activity/loads?latest=1`);
  const latest = new Map((loads.value?.loads ?? []).map((l) => [l.detail.dataset, l]));
  const datasets = list.value?.dataload.datasets;
  return (
    <section aria-labelledby="datasets-title">
      <h2 id="datasets-title">Datasets</h2>
      <Problem error={list.error ?? loads.error} />
      {!datasets ? (
        !list.error && <Loading what="the datasets" />
      ) : datasets.length === 0 ? (
        <p class="muted">No datasets yet: upload a CSV file and load it.</p>
      ) : (
        <div class="data-table-wrap">
          <table class="data-table data-datasets">
            <thead>
              <tr>
                <th scope="col">Dataset</th>
                <th scope="col" class="num">
                  Rows
                </th>
                <th scope="col" class="num">
                  Columns
                </th>
                <th scope="col">Key</th>
                <th scope="col">Source</th>
                <th scope="col">Last load</th>
              </tr>
            </thead>
            <tbody>
              {datasets.map((d) => {
                const l = latest.get(d.name);
                return (
                  <tr key={d.name} data-dataset={d.name}>
                    <th scope="row">
                      {/* COUNT([dataset.…]) counts rows with a primary key or without. */}
                      <Link href={appPath('p', p.id, 'data', 'datasets', d.name)}>{d.name}</Link>
                      <span class="data-explore">
                        {' · '}
                        <Link href={exploreHref(p.id, countQuery(d.name))}>
                          Explore<span class="sr-only"> {d.name}</span>
                        </Link>
                      </span>
                    </th>
                    <td class="num data-rows">
                      {d.rowsEstimated && (
                        <abbr title="PostgreSQL's estimate" class="muted">
                          ≈{' '}
                        </abbr>
                      )}
                      <Count n={d.rows} />
                    </td>
                    <td class="num">
                      <Count n={d.columns} />
                    </td>
                    <td>
                      <code>{d.primaryKey || '—'}</code>
                    </td>
                    <td class="data-source">{d.source ?? '—'}</td>
                    <td>
                      {!l ? (
                        <When iso={d.loaded} />
                      ) : l.detail.mode === 'map' ? (
                        // A warehouse table mapped in place: nothing was loaded, nothing counted.
                        <>
                          <When iso={l.time} /> · {l.user} · mapped
                        </>
                      ) : (
                        <>
                          <When iso={l.time} /> · {l.user} · <Count n={l.detail.rowsLoaded} /> rows
                          ({l.detail.mode})
                        </>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** A count, in the one format of this table; null is hidden by the reader's row filter. */
function Count({ n }: { n: number | null }) {
  return n === null ? (
    <span class="muted" title="Hidden under your row filter">
      hidden
    </span>
  ) : (
    <>{formatNumber(n)}</>
  );
}
