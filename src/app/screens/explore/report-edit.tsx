// Saved reports in Explore: a list to open one (its query goes into the editor and runs), and
// for MD Admins the open report's name and query saved back (GET, then PUT pmd/obj/{id} with
// the name and def.aql replaced), or the report deleted after a confirmation. A title another
// report holds is the API's 409, shown at the name.
import { useEffect, useState } from 'preact/hooks';
import { api, get, projectApi } from '../../api';
import { useResource } from '../../data';
import { ErrorNote } from '../../ui';
import { Field } from './field';
import type { Preset } from './result-chart';
import { nameError, NameField, useSubmit, type Saved } from './save';

interface ReportList {
  objects: { ident: string; name: string }[];
}

interface ObjectJson {
  object: { name: string; def: { aql: string } & Record<string, unknown> };
}

export const objectPath = (project: string, ident: string) =>
  `${projectApi(project)}/pmd/obj/${encodeURIComponent(ident)}`;

/** The report's saved query and visualization. */
export const reportAql = async (project: string, ident: string) => {
  const { object } = await get<ObjectJson>(objectPath(project, ident));
  const vis = object.def.visualization as Preset | undefined;
  return { name: object.name, aql: object.def.aql, visualization: vis };
};

export function ReportPicker(props: {
  project: string;
  open: string | null;
  /** Changes when the list may have changed (a report saved, renamed, deleted). */
  version: number;
  onOpen: (ident: string) => void;
}) {
  const list = useResource<ReportList>(
    `${projectApi(props.project)}/pmd/obj?rel=object.report&limit=1000`,
  );
  const { reload } = list;
  useEffect(() => {
    if (props.version) reload();
  }, [props.version, reload]);
  const reports = [...(list.value?.objects ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  if (!reports.length) return null;
  return (
    <Field id="open-report" label="Open a saved report">
      <select
        id="open-report"
        value={props.open ?? ''}
        onChange={(e) => e.currentTarget.value && props.onOpen(e.currentTarget.value)}
      >
        <option value="">Choose a report…</option>
        {reports.map((r) => (
          <option key={r.ident} value={r.ident}>
            {r.name}
          </option>
        ))}
      </select>
    </Field>
  );
}

export function ReportEditor(props: {
  project: string;
  report: Saved;
  /** The query that ran last: what Save changes writes. */
  aql: string | null;
  onSaved: (r: Saved) => void;
  onDeleted: () => void;
  onClose: () => void;
}) {
  const [name, setName] = useState(props.report.name);
  const [confirming, setConfirming] = useState(false);
  const [done, setDone] = useState('');
  const s = useSubmit();
  const path = objectPath(props.project, props.report.ident);

  const save = (e: Event) => {
    e.preventDefault();
    setDone('');
    void s.submit(async () => {
      const { object } = await get<ObjectJson>(path);
      const def = { ...object.def, ...(props.aql ? { aql: props.aql } : {}) };
      await api('PUT', path, { ...object, name: name.trim(), def });
      props.onSaved({ ident: props.report.ident, name: name.trim() });
      setDone('Saved.');
    });
  };
  const remove = () =>
    void s.submit(async () => {
      await api('DELETE', path);
      props.onDeleted();
    });

  return (
    <form class="card explore-save" onSubmit={save} aria-labelledby="edit-report-h">
      <h3 id="edit-report-h">Report “{props.report.name}”</h3>
      <p class="muted">Change the query above, run it, then save it here; or rename the report.</p>
      <NameField
        id="edit-report-name"
        label="Name"
        value={name}
        onInput={setName}
        error={s.error}
      />
      <div class="explore-bar">
        <button type="submit" disabled={s.busy || !props.aql}>
          Save changes
        </button>
        <button type="button" class="quiet" onClick={() => setConfirming(true)}>
          Delete…
        </button>
        <button type="button" class="quiet" onClick={props.onClose}>
          Close the report
        </button>
      </div>
      {confirming && (
        <div class="explore-confirm" role="group" aria-label="Confirm deleting">
          <p>Delete “{props.report.name}” for everyone? Dashboards using it must drop it first.</p>
          <button type="button" onClick={remove} disabled={s.busy}>
            Delete the report
          </button>
          <button type="button" class="quiet" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </div>
      )}
      <ErrorNote error={nameError(s.error) ? undefined : s.error} />
      {done && <p role="status">{done}</p>}
    </form>
  );
}
