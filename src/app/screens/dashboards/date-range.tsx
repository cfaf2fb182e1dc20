// A date filter's range, written as the API takes it (docs/api.md, "Dashboard filters"):
// `last 7 days`, `last 30 days`, `last 90 days`, `this month`, `this year`, or two days
// `2024-01-01..2024-03-31` (either may be left empty); empty selects every date.
import { useState } from 'preact/hooks';

export const isDateType = (dataType: string) => dataType === 'date' || dataType === 'datetime';

const RELATIVE = ['last 7 days', 'last 30 days', 'last 90 days', 'this month', 'this year'];
const BETWEEN = 'between';

const label = (v: string) => v.charAt(0).toUpperCase() + v.slice(1);

/** The choice a value is, and its two days when it is a range. */
function parse(value: string): { choice: string; from: string; to: string } {
  const v = value.trim();
  if (!v) return { choice: '', from: '', to: '' };
  if (RELATIVE.includes(v.toLowerCase())) return { choice: v.toLowerCase(), from: '', to: '' };
  const [from = '', to = from] = v.split('..');
  return { choice: BETWEEN, from: from.trim(), to: to.trim() };
}

export function DateRangeField(p: {
  id: string;
  title: string;
  value: string;
  onValue: (v: string) => void;
  describedBy?: string;
}) {
  const start = parse(p.value);
  const [days, setDays] = useState({ from: start.from, to: start.to });
  const [choice, setChoice] = useState(start.choice);
  const range = (from: string, to: string) => (from || to ? `${from}..${to}` : '');
  const pick = (c: string) => {
    setChoice(c);
    p.onValue(c === BETWEEN ? range(days.from, days.to) : c);
  };
  const setDay = (which: 'from' | 'to', v: string) => {
    const next = { ...days, [which]: v };
    setDays(next);
    p.onValue(range(next.from, next.to));
  };
  return (
    <div class="dash-date-range">
      <label for={p.id}>{p.title}</label>
      <select
        id={p.id}
        value={choice}
        aria-invalid={p.describedBy ? true : undefined}
        aria-describedby={p.describedBy}
        onChange={(e) => pick(e.currentTarget.value)}
      >
        <option value="">Any time</option>
        {RELATIVE.map((r) => (
          <option key={r} value={r}>
            {label(r)}
          </option>
        ))}
        <option value={BETWEEN}>Between two dates</option>
      </select>
      {choice === BETWEEN && (
        <div class="dash-date-days">
          <label>
            From
            <input
              type="date"
              value={days.from}
              aria-label={`${p.title} from`}
              onInput={(e) => setDay('from', e.currentTarget.value)}
            />
          </label>
          <label>
            To
            <input
              type="date"
              value={days.to}
              aria-label={`${p.title} to`}
              onInput={(e) => setDay('to', e.currentTarget.value)}
            />
          </label>
        </div>
      )}
    </div>
  );
}
