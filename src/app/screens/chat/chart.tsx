// An answer's chart: the SVG the server rendered (ECharts, from its own spec, nothing external),
// shown as an image from a data: URL (the page's CSP allows data: images), with alt text
// from the spec: the kind of chart, what it plots and, for a small one, its values.
import { chartDataUrl } from '../../chart-svg';
import type { AiChart } from '../../../contract/chat';

const KINDS: Record<string, string> = {
  bar: 'Bar chart',
  line: 'Line chart',
  area: 'Area chart',
  point: 'Scatter plot',
  arc: 'Pie chart',
};

export function chartAlt(chart: AiChart): string {
  const spec = chart.spec;
  let alt = KINDS[spec.mark] ?? 'Chart';
  const y = spec.y.map((f) => f.title).join(' and ');
  if (y) alt += ` of ${y} by ${spec.x.title}`;
  if (spec.title) alt += `: ${spec.title}`;
  if (spec.data.length > 0 && spec.data.length <= 12)
    alt += `. ${spec.data.map((r) => `${r[0] ?? ''} ${r[1] ?? ''}`).join(', ')}`;
  return `${alt} (from query ${chart.queryId})`;
}

export function Chart({ chart }: { chart: AiChart }) {
  return (
    <figure class="chat-chart">
      <img src={chartDataUrl(chart.svg)} alt={chartAlt(chart)} />
    </figure>
  );
}
