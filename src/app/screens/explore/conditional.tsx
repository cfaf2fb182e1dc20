// The conditional formatting of a table report (`visualization.conditional`): its rules
// listed, one removed, one added (a column of numbers; a colour scale of two or three colours,
// or a threshold with a background and text colour), saved with the report. The API checks
// the rules; the engine resolves them and every client colours cells with the same function
// (shared/conditional.ts).
import { useState } from 'preact/hooks';
import type { ConditionalRule, ThresholdOp } from '../../../shared/conditional';
import { THRESHOLD_OPS } from '../../../shared/conditional';
import { Field } from './field';

const OP_WORDS: Record<ThresholdOp, string> = {
  '>': 'greater than',
  '>=': 'at least',
  '<': 'less than',
  '<=': 'at most',
  '=': 'equal to',
  between: 'between',
};

/** A rule in words: "Flights: colour scale #ffffff → #1f5fbf". */
export function ruleText(r: ConditionalRule): string {
  const col = typeof r.column === 'number' ? `column ${r.column}` : r.column;
  if (r.type === 'scale') return `${col}: colour scale ${r.colors.join(' → ')}`;
  const value = r.op === 'between' ? `${r.value} and ${r.to}` : String(r.value);
  const paint = [r.background && `background ${r.background}`, r.color && `text ${r.color}`]
    .filter(Boolean)
    .join(', ');
  return `${col} ${OP_WORDS[r.op]} ${value}: ${paint}`;
}

export function ConditionalEditor(props: {
  /** Titles of the result's number columns. */
  columns: string[];
  rules: ConditionalRule[];
  busy: boolean;
  onSave: (rules: ConditionalRule[]) => void;
}) {
  const [column, setColumn] = useState(props.columns[0] ?? '');
  const [type, setType] = useState<'scale' | 'threshold'>('scale');
  const [colors, setColors] = useState(['#ffffff', '#63be7b', '']);
  const [op, setOp] = useState<ThresholdOp>('>');
  const [value, setValue] = useState('');
  const [to, setTo] = useState('');
  const [background, setBackground] = useState('#fde2e1');
  const [color, setColor] = useState('#b3261e');
  if (!props.columns.length) return null;
  const add = (e: Event) => {
    e.preventDefault();
    const rule: ConditionalRule =
      type === 'scale'
        ? { column, type, colors: colors.filter(Boolean) }
        : {
            column,
            type,
            op,
            value: Number(value),
            ...(op === 'between' ? { to: Number(to) } : {}),
            background,
            color,
          };
    props.onSave([...props.rules, rule]);
  };
  return (
    <form class="explore-conditional" onSubmit={add} aria-labelledby="conditional-h">
      <h4 id="conditional-h">Conditional formatting</h4>
      {props.rules.length > 0 && (
        <ul>
          {props.rules.map((r, i) => (
            <li key={i}>
              {ruleText(r)}{' '}
              <button
                type="button"
                class="quiet"
                disabled={props.busy}
                aria-label={`Remove the rule ${ruleText(r)}`}
                onClick={() => props.onSave(props.rules.filter((_, j) => j !== i))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <div class="explore-bar">
        <Field id="cf-column" label="Column">
          <select id="cf-column" value={column} onChange={(e) => setColumn(e.currentTarget.value)}>
            {props.columns.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </Field>
        <Field id="cf-type" label="Rule">
          <select
            id="cf-type"
            value={type}
            onChange={(e) => setType(e.currentTarget.value as 'scale' | 'threshold')}
          >
            <option value="scale">Colour scale</option>
            <option value="threshold">Threshold</option>
          </select>
        </Field>
        {type === 'scale' ? (
          <>
            <Field id="cf-low" label="Lowest">
              <input
                id="cf-low"
                type="color"
                value={colors[0]}
                onInput={(e) => setColors([e.currentTarget.value, colors[1]!, colors[2]!])}
              />
            </Field>
            <Field id="cf-high" label="Highest">
              <input
                id="cf-high"
                type="color"
                value={colors[1]}
                onInput={(e) => setColors([colors[0]!, e.currentTarget.value, colors[2]!])}
              />
            </Field>
            <Field id="cf-mid" label="Middle (optional)">
              <span>
                <input
                  id="cf-mid"
                  type="checkbox"
                  checked={colors[2] !== ''}
                  aria-label="Use a middle colour"
                  onChange={(e) =>
                    setColors([colors[0]!, colors[1]!, e.currentTarget.checked ? '#ffeb84' : ''])
                  }
                />
                {colors[2] !== '' && (
                  <input
                    type="color"
                    aria-label="Middle colour"
                    value={colors[2]}
                    onInput={(e) => setColors([colors[0]!, colors[1]!, e.currentTarget.value])}
                  />
                )}
              </span>
            </Field>
          </>
        ) : (
          <>
            <Field id="cf-op" label="When the value is">
              <select
                id="cf-op"
                value={op}
                onChange={(e) => setOp(e.currentTarget.value as ThresholdOp)}
              >
                {THRESHOLD_OPS.map((o) => (
                  <option key={o} value={o}>
                    {OP_WORDS[o]}
                  </option>
                ))}
              </select>
            </Field>
            <Field id="cf-value" label={op === 'between' ? 'From' : 'Value'}>
              <input
                id="cf-value"
                type="number"
                step="any"
                required
                value={value}
                onInput={(e) => setValue(e.currentTarget.value)}
              />
            </Field>
            {op === 'between' && (
              <Field id="cf-to" label="To">
                <input
                  id="cf-to"
                  type="number"
                  step="any"
                  required
                  value={to}
                  onInput={(e) => setTo(e.currentTarget.value)}
                />
              </Field>
            )}
            <Field id="cf-background" label="Background">
              <input
                id="cf-background"
                type="color"
                value={background}
                onInput={(e) => setBackground(e.currentTarget.value)}
              />
            </Field>
            <Field id="cf-color" label="Text">
              <input
                id="cf-color"
                type="color"
                value={color}
                onInput={(e) => setColor(e.currentTarget.value)}
              />
            </Field>
          </>
        )}
        <button type="submit" disabled={props.busy}>
          Add the rule
        </button>
      </div>
    </form>
  );
}
