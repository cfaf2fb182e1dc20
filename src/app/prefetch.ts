// What the page's address asks for first, asked for as soon as the code runs: the frame reads
// the account, then the project, then the screen its data — three round trips one after the
// other, each after a render. A dashboard's address also asks for the dashboard and the chart
// code (its chunk). The first
// `useResource` of a path takes its answer (once); later reads ask again.
import { get } from './api';
import { current } from './router';
import { dashboardRun } from './screens/dashboards/filters';
import { preloadCharts } from './chart/chart';

const early = new Map<string, Promise<unknown>>();

function ask(path: string): void {
  const p = get(path);
  // Not taken (the screen asked for something else): no unhandled rejection, and dropped.
  p.catch(() => undefined);
  early.set(path, p);
  setTimeout(() => early.delete(path), 10_000);
}

/** The answer asked for early to `path`, if any (taken: the next read asks the server). */
export function takeEarly<T>(path: string): Promise<T> | undefined {
  const p = early.get(path);
  early.delete(path);
  return p as Promise<T> | undefined;
}

/** Asks for what the current address shows first. */
export function prefetch(): void {
  const { parts, query } = current();
  ask('/user');
  const [kind, project, section, id, ...more] = parts;
  if (kind !== 'p' || !project) return;
  ask(`/projects/${encodeURIComponent(project)}`);
  if (section === 'dashboards' && id && !more.length && query.get('edit') !== '1') {
    ask(dashboardRun(project, id, query));
    preloadCharts();
  }
}
