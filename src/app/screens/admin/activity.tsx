// The project's activity log, newest first, as the API shows it to the reader: filtered by
// kind of event, a page at a time. The filter and the page are in the address
// (/admin/activity?types=user_action,obj_action&offset=50).
import type { ActivityRecord } from '../../../contract/activity';
import { projectApi } from '../../api';
import { useResource } from '../../data';
import { useProject } from '../../project';
import { appPath, navigate, useLocation } from '../../router';
import { Loading } from '../../ui';
import { offsetOf, Pager, Problem, When, withQuery, type Paging } from '../model/parts';

const TYPES: Array<[string, string]> = [
  ['data_load', 'Data loads'],
  ['delivery', 'Subscriptions and alerts'],
  ['flow_run', 'Flow runs'],
  ['flow_trigger', 'Flow triggers'],
  ['obj_action', 'Model changes'],
  ['obj_share', 'Shares'],
  ['project_action', 'Project changes'],
  // The API records a finished AI question as a user_action too (detail.action: ai_message).
  ['user_action', 'Member changes and AI messages'],
];
/** An event's kind: by its type, and for a user_action by what the member did. */
const kindOf = (e: LogEvent) =>
  e.type === 'user_action'
    ? e.detail?.action === 'ai_message'
      ? 'AI messages'
      : 'Member changes'
    : (TYPES.find((x) => x[0] === e.type)?.[1] ?? e.type);
const PAGE = 50;

type LogEvent = ActivityRecord;

export function Activity() {
  const p = useProject();
  const loc = useLocation();
  const base = appPath('p', p.id, 'admin', 'activity');
  const types = (loc.query.get('types') ?? '')
    .split(',')
    .filter((t) => TYPES.some((x) => x[0] === t));
  const offset = offsetOf(loc.query);
  const r = useResource<{ activity: LogEvent[]; paging: Paging }>(
    withQuery(`${projectApi(p.id)}/activity`, {
      types: types.join(','),
      limit: PAGE,
      offset,
    }),
  );
  const toggle = (t: string, on: boolean) => {
    const next = TYPES.map((x) => x[0]).filter((x) => (x === t ? on : types.includes(x)));
    navigate(withQuery(base, { types: next.join(',') }), true);
  };
  const events = r.value?.activity;
  return (
    <>
      <h2>Activity</h2>
      <fieldset class="activity-types">
        <legend>Show only</legend>
        {TYPES.map(([t, title]) => (
          <label class="check" key={t}>
            <input
              type="checkbox"
              checked={types.includes(t)}
              onChange={(e) => toggle(t, e.currentTarget.checked)}
            />
            {title}
          </label>
        ))}
        <span class="hint">Nothing ticked: every kind.</span>
      </fieldset>
      <Problem error={r.error} />
      {!events && !r.error && <Loading what="the activity" />}
      {events && (
        <p class="muted" role="status">
          {r.value!.paging.total === 0
            ? 'No events.'
            : `${r.value!.paging.total} event${r.value!.paging.total === 1 ? '' : 's'}, newest first.`}
        </p>
      )}
      {events && events.length > 0 && (
        <div class="scroll" tabIndex={0} role="region" aria-label="Activity events">
          <table class="activity" aria-label="Activity" aria-busy={r.loading}>
            <thead>
              <tr>
                <th scope="col">What</th>
                <th scope="col">Who</th>
                <th scope="col">When</th>
                <th scope="col">Kind</th>
              </tr>
            </thead>
            <tbody>
              {events.map((e) => (
                <tr key={e.id}>
                  <td class="message">{e.message}</td>
                  <td>{e.user}</td>
                  <td>
                    <When iso={e.time} />
                  </td>
                  <td class="kind">{kindOf(e)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        paging={r.value?.paging}
        label="Activity pages"
        href={(o) => withQuery(base, { types: types.join(','), offset: o })}
      />
    </>
  );
}
