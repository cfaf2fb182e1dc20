// The result's chart in Explore, drawn as its report will be: the question and the picked
// visualization go to POST app/reports/execute, which answers what GET app/reports/{id} would
// for a saved report of them (the same chart spec and SVG, KPI or pivot), drawn by the shared
// renderer (src/app/chart: a tooltip on every mark, a menu on a click: the rows behind it, a
// break-out). A listing of rows, or a pick of "Table", is the table below alone.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiError, projectApi } from '../../api';
import { Chart, type MarkActions } from '../../chart/chart';
import { KpiCard } from '../../chart/kpi';
import type { DrillObject } from '../../chart/drill';
import { ErrorNote, Loading } from '../../ui';
import type { ReportResult } from '../../../contract/dashboards';
import { BreakOut, seeRows, type DrillItem, type ExploreDrill } from '../dashboards/drill';
import { PivotView } from '../dashboards/pivot';
import { autoChoice, nestedChartSource, nestedSpec } from './chart-data';
import { PivotPicker, fitPlan, type PivotPlan, type PlanInput } from './pivot-picker';
import type { QueryResult } from './query';
import { choiceOf, visualizationOf, VisualizationPicker, type Visualization } from './save';

/** A saved report's visualization, opened in Explore: what its chart starts as. */
export type Preset = { type: string; stack?: unknown } & Record<string, unknown>;

/** What Explore shows: the choice, and its own keys (a pivot's rows, columns, measures). */
export interface Shown {
  choice: Visualization;
  keys: Record<string, unknown>;
}

/** A preset's pivot placement (titles, or 1-based positions fitPlan reads). */
function presetPlan(preset: Preset | undefined): PlanInput {
  if (preset?.type !== 'pivot') return {};
  const list = (v: unknown) =>
    v === undefined ? undefined : (Array.isArray(v) ? v : [v]).map((r) => r as string | number);
  return { rows: list(preset.rows), columns: list(preset.columns), y: list(preset.y) };
}

/** A preset's own keys (x, y, colour, a gauge's scale…): the report's chart, not the default. */
function presetKeys(preset: Preset | undefined): Record<string, unknown> {
  if (!preset || preset.type === 'pivot' || preset.type === 'table') return {};
  const { type: _type, stack: _stack, ...keys } = preset;
  return keys;
}

const NESTED_MARKS = new Set(['bar', 'line', 'area']);

export function ResultChart(props: {
  project: string;
  result: QueryResult & { aql: string };
  title: string;
  objects: DrillObject[];
  preset?: Preset;
  onShown?: (shown: Shown) => void;
}) {
  const { project, result } = props;
  const preset = props.preset ? choiceOf(props.preset) : null;
  const [picked, setPicked] = useState<Visualization | null>(preset);
  const [plan, setPlan] = useState<PlanInput>(() => presetPlan(props.preset));
  const auto = autoChoice(result.columns, result.rows, props.objects);
  const choice = picked ?? auto;
  const pivot = choice === 'pivot' ? fitPlan(plan, result.columns) : null;
  // The opened report's own keys while its choice is kept: Explore draws the report's chart.
  const own = choice === preset ? presetKeys(props.preset) : {};
  const keys = useMemo(
    () => (pivot ? { rows: pivot.rows, columns: pivot.columns, y: pivot.y } : own),
    [JSON.stringify(pivot), JSON.stringify(own)],
  );
  const { onShown } = props;
  useEffect(() => onShown?.({ choice, keys }), [choice, keys, onShown]);

  // A NEST result's chart is its nested rows (no report draws those): drawn here.
  const nested = useMemo(() => {
    const src = nestedChartSource(result.columns, result.rows);
    const mark = visualizationOf(choice).type;
    return src && NESTED_MARKS.has(mark) ? nestedSpec(src, mark as 'bar') : null;
  }, [result, choice]);
  const asked =
    choice === 'table' || nested || (pivot && !pivot.y.length)
      ? null
      : JSON.stringify({ aql: result.aql, visualization: { ...visualizationOf(choice), ...keys } });
  const [answer, setAnswer] = useState<{
    asked: string;
    report?: ReportResult;
    error?: ApiError;
  }>();
  useEffect(() => {
    if (!asked) return;
    let live = true;
    api<ReportResult>(
      'POST',
      `${projectApi(project)}/app/reports/execute?limit=1`,
      JSON.parse(asked),
    )
      .then((report) => live && setAnswer({ asked, report }))
      .catch(
        (e: unknown) =>
          live &&
          setAnswer({ asked, error: e instanceof ApiError ? e : new ApiError(0, String(e)) }),
      );
    return () => {
      live = false;
    };
  }, [project, asked]);
  const current = answer && answer.asked === asked ? answer : undefined;
  // While the next answer comes, the last drawing stays (marked busy, its menu off): the
  // chart does not blink at every change of the question.
  const stale = Boolean(asked && !current && answer?.report);
  const drawn = asked ? (current ?? answer) : undefined;

  // A mark's menu: the rows behind it, or the question broken out by one more attribute.
  const [breakOut, setBreakOut] = useState<{ values: Record<string, string>; label: string }>();
  const [drillError, setDrillError] = useState<ApiError>();
  useEffect(() => setBreakOut(undefined), [result.aql]);
  const drill: ExploreDrill = { project, filters: [], objects: props.objects };
  const item: DrillItem = {
    id: 'explore',
    columns: current?.report?.columns ?? [],
    aql: result.aql,
  };
  const actions: MarkActions = (values, label) => [
    {
      label: 'See the rows behind it',
      run: () => {
        setDrillError(undefined);
        seeRows(drill, item, values).catch((e: unknown) =>
          setDrillError(e instanceof ApiError ? e : new ApiError(0, String(e))),
        );
      },
    },
    { label: 'Break out by…', run: () => setBreakOut({ values, label }) },
  ];

  const report = drawn?.report;
  return (
    <div class="explore-chart">
      <VisualizationPicker
        id="explore-visualization"
        label="Chart"
        value={choice}
        onChange={(v) => {
          setPicked(v);
          setBreakOut(undefined);
        }}
      />
      {pivot && (
        <PivotPicker
          columns={result.columns}
          plan={pivot}
          onChange={(p: PivotPlan) => setPlan(p)}
        />
      )}
      {pivot && !pivot.y.length && (
        <p class="muted">
          {result.columns.some((c) => c.kind === 'measure')
            ? 'Tick a measure to show.'
            : 'A pivot shows measures: add one to the question.'}
        </p>
      )}
      {nested && <Chart spec={nested} title={props.title} />}
      {asked && !current && !stale && <Loading what="the chart" />}
      <ErrorNote error={current?.error ?? drillError} />
      <div class="explore-shown" aria-busy={stale}>
        {report?.chart ? (
          <Chart
            key={drawn!.asked}
            spec={report.chart.spec}
            svg={report.chart.svg}
            title={props.title}
            actions={stale ? undefined : actions}
          />
        ) : report?.kpi ? (
          <KpiCard kpi={report.kpi} />
        ) : report?.pivot ? (
          <PivotView pivot={report.pivot} title={props.title} />
        ) : null}
      </div>
      {breakOut && report?.chart && !stale && (
        <BreakOut
          drill={drill}
          item={item}
          values={breakOut.values}
          label={breakOut.label}
          onClose={() => setBreakOut(undefined)}
        />
      )}
    </div>
  );
}
