// The columns of a prescription as a form table: per column its label, data type, role
// (attribute, label, fact), what a label names, a reference to another dataset, and the
// primary key (one radio group).
import type {
  ColumnKind as ObjectType,
  Prescription,
  PrescriptionColumn as Column,
} from '../../../contract/guess';
import { DATA_TYPES, OBJECT_TYPES, type DataType } from './types';

/** A column changed, with what no longer fits its role dropped. */
export function withColumn(rx: Prescription, index: number, change: Partial<Column>): Prescription {
  const columns = rx.columns.map((c, i) => {
    if (i !== index) return c;
    const next: Column = { ...c, ...change };
    if (next.objectType !== 'L') delete next.labelOf;
    if (next.objectType !== 'A') delete next.reference;
    if (next.objectType === 'L' && !next.labelOf)
      next.labelOf = rx.columns.find((o) => o.objectType === 'A' && o.id !== c.id)?.id;
    return next;
  });
  const key = columns.find((c) => c.id === rx.primarykey);
  return { ...rx, columns, primarykey: key && key.objectType === 'A' ? rx.primarykey : '' };
}

export function ColumnsEditor(props: {
  rx: Prescription;
  datasets: string[];
  onChange: (rx: Prescription) => void;
}) {
  const { rx } = props;
  const set = (i: number, change: Partial<Column>) => props.onChange(withColumn(rx, i, change));
  const attributes = rx.columns.filter((c) => c.objectType === 'A');
  const others = props.datasets.filter((d) => d !== rx.clustername);
  return (
    <div class="data-table-wrap">
      <table class="data-table data-columns">
        <caption class="data-sr">Columns of the dataset</caption>
        <thead>
          <tr>
            <th scope="col">Column</th>
            <th scope="col">Label</th>
            <th scope="col">Type</th>
            <th scope="col">Role</th>
            <th scope="col">Label of / references</th>
            <th scope="col">Key</th>
          </tr>
        </thead>
        <tbody>
          {rx.columns.map((c, i) => (
            <tr key={c.id} data-column={c.id}>
              <th scope="row">
                <code>{c.id}</code>
                {c.originalheader && c.originalheader !== c.id && (
                  <span class="muted data-header"> “{c.originalheader}”</span>
                )}
              </th>
              <td data-label="Label">
                <input
                  value={c.label}
                  aria-label={`Label of ${c.id}`}
                  onInput={(e) => set(i, { label: e.currentTarget.value })}
                />
              </td>
              <td data-label="Type">
                <select
                  value={c.dataType}
                  aria-label={`Type of ${c.id}`}
                  onChange={(e) => set(i, { dataType: e.currentTarget.value as DataType })}
                >
                  {DATA_TYPES.map((t) => (
                    <option key={t} value={t}>
                      {t}
                    </option>
                  ))}
                </select>
                {c.dataType === 'date' && (
                  <input
                    class="data-dateformat"
                    value={c.dateFormat ?? ''}
                    placeholder="%Y-%m-%d"
                    aria-label={`Date format of ${c.id}`}
                    onInput={(e) => set(i, { dateFormat: e.currentTarget.value || undefined })}
                  />
                )}
              </td>
              <td data-label="Role">
                <select
                  value={c.objectType}
                  aria-label={`Role of ${c.id}`}
                  onChange={(e) => set(i, { objectType: e.currentTarget.value as ObjectType })}
                >
                  {OBJECT_TYPES.map(([t, title]) => (
                    <option key={t} value={t}>
                      {title}
                    </option>
                  ))}
                </select>
              </td>
              <td data-label="Label of / references">
                {c.objectType === 'L' && (
                  <select
                    value={c.labelOf ?? ''}
                    aria-label={`Attribute ${c.id} is a label of`}
                    onChange={(e) => set(i, { labelOf: e.currentTarget.value })}
                  >
                    {attributes
                      .filter((a) => a.id !== c.id)
                      .map((a) => (
                        <option key={a.id} value={a.id}>
                          {a.id}
                        </option>
                      ))}
                  </select>
                )}
                {c.objectType === 'A' && (
                  <select
                    value={c.reference ?? ''}
                    aria-label={`Dataset ${c.id} references`}
                    onChange={(e) => set(i, { reference: e.currentTarget.value || undefined })}
                  >
                    <option value="">no reference</option>
                    {[...new Set([...others, ...(c.reference ? [c.reference] : [])])].map((d) => (
                      <option key={d} value={d}>
                        → {d}
                      </option>
                    ))}
                  </select>
                )}
              </td>
              <td class="data-key" data-label="Key">
                <input
                  type="radio"
                  name="primarykey"
                  checked={rx.primarykey === c.id}
                  disabled={c.objectType !== 'A'}
                  aria-label={`${c.id} is the primary key`}
                  onChange={() => props.onChange({ ...rx, primarykey: c.id })}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <label class="check data-nokey">
        <input
          type="radio"
          name="primarykey"
          checked={rx.primarykey === ''}
          onChange={() => props.onChange({ ...rx, primarykey: '' })}
        />
        No primary key
      </label>
    </div>
  );
}

/** The first rows of the file, as the guess read them. */
export function SampleRows({ rx }: { rx: Prescription }) {
  const rows = rx.data ?? [];
  if (!rows.length) return <p class="muted">The file has no data rows.</p>;
  return (
    <div class="data-table-wrap">
      <table class="data-table data-sample">
        <caption class="data-sr">The file’s first rows</caption>
        <thead>
          <tr>
            {rx.columns.map((c) => (
              <th scope="col" key={c.id}>
                {c.label || c.id}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              {r.map((v, j) => (
                <td key={j} class={rx.columns[j]?.objectType === 'F' ? 'num' : undefined}>
                  {v}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
