// A custom expression as a builder column: its name and its AQL, written with the editor's
// completion (the model's objects after `[`, functions on a word), e.g.
// `SUM([Distance]) / COUNT([dataset.flights])` named "Miles per flight".
import { useState } from 'preact/hooks';
import { AqlEditor } from './editor';
import type { Model } from './model';

export function FormulaForm(props: { model: Model; onAdd: (aql: string, name: string) => void }) {
  const [name, setName] = useState('');
  const [aql, setAql] = useState('');
  const [open, setOpen] = useState(false);
  const ready = name.trim() !== '' && aql.trim() !== '';
  const add = () => {
    if (!ready) return;
    props.onAdd(aql.trim(), name.trim());
    setName('');
    setAql('');
    setOpen(false);
  };
  return (
    <details
      class="builder-formula"
      open={open}
      onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}
    >
      <summary>Add a formula</summary>
      <label for="builder-formula-name">Name</label>
      <input
        id="builder-formula-name"
        value={name}
        maxLength={200}
        placeholder="Miles per flight"
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <label for="builder-formula">Formula</label>
      <AqlEditor
        id="builder-formula"
        value={aql}
        onChange={setAql}
        onRun={add}
        model={props.model}
        mark={null}
        select={null}
        describedBy="builder-formula-hint"
        invalid={false}
        minRows={2}
        placeholder="SUM([Distance]) / COUNT([dataset.flights])"
      />
      <p id="builder-formula-hint" class="muted small">
        Any AQL expression: type <kbd>[</kbd> for the model's objects, a word for functions.
      </p>
      <button type="button" disabled={!ready} onClick={add}>
        Add the formula
      </button>
    </details>
  );
}
