// The dashboard's filters: one field per filter (values typed or picked from a list; a date
// range for a date), Apply puts them in the address, Clear goes back to the dashboard's own
// selection. A bad filter's message from the API is shown once: at the field it names, else
// under the fields.
import { useState } from 'preact/hooks';
import type { ApiError } from '../../api';
import { isDateType } from './date-range';
import { textValues, valuesText, type Picks } from './filters';
import type { DashboardFilter } from '../../../contract/dashboards';
import { FilterField } from './value-picker';

interface Props {
  filters: DashboardFilter[];
  /** What the address picks now. */
  picks: Picks;
  error?: ApiError;
  onApply: (picks: Picks) => void;
  onClear: () => void;
  /** The titles of the items a filter narrows, when it is wired to some only. */
  narrows?: (f: DashboardFilter) => string[] | undefined;
}

/** The address's pick for a filter: by identifier, or by title as the API also accepts. */
function pickOf(picks: Picks, f: DashboardFilter): string[] | undefined {
  for (const [k, v] of picks)
    if (k === f.attribute || k.toLowerCase() === f.title.toLowerCase()) return v;
  return undefined;
}

export function FilterForm({ filters, picks, error, onApply, onClear, narrows }: Props) {
  const [texts, setTexts] = useState(() =>
    filters.map((f) => valuesText(pickOf(picks, f) ?? f.values)),
  );
  const bad = error?.context.attribute;
  // How to write values concerns typed values only; a date filter picks a range.
  const typed = filters.some((f) => !isDateType(f.dataType));

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
        {filters.map((f, i) => (
          <FilterField
            key={f.attribute}
            id={`dash-filter-${i}`}
            attribute={f.attribute}
            title={f.title}
            dataType={f.dataType}
            text={texts[i] ?? ''}
            onText={(v) => setTexts((t) => t.map((x, j) => (j === i ? v : x)))}
            error={bad === f.attribute ? error?.message : undefined}
            hint={typed ? 'dash-filter-hint' : undefined}
            note={narrowsText(narrows?.(f))}
          />
        ))}
        <div class="dash-filter-buttons">
          <button type="submit">Apply</button>
          <button type="button" class="quiet" onClick={onClear}>
            Clear
          </button>
        </div>
      </div>
      {typed && (
        <p id="dash-filter-hint" class="muted dash-hint">
          Separate several values with commas; an empty field selects all.
        </p>
      )}
      {error && !filters.some((f) => f.attribute === bad) && (
        <p id="dash-filter-error" class="error" role="alert">
          {error.message}
        </p>
      )}
    </form>
  );
}

/** Which items a wired filter narrows, in words. */
const narrowsText = (titles: string[] | undefined) =>
  titles ? `Narrows ${titles.length ? titles.join(', ') : 'no item you can see'} only` : undefined;
