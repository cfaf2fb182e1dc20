// Saving the query that ran (MD Admins: POST pmd/obj needs that level): as a metric (a query
// of one measure, `SELECT …`) or as a report with a visualization.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, projectApi } from '../../api';
import { ErrorNote } from '../../ui';
import { Field } from './field';

export const VISUALIZATIONS = [
  ['table', 'Table'],
  ['bar', 'Bar chart'],
  ['bar-stacked', 'Stacked bars'],
  ['bar-percent', '100% stacked bars'],
  ['line', 'Line chart'],
  ['area', 'Area chart'],
  ['area-stacked', 'Stacked areas'],
  ['combo', 'Bars and line (combo)'],
  ['pie', 'Pie chart'],
  ['funnel', 'Funnel'],
  ['scatter', 'Scatter plot'],
  ['kpi', 'Number (KPI)'],
  ['gauge', 'Gauge'],
  ['map', 'Map'],
  ['pivot', 'Pivot table'],
] as const;
/** A choice of the picker: a visualization type, or a type with its stacking. */
export type Visualization = (typeof VISUALIZATIONS)[number][0];

/** The report's `visualization` keys a choice sets (a stacked choice is a type and `stack`). */
export function visualizationOf(v: Visualization): { type: string; stack?: string } {
  const [type, stack] = v.split('-') as [string, string | undefined];
  return stack ? { type, stack: stack === 'percent' ? 'percent' : 'normal' } : { type };
}

/** The picker's choice of a report's visualization. */
export function choiceOf(vis: { type: string; stack?: unknown }): Visualization {
  const key =
    vis.stack === 'percent' ? `${vis.type}-percent` : vis.stack ? `${vis.type}-stacked` : vis.type;
  return (
    (VISUALIZATIONS.find(([v]) => v === key) ??
      VISUALIZATIONS.find(([v]) => v === vis.type))?.[0] ?? 'table'
  );
}

export interface Saved {
  ident: string;
  name: string;
  /** A report showing one number: it gets a small cell on a dashboard. */
  kpi?: boolean;
}

interface Created {
  objects: { ident: string; name: string }[];
}

/** Whether the API's error is about the name (a title taken: 409 at `name`). */
export const nameError = (e: ApiError | undefined) =>
  !!e && (e.status === 409 || e.context.field === 'name');

/** A name input with the API's refusal of the name shown at it. */
export function NameField(props: {
  id: string;
  label: string;
  value: string;
  onInput: (v: string) => void;
  error: ApiError | undefined;
}) {
  const bad = nameError(props.error);
  return (
    <Field id={props.id} label={props.label}>
      <input
        id={props.id}
        value={props.value}
        required
        maxLength={255}
        aria-invalid={bad || undefined}
        aria-describedby={bad ? `${props.id}-error` : undefined}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
      {bad && (
        <p id={`${props.id}-error`} class="error" role="alert">
          {props.error!.message}
        </p>
      )}
    </Field>
  );
}

/** Submits `run`, showing its error; answers whether it went through. */
export function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const submit = async (run: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await run();
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, String(e)));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, submit };
}

const create = (project: string, object: unknown) =>
  api<Created>('POST', `${projectApi(project)}/pmd/obj`, object).then((r) => r.objects[0]!);

export function SaveMetric(props: { project: string; aql: string; onSaved: (m: Saved) => void }) {
  const [name, setName] = useState('');
  const [format, setFormat] = useState('');
  const [saved, setSaved] = useState<Saved>();
  const s = useSubmit();
  const onSubmit = (e: Event) => {
    e.preventDefault();
    void s.submit(async () => {
      const o = await create(props.project, {
        type: 'metric',
        name: name.trim(),
        def: { aql: props.aql, ...(format.trim() ? { format: format.trim() } : {}) },
      });
      setSaved(o);
      props.onSaved(o);
    });
  };
  return (
    <form class="card explore-save" onSubmit={onSubmit} aria-labelledby="save-metric-h">
      <h3 id="save-metric-h">Save as metric</h3>
      <p class="muted">A metric is one measure: SELECT SUM([Distance]), optionally with WHERE.</p>
      <Field id="metric-name" label="Metric name">
        <input
          id="metric-name"
          value={name}
          required
          maxLength={255}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </Field>
      <Field id="metric-format" label="Number format (optional)">
        <input
          id="metric-format"
          value={format}
          maxLength={100}
          placeholder="#,##0.00"
          onInput={(e) => setFormat(e.currentTarget.value)}
        />
      </Field>
      <button type="submit" disabled={s.busy}>
        Save metric
      </button>
      <ErrorNote error={s.error} />
      {saved && <p role="status">Saved: write [{saved.name}] in queries.</p>}
    </form>
  );
}

export function SaveReport(props: {
  project: string;
  aql: string;
  /** The chart shown in Explore: what the report shows unless another is picked here. */
  chart?: Visualization;
  /** The shown chart's own keys (a pivot's rows, columns and measures), saved with it. */
  keys?: Record<string, unknown>;
  onSaved: (r: Saved) => void;
}) {
  const [name, setName] = useState('');
  const [type, setType] = useState<Visualization>(props.chart ?? 'bar');
  useEffect(() => {
    if (props.chart) setType(props.chart);
  }, [props.chart]);
  const s = useSubmit();
  const onSubmit = (e: Event) => {
    e.preventDefault();
    void s.submit(async () => {
      const o = await create(props.project, {
        type: 'report',
        name: name.trim(),
        def: {
          aql: props.aql,
          visualization: {
            ...visualizationOf(type),
            ...(type === props.chart ? (props.keys ?? {}) : {}),
          },
        },
      });
      props.onSaved({ ...o, kpi: type === 'kpi' });
    });
  };
  return (
    <form class="card explore-save" onSubmit={onSubmit} aria-labelledby="save-report-h">
      <h3 id="save-report-h">Save as report</h3>
      <p class="muted">
        Saves the query with a chart, table or number; then add it to a dashboard.
      </p>
      <NameField
        id="report-name"
        label="Report name"
        value={name}
        onInput={setName}
        error={s.error}
      />
      <VisualizationPicker id="report-visualization" value={type} onChange={setType} />
      <button type="submit" disabled={s.busy}>
        Save report
      </button>
      <ErrorNote error={nameError(s.error) ? undefined : s.error} />
    </form>
  );
}

export function VisualizationPicker(props: {
  id: string;
  /** "Visualization" unless said. */
  label?: string;
  value: Visualization;
  onChange: (v: Visualization) => void;
  disabled?: boolean;
}) {
  return (
    <Field id={props.id} label={props.label ?? 'Visualization'}>
      <select
        id={props.id}
        value={props.value}
        disabled={props.disabled}
        onChange={(e) => props.onChange(e.currentTarget.value as Visualization)}
      >
        {VISUALIZATIONS.map(([v, title]) => (
          <option key={v} value={v}>
            {title}
          </option>
        ))}
      </select>
    </Field>
  );
}
