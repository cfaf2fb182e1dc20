// Picking values of an attribute for a filter: the values the API lists (GET
// pmd/obj/{id}/values, most rows first, what MCP get_attribute_values answers), searched by
// their start as the member types; ticked ones are kept in the filter.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, projectApi } from '../../api';
import { formatNumber } from '../../format';
import { ErrorNote } from '../../ui';
import type { AttributeValues } from '../../../contract/model';

const LIMIT = 20;

export function ValuePicker(props: {
  project: string;
  ident: string;
  title: string;
  chosen: string[];
  onChange: (values: string[]) => void;
}) {
  const [prefix, setPrefix] = useState('');
  const [found, setFound] = useState<AttributeValues | null>(null);
  const [error, setError] = useState<ApiError>();
  useEffect(() => {
    let live = true;
    const t = setTimeout(
      () => {
        const q = new URLSearchParams({ limit: String(LIMIT), ...(prefix ? { prefix } : {}) });
        get<AttributeValues>(
          `${projectApi(props.project)}/pmd/obj/${encodeURIComponent(props.ident)}/values?${q}`,
        ).then(
          (v) => live && (setFound(v), setError(undefined)),
          (e: unknown) => live && setError(e instanceof ApiError ? e : new ApiError(0, String(e))),
        );
      },
      prefix ? 200 : 0,
    );
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [props.project, props.ident, prefix]);

  const toggle = (v: string, on: boolean) =>
    props.onChange(on ? [...props.chosen, v] : props.chosen.filter((c) => c !== v));
  // Chosen values stay listed (ticked) even when the search hides them.
  const listed = found?.values.map((v) => v.value) ?? [];
  const extra = props.chosen.filter((c) => !listed.includes(c));
  const id = `values-${props.ident.replace(/[^\w-]/g, '_')}`;
  return (
    <div class="value-picker">
      <label for={`${id}-q`}>Search values of {props.title}</label>
      <input
        id={`${id}-q`}
        type="search"
        value={prefix}
        autocomplete="off"
        onInput={(e) => setPrefix(e.currentTarget.value)}
      />
      <ErrorNote error={error} />
      <ul class="value-list" aria-label={`Values of ${props.title}`} aria-busy={!found}>
        {[
          ...extra.map((value) => ({ value, count: null as number | null })),
          ...(found?.values ?? []),
        ].map((v) => (
          <li key={v.value}>
            <label>
              <input
                type="checkbox"
                checked={props.chosen.includes(v.value)}
                onChange={(e) => toggle(v.value, e.currentTarget.checked)}
              />
              {v.value === '' ? '(empty)' : v.value}
              {v.count !== null && <span class="muted"> {formatNumber(v.count)}</span>}
            </label>
          </li>
        ))}
      </ul>
      {found?.truncated && (
        <p class="muted small">More values exist: type the start of one to find it.</p>
      )}
      {found && !found.values.length && <p class="muted small">No value starts so.</p>}
    </div>
  );
}
