// A report saved from this screen, drawn by the server: GET app/reports/{id} answers its
// chart as SVG (shown as an image), its number, or its table. The picker changes the
// report's visualization (PUT pmd/obj/{id}) and draws it again.
import { useState } from 'preact/hooks';
import { api, ApiError, get, projectApi, API } from '../../api';
import { useResource } from '../../data';
import { ErrorNote, Loading } from '../../ui';
import { AddToDashboard } from './add-to-dashboard';
import { chartDataUrl } from '../../chart-svg';
import { KpiCard } from '../../chart/kpi';
import type { ReportKpi } from '../../../contract/dashboards';
import {
  choiceOf,
  visualizationOf,
  VisualizationPicker,
  VISUALIZATIONS,
  type Saved,
  type Visualization,
} from './save';

interface ReportJson {
  report: { ident: string; name: string; visualization: { type: string; stack?: unknown } };
  columns: { title: string }[];
  rowCount: number;
  kpi?: ReportKpi;
  chart?: { svg: string };
  warnings?: { message: string }[];
}

interface ObjectJson {
  object: { def: { aql: string; visualization: Record<string, unknown> } };
}

export function SavedReport({ project, report }: { project: string; report: Saved }) {
  const id = encodeURIComponent(report.ident);
  const r = useResource<ReportJson>(`${projectApi(project)}/app/reports/${id}?limit=1`);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const type = r.value && choiceOf(r.value.report.visualization);
  const title = VISUALIZATIONS.find(([v]) => v === type)?.[1] ?? '';

  const change = async (next: Visualization) => {
    setBusy(true);
    setError(undefined);
    try {
      const path = `${projectApi(project)}/pmd/obj/${id}`;
      const { object } = await get<ObjectJson>(path);
      // A new choice replaces the type and its stacking; the other keys stay.
      const { stack: _stack, ...kept } = object.def.visualization;
      const def = { ...object.def, visualization: { ...kept, ...visualizationOf(next) } };
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
            onChange={(t) => void change(t)}
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
          ) : (
            <p class="muted">A table report: it shows the rows of the result above.</p>
          )}
        </div>
      )}
      {v?.warnings?.map((w) => (
        <p key={w.message} class="muted">
          {w.message}
        </p>
      ))}
      <AddToDashboard project={project} report={report} />
    </section>
  );
}
