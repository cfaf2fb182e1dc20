// The Flows tab: the flows the member may read (GET inflow/flowlist) with what they read and
// write and their last run; Run (transform/execute type flow) and Stop (transform/stop),
// the list read again every POLL_MS while a flow runs. A refusal (403 "already running",
// 409 "not running") is shown on the flow's row.
import { useEffect, useState } from 'preact/hooks';
import { api, projectApi, type ApiError } from '../../api';
import { useResource } from '../../data';
import { useProject } from '../../project';
import { Loading } from '../../ui';
import { docHref } from '../docs/docs';
import { asApiError, Problem, When } from '../model/parts';
import { POLL_MS } from './jobs';
import type { Flow } from './types';

export function Flows() {
  const p = useProject();
  const list = useResource<{ flows: Flow[] }>(`${projectApi(p.id)}/inflow/flowlist`);
  /** Flows asked to start or stop whose change the list does not show yet. */
  const [waiting, setWaiting] = useState<Record<string, 'run' | 'stop'>>({});
  const [errors, setErrors] = useState<Record<string, ApiError | undefined>>({});
  const flows = list.value?.flows;
  const { reload } = list;

  const polling = Boolean(flows?.some((f) => f.running) || Object.keys(waiting).length);
  useEffect(() => {
    if (!polling || list.loading) return;
    const t = setTimeout(reload, POLL_MS);
    return () => clearTimeout(t);
  }, [polling, list.loading, list.value, reload]);

  // A start is seen once the flow runs or has a newer last run; a stop once it no longer runs.
  useEffect(() => {
    if (!flows) return;
    setWaiting((w) => {
      const next = { ...w };
      for (const f of flows) {
        if (next[f.id] === 'stop' && !f.running) delete next[f.id];
      }
      return next;
    });
  }, [flows]);

  const act = async (f: Flow, what: 'run' | 'stop') => {
    setErrors((e) => ({ ...e, [f.id]: undefined }));
    setWaiting((w) => ({ ...w, [f.id]: what }));
    try {
      if (what === 'run')
        await api('POST', `${projectApi(p.id)}/kodiak/transform/execute`, {
          type: 'flow',
          id: f.id,
        });
      else await api('POST', `${projectApi(p.id)}/kodiak/transform/stop`, { id: f.id });
    } catch (e) {
      setErrors((x) => ({ ...x, [f.id]: asApiError(e) }));
    } finally {
      if (what === 'run')
        setWaiting((w) => {
          const { [f.id]: _gone, ...rest } = w;
          return rest;
        });
      reload();
    }
  };

  return (
    <section aria-labelledby="flows-title">
      <h2 id="flows-title">Flows</h2>
      <Problem error={list.error} />
      {!flows ? (
        !list.error && <Loading what="the flows" />
      ) : flows.length === 0 ? (
        <p class="muted">
          No flows yet. Flows are model objects: see{' '}
          <a href={docHref('flows.md')} target="_blank" rel="noopener">
            flows
          </a>
          .
        </p>
      ) : (
        <ul class="data-flows">
          {flows.map((f) => {
            const status = f.running ? 'RUNNING' : (f.lastRun?.status ?? 'never run');
            return (
              <li class="card data-flow" key={f.id} aria-label={f.name}>
                <div class="data-flow-head">
                  <strong>{f.name}</strong>
                  <code class="muted">{f.id}</code>
                  <span
                    class={`badge status-${status.replace(' ', '-').toLowerCase()}`}
                    role="status"
                  >
                    {status}
                  </span>
                </div>
                <p class="data-flow-io muted">
                  {f.inputs.map((i) => i.source).join(', ') || 'no inputs'} →{' '}
                  {f.outputs.map((o) => o.target).join(', ') || 'no outputs'}
                </p>
                {f.lastRun && (
                  <p class="data-flow-last">
                    {/* A run not started yet (queued, or cancelled first) has no start time. */}
                    {f.lastRun.started ? (
                      <>
                        Last run <When iso={f.lastRun.started} />
                      </>
                    ) : (
                      'Last run not started'
                    )}
                    {f.lastRun.finished && (
                      <>
                        {' '}
                        {f.lastRun.started ? 'to' : 'ended'} <When iso={f.lastRun.finished} />
                      </>
                    )}
                  </p>
                )}
                {f.lastRun?.message && !f.running && (
                  <p class="error data-flow-message">{f.lastRun.message}</p>
                )}
                <Problem error={errors[f.id]} />
                <div class="actions">
                  <button
                    type="button"
                    disabled={waiting[f.id] === 'run'}
                    onClick={() => void act(f, 'run')}
                  >
                    Run
                  </button>
                  <button
                    type="button"
                    class="quiet"
                    disabled={!f.running || waiting[f.id] === 'stop'}
                    onClick={() => void act(f, 'stop')}
                  >
                    Stop
                  </button>
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
