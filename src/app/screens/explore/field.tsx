// A form field: its label above the control, tied by id (a label wrapping a select would
// take the options' text into its name).
import type { ComponentChildren } from 'preact';

export function Field(props: { id: string; label: string; children: ComponentChildren }) {
  return (
    <div class="explore-field">
      <label for={props.id}>{props.label}</label>
      {props.children}
    </div>
  );
}
