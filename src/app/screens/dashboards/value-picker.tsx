// A dashboard filter's field: values typed (comma separated) or picked from the attribute's
// values with a search (GET pmd/obj/{attribute}/values, what the MCP tool
// get_attribute_values lists: most frequent first, with row counts); a date attribute picks a
// range instead (date-range.tsx). A bad value's message is shown under its field only.
import { formatNumber } from '../../format';
import { useEffect, useState } from 'preact/hooks';
import { get, projectApi } from '../../api';
import type { AttributeValues } from '../../../contract/model';
import { useProject } from '../../project';
import { DateRangeField, isDateType } from './date-range';
import { textValues, valuesText } from './filters';

interface FieldProps {
  id: string;
  attribute: string;
  title: string;
  dataType: string;
  text: string;
  onText: (text: string) => void;
  /** The API's message about this filter's value, shown here once. */
  error?: string;
  /** The id of a hint on how to write values, if the form has one. */
  hint?: string;
  /** A line under the field (which items the filter narrows). */
  note?: string;
}

export function FilterField(p: FieldProps) {
  const errorId = `${p.id}-error`;
  const noteId = `${p.id}-note`;
  const described = [p.error && errorId, p.note && noteId].filter(Boolean).join(' ') || undefined;
  return (
    <div class="dash-filter-field">
      {isDateType(p.dataType) ? (
        <DateRangeField
          id={p.id}
          title={p.title}
          value={p.text}
          onValue={p.onText}
          describedBy={described}
        />
      ) : (
        <>
          <label for={p.id}>{p.title}</label>
          <div class="dash-filter-input">
            <input
              id={p.id}
              name={p.attribute}
              value={p.text}
              placeholder={p.dataType === 'boolean' ? 'true or false; empty: all' : 'all'}
              aria-invalid={p.error ? true : undefined}
              aria-describedby={described ?? p.hint}
              onInput={(e) => p.onText(e.currentTarget.value)}
            />
            <ValuePicker {...p} />
          </div>
        </>
      )}
      {p.note && (
        <p id={noteId} class="muted dash-narrows">
          {p.note}
        </p>
      )}
      {p.error && (
        <p id={errorId} class="error dash-filter-error" role="alert">
          {p.error}
        </p>
      )}
    </div>
  );
}

function ValuePicker(p: FieldProps) {
  const project = useProject();
  const [open, setOpen] = useState(false);
  const [search, setSearch] = useState('');
  const [list, setList] = useState<{ value: string; count: number }[] | undefined>();
  const [failed, setFailed] = useState('');
  // The dataset whose rows the counts are (the facts': flights).
  const [counts, setCounts] = useState('');
  useEffect(() => {
    if (!open) return;
    let live = true;
    // Typing narrows the list on the server (prefix, any case); a short pause between keys.
    const t = setTimeout(() => {
      const q = new URLSearchParams({ limit: '50', ...(search ? { prefix: search } : {}) });
      get<AttributeValues>(
        `${projectApi(project.id)}/pmd/obj/${encodeURIComponent(p.attribute)}/values?${q}`,
      ).then(
        (r) => live && (setList(r.values), setCounts(r.counts), setFailed('')),
        (e: unknown) => live && setFailed(e instanceof Error ? e.message : String(e)),
      );
    }, 150);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [open, search, project.id, p.attribute]);

  // A click or tap outside the list and its button closes it (it lies over the page).
  useEffect(() => {
    if (!open) return;
    const away = (e: PointerEvent) => {
      const t = e.target as Node;
      const inside = [`${p.id}-values`, `${p.id}-choose`].some((id) =>
        document.getElementById(id)?.contains(t),
      );
      if (!inside) setOpen(false);
    };
    document.addEventListener('pointerdown', away);
    return () => document.removeEventListener('pointerdown', away);
  }, [open, p.id]);

  const chosen = textValues(p.text);
  const toggle = (v: string, on: boolean) =>
    p.onText(valuesText(on ? [...chosen, v] : chosen.filter((x) => x !== v)));
  const panel = `${p.id}-values`;
  return (
    <>
      <button
        type="button"
        class="quiet"
        id={`${p.id}-choose`}
        aria-expanded={open}
        aria-controls={panel}
        onClick={() => setOpen(!open)}
      >
        Choose<span class="sr-only"> {p.title} values</span>
      </button>
      {open && (
        <div
          id={panel}
          class="dash-values"
          role="group"
          aria-label={`${p.title} values`}
          onKeyDown={(e) => {
            // Escape closes the list, back on its button.
            if (e.key !== 'Escape') return;
            e.preventDefault();
            setOpen(false);
            document.getElementById(`${p.id}-choose`)?.focus();
          }}
        >
          <label>
            Search
            <input
              type="search"
              value={search}
              aria-label={`Search ${p.title} values`}
              onInput={(e) => setSearch(e.currentTarget.value)}
            />
          </label>
          {failed && <p class="error">{failed}</p>}
          {!list && !failed && <p class="muted">Loading values…</p>}
          {list && list.length === 0 && <p class="muted">No value starts with that.</p>}
          {list && list.length > 0 && counts && (
            <p class="muted dash-values-counts">Most frequent first; counts of {counts} rows.</p>
          )}
          {list && list.length > 0 && (
            <ul>
              {list.map((v) => (
                <li key={v.value}>
                  <label class="dash-choice">
                    <input
                      type="checkbox"
                      checked={chosen.includes(v.value)}
                      onChange={(e) => toggle(v.value, e.currentTarget.checked)}
                    />
                    <span>
                      {v.value || '(empty)'} <span class="muted">{formatNumber(v.count)}</span>
                    </span>
                  </label>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </>
  );
}
