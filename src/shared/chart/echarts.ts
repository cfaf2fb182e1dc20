// ECharts with only what Ursa's charts draw (tree-shaken: echarts/core), registered once for
// the server's SVG and the app's live charts alike. A new chart type registers its series here.
import * as echarts from 'echarts/core';
import {
  BarChart,
  FunnelChart,
  GaugeChart,
  LineChart,
  MapChart,
  PieChart,
  ScatterChart,
} from 'echarts/charts';
import {
  AriaComponent,
  GeoComponent,
  GridComponent,
  LegendComponent,
  LegendScrollComponent,
  TitleComponent,
  TooltipComponent,
  VisualMapContinuousComponent,
} from 'echarts/components';
import { SVGRenderer } from 'echarts/renderers';

echarts.use([
  BarChart,
  FunnelChart,
  GaugeChart,
  LineChart,
  MapChart,
  PieChart,
  ScatterChart,
  AriaComponent,
  GeoComponent,
  GridComponent,
  LegendComponent,
  LegendScrollComponent,
  TitleComponent,
  TooltipComponent,
  VisualMapContinuousComponent,
  SVGRenderer,
]);

export { echarts };
