// One filter of the builder: values ticked from the attribute's list (or all but those), text
// it contains (or not), a number compared with one or between two, or a date period.
import {
  COMPARISONS,
  isNumber,
  PERIODS,
  type BuilderModel,
  type Comparison,
  type Filter,
  type Period,
} from './builder-aql';
import { DraftInput } from './draft-input';
import { ValuePicker } from './values';

/** How a text (or other non-date) attribute is filtered. */
const TEXT_MODES = [
  ['in', 'is one of'],
  ['notin', 'is none of'],
  ['contains', 'contains'],
  ['notcontains', 'does not contain'],
] as const;
type TextMode = (typeof TEXT_MODES)[number][0];

function textMode(f: Filter): TextMode {
  if ('contains' in f) return f.not ? 'notcontains' : 'contains';
  return 'values' in f && f.not ? 'notin' : 'in';
}

/** The filter a new mode makes of the old one (the values or the text kept when they fit). */
function withMode(f: Filter, mode: TextMode): Filter {
  const not = mode === 'notin' || mode === 'notcontains';
  const flag = not ? { not } : {};
  if (mode === 'in' || mode === 'notin')
    return { ref: f.ref, values: 'values' in f ? f.values : [], ...flag };
  return { ref: f.ref, contains: 'contains' in f ? f.contains : '', ...flag };
}

/** The first filter on a field: a period for dates, "greater than" for numbers, else values. */
export function newFilter(m: BuilderModel, ref: string, date: boolean): Filter {
  if (date) return { ref, period: 'last30' };
  const o = m.byIdent.get(ref);
  return isNumber(o) && o?.type === 'fact' ? { ref, cmp: '>', value: '' } : { ref, values: [] };
}

export function FilterRow(props: {
  project: string;
  m: BuilderModel;
  filter: Filter;
  onChange: (f: Filter | null) => void;
}) {
  const f = props.filter;
  const o = props.m.byIdent.get(f.ref);
  const title = o?.name ?? f.ref;
  const id = `filter-${f.ref.replace(/[^\w-]/g, '_')}`;
  const number = isNumber(o);
  return (
    <div class="filter-row" role="group" aria-label={`Filter on ${title}`}>
      <div class="filter-head">
        <strong>{title}</strong>
        <button
          type="button"
          class="quiet"
          aria-label={`Remove the filter on ${title}`}
          onClick={() => props.onChange(null)}
        >
          ×
        </button>
      </div>
      {'period' in f ? (
        <DateFilter id={id} title={title} f={f} onChange={props.onChange} />
      ) : 'cmp' in f || (number && o?.type === 'fact') ? (
        <NumberFilter id={id} title={title} f={f} onChange={props.onChange} />
      ) : (
        <>
          <div class="filter-dates">
            <label for={`${id}-mode`}>Match {title}</label>
            <select
              id={`${id}-mode`}
              value={'cmp' in f ? 'cmp' : textMode(f)}
              onChange={(e) => {
                const v = e.currentTarget.value;
                props.onChange(
                  v === 'cmp' ? { ref: f.ref, cmp: '>', value: '' } : withMode(f, v as TextMode),
                );
              }}
            >
              {TEXT_MODES.map(([k, t]) => (
                <option key={k} value={k}>
                  {t}
                </option>
              ))}
              {number && <option value="cmp">compared with a number</option>}
            </select>
          </div>
          {'values' in f ? (
            <ValuePicker
              project={props.project}
              ident={f.ref}
              title={title}
              chosen={f.values}
              onChange={(values) => props.onChange({ ...f, values })}
            />
          ) : 'contains' in f ? (
            <div class="filter-dates">
              <label for={`${id}-text`}>Text</label>
              <DraftInput
                id={`${id}-text`}
                type="search"
                value={f.contains}
                onCommit={(contains) => props.onChange({ ...f, contains })}
              />
            </div>
          ) : null}
        </>
      )}
    </div>
  );
}

function NumberFilter(props: {
  id: string;
  title: string;
  f: Filter;
  onChange: (f: Filter) => void;
}) {
  const { id, f } = props;
  const cmp: Comparison = 'cmp' in f ? f.cmp : '>';
  const ref = f.ref;
  const box = (key: string, label: string, value: string, set: (v: string) => Filter) => (
    <>
      <label for={`${id}-${key}`}>{label}</label>
      <DraftInput
        id={`${id}-${key}`}
        type="number"
        step="any"
        value={value}
        onCommit={(v) => props.onChange(set(v.trim()))}
      />
    </>
  );
  return (
    <div class="filter-dates">
      <label for={`${id}-cmp`}>{props.title} is</label>
      <select
        id={`${id}-cmp`}
        value={cmp}
        onChange={(e) => {
          const c = e.currentTarget.value as Comparison;
          const first = 'cmp' in f ? (f.cmp === 'between' ? f.from : f.value) : '';
          props.onChange(
            c === 'between' ? { ref, cmp: c, from: first, to: '' } : { ref, cmp: c, value: first },
          );
        }}
      >
        {COMPARISONS.map(([c, t]) => (
          <option key={c} value={c}>
            {t}
          </option>
        ))}
      </select>
      {'cmp' in f && f.cmp === 'between' ? (
        <>
          {box('from', 'From', f.from, (v) => ({ ...f, from: v }))}
          {box('to', 'To', f.to, (v) => ({ ...f, to: v }))}
        </>
      ) : (
        box('value', 'Number', 'cmp' in f ? f.value : '', (v) => ({
          ref,
          cmp: cmp === 'between' ? '>' : cmp,
          value: v,
        }))
      )}
    </div>
  );
}

function DateFilter(props: {
  id: string;
  title: string;
  f: Extract<Filter, { period: string }>;
  onChange: (f: Filter) => void;
}) {
  const { id, f } = props;
  return (
    <div class="filter-dates">
      <label for={`${id}-period`}>Period of {props.title}</label>
      <select
        id={`${id}-period`}
        value={f.period}
        onChange={(e) => {
          const period = e.currentTarget.value as Period;
          props.onChange(
            period === 'between'
              ? { ref: f.ref, period, from: '', to: '' }
              : { ref: f.ref, period },
          );
        }}
      >
        {PERIODS.map(([p, t]) => (
          <option key={p} value={p}>
            {t}
          </option>
        ))}
      </select>
      {f.period === 'between' && (
        <>
          <label for={`${id}-from`}>From</label>
          <DraftInput
            id={`${id}-from`}
            type="date"
            value={f.from}
            onCommit={(from) => props.onChange({ ...f, from })}
          />
          <label for={`${id}-to`}>To</label>
          <DraftInput
            id={`${id}-to`}
            type="date"
            value={f.to}
            onCommit={(to) => props.onChange({ ...f, to })}
          />
        </>
      )}
    </div>
  );
}
