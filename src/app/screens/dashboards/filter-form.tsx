// The dashboard's filters: one labelled text input per filter (values separated by commas),
// Apply puts them in the address, Clear goes back to the dashboard's own selection. A bad
// filter's message from the API is shown here, at the field it names.
import { useState } from 'preact/hooks';
import type { ApiError } from '../../api';
import { textValues, valuesText, type Picks } from './filters';
import type { DashboardFilter } from './types';

interface Props {
  filters: DashboardFilter[];
  /** What the address picks now. */
  picks: Picks;
  error?: ApiError;
  onApply: (picks: Picks) => void;
  onClear: () => void;
}

/** The address's pick for a filter: by identifier, or by title as the API also accepts. */
function pickOf(picks: Picks, f: DashboardFilter): string[] | undefined {
  for (const [k, v] of picks)
    if (k === f.attribute || k.toLowerCase() === f.title.toLowerCase()) return v;
  return undefined;
}

export function FilterForm({ filters, picks, error, onApply, onClear }: Props) {
  const [texts, setTexts] = useState(() =>
    filters.map((f) => valuesText(pickOf(picks, f) ?? f.values)),
  );
  const bad = error?.context.attribute;

  const submit = (e: Event) => {
    e.preventDefault();
    // The form's fields only: a pick the dashboard does not have (a bad address) is dropped.
    const next: Picks = new Map();
    filters.forEach((f, i) => {
      const values = textValues(texts[i] ?? '');
      // Emptied while something is selected: all values (`attr:`), not the dashboard's own.
      if (values.length || pickOf(picks, f) || f.values.length) next.set(f.attribute, values);
    });
    onApply(next);
  };

  return (
    <form class="dash-filters card" onSubmit={submit} aria-labelledby="dash-filters-title">
      <h2 id="dash-filters-title" class="dash-filters-title">
        Filters
      </h2>
      <div class="dash-filter-fields">
        {filters.map((f, i) => {
          const id = `dash-filter-${i}`;
          const invalid = bad === f.attribute;
          return (
            <label key={f.attribute} for={id}>
              {f.title}
              <input
                id={id}
                name={f.attribute}
                value={texts[i]}
                placeholder={f.dataType === 'boolean' ? 'true or false; empty: all' : 'all'}
                list={f.dataType === 'boolean' ? 'dash-boolean-values' : undefined}
                aria-invalid={invalid || undefined}
                aria-describedby={invalid ? 'dash-filter-error' : 'dash-filter-hint'}
                onInput={(e) => {
                  const v = e.currentTarget.value;
                  setTexts((t) => t.map((x, j) => (j === i ? v : x)));
                }}
              />
            </label>
          );
        })}
        <datalist id="dash-boolean-values">
          <option value="true" />
          <option value="false" />
        </datalist>
        <div class="dash-filter-buttons">
          <button type="submit">Apply</button>
          <button type="button" class="quiet" onClick={onClear}>
            Clear
          </button>
        </div>
      </div>
      <p id="dash-filter-hint" class="muted dash-hint">
        Separate several values with commas; an empty field selects all.
      </p>
      {error && (
        <p id="dash-filter-error" class="error" role="alert">
          {error.message}
        </p>
      )}
    </form>
  );
}
