// What a chart in the app is given (chart.tsx, and live.tsx loaded on demand).
import type { ChartSpec } from '../../shared/chart/spec';

/** What a mark's menu offers for its values (column title → value as the result wrote it). */
export interface MarkAction {
  label: string;
  run(): void;
}
export type MarkActions = (values: Record<string, string>, label: string) => MarkAction[];

export interface ChartProps {
  spec: ChartSpec;
  /** The server's drawing, shown until the live chart is ready. */
  svg?: string;
  title: string;
  actions?: MarkActions;
}
