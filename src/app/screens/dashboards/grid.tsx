// The dashboard's items on its layout grid: 12 columns placed by each item's layout (x, y, w,
// h) through CSS custom properties set on the element's style (CSSOM, which the app's CSP
// allows), one column on narrow screens. Items come in reading order: top to bottom, left
// to right.
import { useRef, useState } from 'preact/hooks';
import { ApiError } from '../../api';
import { Chart, type MarkActions } from '../../chart/chart';
import { KpiCard } from '../../chart/kpi';
import { ErrorNote } from '../../ui';
import type { DashboardItem } from '../../../contract/dashboards';
import { BreakOut, seeRows, type ExploreDrill } from './drill';
import { TextCard } from './text-card';
import { computed, DataTable, type ComputedItem, type Drill } from './table';
import { PivotView } from './pivot';

/**
 * Where an item's data downloads (the API's item route with the dashboard's filters); `png`:
 * its chart drawn as on the page (…/items/{item}/chart.png).
 */
export type ItemData = (item: DashboardItem, format: 'csv' | 'xlsx' | 'png') => string;

export function Grid({
  items,
  data,
  drill,
  explore,
}: {
  items: DashboardItem[];
  data?: ItemData;
  drill?: Drill;
  /** Drilling into Explore from a chart's marks (a dashboard in the app, not a public page). */
  explore?: ExploreDrill;
}) {
  if (!items.length) return <p class="muted">This dashboard has no items you can see.</p>;
  const ordered = [...items].sort((a, b) => a.layout.y - b.layout.y || a.layout.x - b.layout.x);
  return (
    <div class="dash-grid">
      {ordered.map((item) => (
        <Item key={item.id} item={item} data={data} drill={drill} explore={explore} />
      ))}
    </div>
  );
}

function Item({
  item,
  data,
  drill,
  explore,
}: {
  item: DashboardItem;
  data?: ItemData;
  drill?: Drill;
  explore?: ExploreDrill;
}) {
  const { x, y, w, h } = item.layout;
  const heading = `dash-item-${item.id}`;
  return (
    <section
      class="dash-item card"
      aria-labelledby={heading}
      data-item={item.id}
      style={{
        '--x': String(x + 1),
        '--y': String(y + 1),
        '--w': String(w),
        '--h': String(h),
      }}
    >
      {item.title ? (
        <h2 id={heading}>{item.title}</h2>
      ) : (
        <h2 class="sr-only" id={heading}>
          Text
        </h2>
      )}
      <ItemBody item={item} drill={drill} explore={explore} />
      {data && item.report && !item.error && (
        <p class="dash-downloads">
          Download<span class="sr-only"> {item.title}</span>:{' '}
          <a href={data(item, 'csv')} download>
            CSV<span class="sr-only"> of {item.title}</span>
          </a>{' '}
          ·{' '}
          <a href={data(item, 'xlsx')} download>
            XLSX<span class="sr-only"> of {item.title}</span>
          </a>
          {item.chart && (
            <>
              {' '}
              ·{' '}
              <a href={data(item, 'png')} download>
                PNG<span class="sr-only"> of {item.title}</span>
              </a>
            </>
          )}
        </p>
      )}
      {item.warnings?.map((w) => (
        <p key={w.message} class="muted dash-warning">
          {w.message}
        </p>
      ))}
    </section>
  );
}

export function ItemBody({
  item,
  drill,
  explore,
}: {
  item: DashboardItem;
  drill?: Drill;
  explore?: ExploreDrill;
}) {
  if (item.text !== undefined) return <TextCard text={item.text} />;
  if (item.error || !computed(item))
    return (
      <p class="error dash-item-error">
        This item could not be shown: {item.error ?? 'it has no result'}
      </p>
    );
  if (item.kpi) return <KpiCard kpi={item.kpi} />;
  if (item.chart)
    return <ItemChart item={item} chart={item.chart} drill={drill} explore={explore} />;
  if (item.pivot) return <PivotView pivot={item.pivot} title={item.title} />;
  return <DataTable item={item} drill={drill} />;
}

function ItemChart({
  item,
  chart,
  drill,
  explore,
}: {
  item: ComputedItem;
  chart: NonNullable<DashboardItem['chart']>;
  drill?: Drill;
  explore?: ExploreDrill;
}) {
  const data = useRef<HTMLDetailsElement>(null);
  const [breakOut, setBreakOut] = useState<{ values: Record<string, string>; label: string }>();
  const [error, setError] = useState<ApiError>();
  // Said only when a value of the chart's data can filter the dashboard.
  const drills = Boolean(drill && item.columns.some((c) => drill({ [c.title]: '' })));
  // A mark's menu: filter the dashboard by its values (when it has a filter for them), see
  // the rows behind it or break it out in Explore, or read them in the chart's data.
  const actions: MarkActions = (values, label) => {
    const go = drill?.(values);
    const x = explore && item.report ? explore : undefined;
    return [
      ...(go ? [{ label: `Filter the dashboard by ${label}`, run: go }] : []),
      ...(x
        ? [
            {
              label: 'See the rows behind it',
              run: () => {
                setError(undefined);
                seeRows(x, item, values).catch((e: unknown) =>
                  setError(e instanceof ApiError ? e : new ApiError(0, String(e))),
                );
              },
            },
            { label: 'Break out by…', run: () => setBreakOut({ values, label }) },
          ]
        : []),
      {
        label: 'Show the chart’s data',
        run: () => {
          if (data.current) data.current.open = true;
          data.current?.querySelector('summary')?.focus();
        },
      },
    ];
  };
  return (
    <>
      <Chart spec={chart.spec} svg={chart.svg} title={item.title} actions={actions} />
      <ErrorNote error={error} />
      {breakOut && explore && (
        <BreakOut
          drill={explore}
          item={item}
          values={breakOut.values}
          label={breakOut.label}
          onClose={() => setBreakOut(undefined)}
        />
      )}
      <details class="dash-data" ref={data}>
        <summary>The chart’s data{drills ? ': click a value to filter by it' : ''}</summary>
        <DataTable item={item} drill={drill} />
      </details>
    </>
  );
}
