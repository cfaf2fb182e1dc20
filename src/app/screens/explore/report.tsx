// A report saved from this screen, drawn by the server: GET app/reports/{id} answers its
// chart as SVG (shown as an image), its number, or its table. The picker changes the
// report's visualization (PUT pmd/obj/{id}) and draws it again.
import { chartDataUrl } from '../../chart-svg';
import { useState } from 'preact/hooks';
import { api, ApiError, get, projectApi, API } from '../../api';
import { useResource } from '../../data';
import { ErrorNote, Loading } from '../../ui';
import { AddToDashboard } from './add-to-dashboard';
import { KpiCard } from '../../chart/kpi';
import {
  choiceOf,
  visualizationOf,
  VisualizationPicker,
  VISUALIZATIONS,
  type Saved,
  type Visualization,
} from './save';
import type { ReportResult } from '../../../contract/dashboards';
import type { ConditionalRule } from '../../../shared/conditional';
import { PivotView } from '../dashboards/pivot';
import { DataTable } from '../dashboards/table';
import { ConditionalEditor } from './conditional';

const NUMBERS = new Set(['integer', 'number']);
const layout = { x: 0, y: 0, w: 12, h: 5 };

type ReportJson = ReportResult & {
  report: {
    ident: string;
    name: string;
    visualization: { type: string; stack?: unknown; conditional?: ConditionalRule[] };
  };
};

/** Rows a table report's preview shows (its page and dashboards show more). */
const PREVIEW_ROWS = 10;

interface ObjectJson {
  object: { def: { aql: string; visualization: Record<string, unknown> } };
}

export function SavedReport({ project, report }: { project: string; report: Saved }) {
  const id = encodeURIComponent(report.ident);
  const r = useResource<ReportJson>(
    `${projectApi(project)}/app/reports/${id}?limit=${PREVIEW_ROWS}`,
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const type = r.value && choiceOf(r.value.report.visualization);
  const title = VISUALIZATIONS.find(([v]) => v === type)?.[1] ?? '';

  /** Changes the report's visualization (type, conditional formatting) and draws it again. */
  const update = async (patch: (v: Record<string, unknown>) => Record<string, unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      const path = `${projectApi(project)}/pmd/obj/${id}`;
      const { object } = await get<ObjectJson>(path);
      const def = { ...object.def, visualization: patch(object.def.visualization) };
      await api('PUT', path, { ...object, def });
      r.reload();
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, String(e)));
    } finally {
      setBusy(false);
    }
  };

  const v = r.value;
  return (
    <section class="card explore-report" aria-labelledby="explore-report-h">
      <h3 id="explore-report-h">Report “{report.name}”</h3>
      <div class="explore-bar">
        {type && (
          <VisualizationPicker
            id="saved-visualization"
            value={type}
            // A new choice replaces the type and its stacking; the other keys stay, but
            // conditional formatting belongs to a table: another type leaves it out.
            onChange={(t: Visualization) =>
              void update(({ conditional: _, stack: _stack, ...v }) => ({
                ...v,
                ...(t === 'table' && _ !== undefined ? { conditional: _ } : {}),
                ...visualizationOf(t),
              }))
            }
            disabled={busy}
          />
        )}
        <a href={`${API}${projectApi(project)}/app/reports/${id}`} target="_blank" rel="noopener">
          Open the report page
        </a>
      </div>
      <ErrorNote error={error ?? r.error} />
      {!v && !r.error && <Loading what="the report" />}
      {v && (
        <div class="explore-drawn" aria-busy={r.loading || busy}>
          {v.chart ? (
            <img
              src={chartDataUrl(v.chart.svg)}
              alt={`${title} of ${report.name}: ${v.columns.map((c) => c.title).join(', ')} (${v.rowCount} rows; the numbers are in the result table)`}
            />
          ) : v.kpi ? (
            <KpiCard kpi={v.kpi} />
          ) : v.pivot ? (
            <PivotView pivot={v.pivot} title={report.name} />
          ) : (
            <DataTable
              item={{ ...v, id: 'preview', title: report.name, report: report.ident, layout }}
            />
          )}
        </div>
      )}
      {v?.warnings?.map((w) => (
        <p key={(w as { message: string }).message} class="muted">
          {(w as { message: string }).message}
        </p>
      ))}
      {v && type === 'table' && (
        <ConditionalEditor
          columns={v.columns.filter((c) => NUMBERS.has(c.dataType)).map((c) => c.title)}
          rules={v.report.visualization.conditional ?? []}
          busy={busy}
          onSave={(rules) =>
            void update(({ conditional: _, ...vis }) => ({
              ...vis,
              ...(rules.length ? { conditional: rules } : {}),
            }))
          }
        />
      )}
      <AddToDashboard project={project} report={report} />
    </section>
  );
}
