// A KPI in the app: its number and what it is; over periods (a result with a date) also the
// period, the change against the one before (green up, red down; said in words too) and a
// sparkline drawn from the same points as the server's (src/shared/chart/sparkline.ts).
import type { ReportKpi } from '../../contract/dashboards';
import { kpiChangeText, kpiTrend, sparkPoints } from '../../shared/chart/sparkline';
import './chart.css';

const WORDS = { up: 'up', down: 'down', flat: 'unchanged' } as const;

export function KpiCard({ kpi }: { kpi: ReportKpi }) {
  const trend = kpiTrend(kpi);
  const change = kpiChangeText(kpi);
  const points = sparkPoints(kpi.series?.map((p) => p.value) ?? [], 200, 40);
  return (
    <div class="kpi-card dash-kpi">
      <span class="kpi-value dash-kpi-value">{kpi.formatted}</span>
      <span class="muted">
        {kpi.title}
        {kpi.period ? ` · ${kpi.period}` : ''}
      </span>
      {change && trend && (
        <span class={`kpi-change kpi-${trend}`}>
          <span aria-hidden="true">{trend === 'up' ? '▲ ' : trend === 'down' ? '▼ ' : ''}</span>
          <span class="sr-only">{WORDS[trend]} </span>
          {change}
        </span>
      )}
      {points && (
        <svg
          class="kpi-spark"
          viewBox="0 0 200 40"
          preserveAspectRatio="none"
          role="img"
          aria-label={`${kpi.title} over ${kpi.series!.length} periods, ${kpi.series![0]!.date} to ${kpi.series![kpi.series!.length - 1]!.date}`}
        >
          <polyline points={points} vector-effect="non-scaling-stroke" />
        </svg>
      )}
    </div>
  );
}
