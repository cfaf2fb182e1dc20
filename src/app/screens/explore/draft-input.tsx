// An input that writes its value only when committed (Enter, Tab, leaving the box: the change
// event), as the builder's boxes do since each write runs the query. What is typed meanwhile is
// kept here: a re-render while typing (a result arriving, a timer) would otherwise put the old
// value back into the box and the typing would be lost without a change event.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';

type Props = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'value' | 'onInput' | 'onChange'> & {
  value: string;
  onCommit: (value: string) => void;
};

export function DraftInput({ value, onCommit, ...rest }: Props) {
  const [draft, setDraft] = useState<string | null>(null);
  return (
    <input
      {...rest}
      value={draft ?? value}
      onInput={(e) => setDraft(e.currentTarget.value)}
      onChange={(e) => {
        setDraft(null);
        onCommit(e.currentTarget.value);
      }}
    />
  );
}
