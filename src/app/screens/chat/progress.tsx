// What an answer being worked on shows: "Thinking…" from the moment it is asked, then the
// steps the agent took as its job reports them (model calls, tools run, queries so far).
import type { AiProgress } from '../../../contract/chat';

const TOOLS: Record<string, string> = {
  get_model: 'Read the data model',
  search_objects: 'Searched the model',
  get_attribute_values: 'Looked up values',
  compatible_objects: 'Checked what can be combined',
  run_aql: 'Ran a query',
  explain_aql: 'Checked a query',
  make_chart: 'Drew a chart',
  find_dashboards: 'Looked for dashboards and reports',
};

/** One line of the trail for a progress report that names a tool. */
export function stepText(p: AiProgress): string {
  const tool = p.tool ?? '';
  const label = TOOLS[tool] ?? `Used ${tool}`;
  return tool === 'run_aql' && p.queries ? `${label} (q${p.queries})` : label;
}

export function Progress(props: {
  status: string | undefined;
  progress: AiProgress | undefined;
  trail: string[];
  onStop?: () => void;
}) {
  const steps = props.progress?.steps ?? 0;
  const queries = props.progress?.queries ?? 0;
  // `steps` counts finished model calls: after a tool (or none yet) the next one is underway.
  const step = steps + (steps === 0 || props.progress?.tool ? 1 : 0);
  const state =
    props.status === undefined
      ? 'sending the question'
      : props.status === 'PREPARED'
        ? 'waiting to start'
        : `step ${step}${queries ? `, ${queries} ${queries === 1 ? 'query' : 'queries'} run` : ''}`;
  return (
    <div class="chat-progress">
      <p class="chat-thinking">
        <span class="chat-dots" aria-hidden="true" />
        <strong>Thinking…</strong> <span class="muted">{state}</span>
      </p>
      {props.progress?.running?.aql && (
        <p class="chat-running">
          Running <code>{props.progress.running.aql}</code>
        </p>
      )}
      {props.trail.length > 0 && (
        <ol class="chat-trail">
          {props.trail.map((t, i) => (
            <li key={i}>{t}</li>
          ))}
        </ol>
      )}
      {props.onStop && (
        <button type="button" class="quiet chat-stop" onClick={props.onStop}>
          Stop
        </button>
      )}
    </div>
  );
}
