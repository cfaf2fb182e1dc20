// An object's definition (`def`) in words, by type: a metric's AQL and format, a report's AQL
// and visualization, a dashboard's items and filters, a column's dataset, and so on; the
// objects it names are links. The whole def is also there as JSON, for the rest.
import type { ComponentChildren } from 'preact';
import type { ModelObject } from '../../../contract/model';
import { useProject } from '../../project';
import { appPath, Link } from '../../router';

export const objectHref = (project: string, ident: string) => appPath('p', project, 'model', ident);

/** A link to an object's page, by its name when known. */
export function ObjLink({ ident, name }: { ident: string; name?: string }) {
  const p = useProject();
  return <Link href={objectHref(p.id, ident)}>{name ?? <code>{ident}</code>}</Link>;
}

const str = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const rec = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

function Aql({ text, label }: { text: unknown; label: string }) {
  return (
    <pre class="aql" aria-label={label} tabIndex={0}>
      <code>{str(text) ?? ''}</code>
    </pre>
  );
}

/** Rows of a description list; rows whose value is null or undefined are left out. */
function Rows({ rows }: { rows: Array<[string, ComponentChildren]> }) {
  return (
    <dl class="model-def">
      {rows
        .filter(([, v]) => v !== undefined && v !== null && v !== '')
        .map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
    </dl>
  );
}

const yesNo = (v: unknown) => (v === true ? 'yes' : v === false ? 'no' : undefined);
const ref = (v: unknown, names: Map<string, string>) => {
  const s = str(v);
  return s ? <ObjLink ident={s} name={names.get(s)} /> : undefined;
};

export function Definition({ o, names }: { o: ModelObject; names: Map<string, string> }) {
  const d = rec(o.def);
  return (
    <>
      <ByType type={o.type} d={d} names={names} />
      <details class="model-json">
        <summary>The definition as JSON</summary>
        <pre tabIndex={0}>
          <code>{JSON.stringify(d, null, 2)}</code>
        </pre>
      </details>
    </>
  );
}

function ByType({
  type,
  d,
  names,
}: {
  type: string;
  d: Record<string, unknown>;
  names: Map<string, string>;
}) {
  switch (type) {
    case 'metric':
      return (
        <>
          <Aql text={d.aql} label="AQL" />
          <Rows
            rows={[
              [
                'Format',
                str(d.format) ? <code>{str(d.format)}</code> : <span class="muted">default</span>,
              ],
            ]}
          />
        </>
      );
    case 'filter':
      return <Aql text={d.aql} label="AQL condition" />;
    case 'report': {
      const v = rec(d.visualization);
      const { type: vt, x, y, color, ...other } = v;
      return (
        <>
          <Aql text={d.aql} label="AQL" />
          <Rows
            rows={[
              ['Visualization', str(vt)],
              ['x', str(x)],
              ['y', Array.isArray(y) ? y.map(String).join(', ') : str(y)],
              ['Colour', str(color)],
              [
                'Styling',
                Object.keys(other).length ? <code>{JSON.stringify(other)}</code> : undefined,
              ],
            ]}
          />
        </>
      );
    }
    case 'dashboard':
      return <DashboardDef d={d} names={names} />;
    case 'attribute': {
      const r = rec(d.reference);
      return (
        <Rows
          rows={[
            ['Dataset', str(d.dataset)],
            ['Column', str(d.column)],
            ['Data type', str(d.dataType)],
            ['Primary key', yesNo(d.primaryKey)],
            [
              'References',
              d.reference ? (
                <>
                  dataset <code>{str(r.dataset)}</code>
                  {str(r.attribute) && <>, {ref(r.attribute, names)}</>}
                </>
              ) : undefined,
            ],
            ['Made by', str(d.source) === 'load' ? 'a data load' : str(d.source)],
          ]}
        />
      );
    }
    case 'label':
      return (
        <Rows
          rows={[
            ['Dataset', str(d.dataset)],
            ['Column', str(d.column)],
            ['Data type', str(d.dataType)],
            ['Label of', ref(d.attribute, names)],
            ['Made by', str(d.source) === 'load' ? 'a data load' : str(d.source)],
          ]}
        />
      );
    case 'fact':
      return (
        <Rows
          rows={[
            ['Dataset', str(d.dataset)],
            ['Column', str(d.column)],
            ['Data type', str(d.dataType)],
            ['Made by', str(d.source) === 'load' ? 'a data load' : str(d.source)],
          ]}
        />
      );
    case 'folder': {
      const content = list(d.content).map(String);
      return content.length ? (
        <ul class="model-refs" aria-label="Content">
          {content.map((c) => (
            <li key={c}>{ref(c, names)}</li>
          ))}
        </ul>
      ) : (
        <p class="muted">The folder is empty.</p>
      );
    }
    case 'userrole': {
      const members = list(d.members).map(String);
      return members.length ? (
        <Rows rows={[['Members', members.join(', ')]]} />
      ) : (
        <p class="muted">
          No members listed here; members hold the role when their project rights name it.
        </p>
      );
    }
    case 'trigger':
      return (
        <Rows
          rows={[
            ['Kind', str(d.type)],
            ['Runs', ref(d.flow, names)],
            ['Schedule', str(d.cron) && <code>{str(d.cron)}</code>],
            ['Time zone', str(d.timezone)],
            ['After', ref(d.after, names)],
            ['Path', str(d.path) && <code>{str(d.path)}</code>],
            ['Credentials', ref(d.credentials, names)],
            ['Enabled', yesNo(d.enabled)],
          ]}
        />
      );
    case 'flow': {
      const boxes = list(d.boxes).map(rec);
      return (
        <>
          <p>
            {boxes.length} box{boxes.length === 1 ? '' : 'es'}, {list(d.edges).length} edge
            {list(d.edges).length === 1 ? '' : 's'}.
          </p>
          {boxes.length > 0 && (
            <ul class="model-refs" aria-label="Boxes">
              {boxes.map((b, i) => (
                <li key={str(b.id) ?? i}>
                  <code>{str(b.id)}</code> <span class="muted">{str(b.type)}</span>
                  {str(b.credentials) && <> · {ref(b.credentials, names)}</>}
                </li>
              ))}
            </ul>
          )}
        </>
      );
    }
    case 'credentials':
      return (
        <Rows
          rows={[
            ['Kind', str(d.kind)],
            ['Host', str(d.host)],
            ['Port', str(d.port)],
            ['User', str(d.user)],
            ['Database', str(d.database)],
            ['Secret', d.secretSet === true ? 'set (never shown)' : 'not set'],
          ]}
        />
      );
    case 'alert': {
      const c = rec(d.condition);
      const hook = rec(d.webhook);
      return (
        <Rows
          rows={[
            ['Watches', str(d.metric) ?? str(d.aql)],
            [
              'Condition',
              str(c.op) === 'change%'
                ? `changes by more than ${String(c.value)}%`
                : `${str(c.op)} ${String(c.value)}`,
            ],
            ['E-mail', list(d.email).map(String).join(', ') || undefined],
            ['Webhook', str(hook.url)],
          ]}
        />
      );
    }
    case 'subscription': {
      const sched = rec(d.schedule);
      return (
        <Rows
          rows={[
            ['Dashboard', ref(d.dashboard, names)],
            ['Recipients', list(d.recipients).map(String).join(', ') || 'nobody'],
            ['Schedule', `${str(sched.cron) ?? ''} ${str(sched.timezone) ?? 'UTC'}`],
            ['Format', str(d.format) ?? 'pdf'],
            ['Filters', list(d.filters).map(String).join('; ') || undefined],
            ['Paused', d.paused === true ? 'yes' : undefined],
          ]}
        />
      );
    }
    default:
      return null;
  }
}

function DashboardDef({ d, names }: { d: Record<string, unknown>; names: Map<string, string> }) {
  const items = list(d.items).map(rec);
  const filters = list(d.filters).map(rec);
  return (
    <>
      <h3>Items</h3>
      {items.length === 0 ? (
        <p class="muted">The dashboard has no items you can read.</p>
      ) : (
        <ol class="model-refs" aria-label="Items">
          {items.map((it, i) => (
            <li key={str(it.id) ?? i}>
              {str(it.title) && <strong>{str(it.title)}: </strong>}
              {ref(it.report, names)} <span class="muted">item {str(it.id)}</span>
            </li>
          ))}
        </ol>
      )}
      {filters.length > 0 && (
        <>
          <h3>Filters</h3>
          <ul class="model-refs" aria-label="Filters">
            {filters.map((f, i) => (
              <li key={i}>
                {ref(f.attribute, names)}
                {list(f.values).length > 0 && <> = {list(f.values).map(String).join(', ')}</>}
                {str(f.aql) && (
                  <>
                    {' '}
                    where <code>{str(f.aql)}</code>
                  </>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}
