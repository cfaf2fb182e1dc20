// An answer's chart: the SVG the server rendered (Vega, from its own spec, nothing external),
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

interface Channel {
  field?: string;
  title?: string;
}

export function chartAlt(chart: AiChart): string {
  const spec = chart.spec;
  const title = typeof spec.title === 'string' ? spec.title : undefined;
  const mark = typeof spec.mark === 'string' ? spec.mark : (spec.mark as { type?: string })?.type;
  const enc = (spec.encoding ?? {}) as Record<string, Channel | undefined>;
  const x = mark === 'arc' ? enc.color : enc.x;
  const y = mark === 'arc' ? enc.theta : enc.y;
  let alt = KINDS[mark ?? ''] ?? 'Chart';
  if (x?.title && y?.title) alt += ` of ${y.title} by ${x.title}`;
  if (title) alt += `: ${title}`;
  const values = (spec.data as { values?: Record<string, unknown>[] } | undefined)?.values;
  if (values && x?.field && y?.field && values.length > 0 && values.length <= 12)
    alt += `. ${values.map((v) => `${String(v[x.field!])} ${String(v[y.field!])}`).join(', ')}`;
  return `${alt} (from query ${chart.queryId})`;
}

export function Chart({ chart }: { chart: AiChart }) {
  return (
    <figure class="chat-chart">
      <img src={chartDataUrl(chart.svg)} alt={chartAlt(chart)} />
    </figure>
  );
}
