// Editing an object of the model (MD Admins and Admins, who hold every position on every
// object; nobody else is offered it, and the API answers them 403): its title, description,
// tags, a metric's number format (previewed as it will show), and who may read it: every
// member (no access entries) or only the roles ticked. Saved with GET then PUT pmd/obj/{id}:
// the object as it is, these fields replaced; a taken title is shown at the title.
import { useState } from 'preact/hooks';
import { api, ApiError, projectApi } from '../../api';
import { useResource } from '../../data';
import { formatMeasure } from '../../format';
import type { ModelObject } from '../../../contract/model';
import { Problem } from './parts';
import { aclFor } from './acl';

/** The types whose title and description are edited here (others have screens of their own). */
export const EDITABLE = new Set([
  'attribute',
  'label',
  'fact',
  'metric',
  'filter',
  'report',
  'dashboard',
  'folder',
]);
const SAMPLE = 1234567.891;

export function EditObject(props: {
  project: string;
  o: ModelObject;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const { o } = props;
  const [name, setName] = useState(o.name);
  const [description, setDescription] = useState(o.description);
  const [tags, setTags] = useState(o.tag.join(', '));
  const [format, setFormat] = useState(
    typeof o.def.format === 'string' ? (o.def.format as string) : '',
  );
  const readers = o.acl.filter((e) => e.acl.startsWith('r')).map((e) => e.userrole);
  const [everyone, setEveryone] = useState(o.acl.length === 0);
  const [roles, setRoles] = useState<string[]>(readers);
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const known = useResource<{ objects: { ident: string; name: string }[] }>(
    `${projectApi(props.project)}/pmd/obj?rel=object.userrole&limit=1000`,
  );
  const roleList = [
    ...new Set([
      ...(known.value?.objects ?? []).map((r) => r.ident),
      ...o.acl.map((e) => e.userrole),
    ]),
  ].sort();
  const path = `${projectApi(props.project)}/pmd/obj/${encodeURIComponent(o.ident)}`;

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      // The object as it is now, so nothing else it holds is lost.
      const { object } = await api<{ object: ModelObject }>('GET', path);
      const def = { ...object.def };
      if (object.type === 'metric') {
        if (format.trim()) def.format = format.trim();
        else delete def.format;
      }
      await api('PUT', path, {
        name: name.trim(),
        description,
        tag: tags
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean),
        def,
        acl: aclFor(object.acl, everyone, roles),
      });
      props.onSaved();
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, String(err)));
    } finally {
      setBusy(false);
    }
  };
  const nameError = error?.context.field === 'name' ? error : undefined;
  return (
    <form class="model-edit" onSubmit={save} aria-labelledby="model-edit-h">
      <h2 id="model-edit-h">Edit</h2>
      <label>
        Title
        <input
          value={name}
          required
          maxLength={255}
          aria-invalid={nameError ? true : undefined}
          aria-describedby={nameError ? 'model-edit-name-error' : undefined}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      {nameError && (
        <p id="model-edit-name-error" class="error" role="alert">
          {nameError.message}
        </p>
      )}
      <label>
        Description
        <textarea
          rows={3}
          maxLength={10_000}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
      </label>
      <label>
        Tags <span class="muted">(separated by commas)</span>
        <input value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
      </label>
      {o.type === 'metric' && (
        <label>
          Number format <span class="muted">(such as #,##0.00, 0.0% or #,##0," K")</span>
          <input
            value={format}
            maxLength={100}
            aria-describedby="model-edit-format-shows"
            onInput={(e) => setFormat(e.currentTarget.value)}
          />
          <span id="model-edit-format-shows" class="muted">
            {SAMPLE.toString()} shows as{' '}
            <output>{formatMeasure(SAMPLE, format.trim() || undefined)}</output>
          </span>
        </label>
      )}
      <fieldset>
        <legend>Who may read it</legend>
        <label class="inline">
          <input
            type="radio"
            name="readers"
            checked={everyone}
            onChange={() => setEveryone(true)}
          />{' '}
          Every member of the project
        </label>
        <label class="inline">
          <input
            type="radio"
            name="readers"
            checked={!everyone}
            onChange={() => setEveryone(false)}
          />{' '}
          Only members holding these roles (and MD Admins, Admins):
        </label>
        {roleList.length === 0 && !known.loading && (
          <p class="muted">There are no user roles in this project yet.</p>
        )}
        <ul class="model-roles">
          {roleList.map((r) => (
            <li key={r}>
              <label class="inline">
                <input
                  type="checkbox"
                  disabled={everyone}
                  checked={!everyone && roles.includes(r)}
                  onChange={(e) =>
                    setRoles((now) =>
                      e.currentTarget.checked ? [...now, r] : now.filter((x) => x !== r),
                    )
                  }
                />{' '}
                <code>{r}</code>
              </label>
            </li>
          ))}
        </ul>
      </fieldset>
      {error && !nameError && <Problem error={error} />}
      <div class="model-edit-actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" class="quiet" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
