// What a run found wrong (an error: nothing ran) or worth knowing (no rows, and why): each
// message with where it points, and its suggestions as fixes to click.
import { fixesFor, type Fix, type Problem } from './fixes';

interface Props {
  id: string;
  kind: 'error' | 'warning';
  problems: Problem[];
  /** The editor's text now, and whether it is still the text the problems are about. */
  text: string;
  current: boolean;
  onGoTo: (p: Problem) => void;
  onFix: (f: Fix) => void;
}

export function Problems(props: Props) {
  return (
    <div
      id={props.id}
      class={`explore-problems ${props.kind}`}
      role={props.kind === 'error' ? 'alert' : 'status'}
    >
      {props.problems.map((p, i) => {
        const fixes = props.current ? fixesFor(props.text, p) : [];
        return (
          <div key={i} class="explore-problem">
            <p class="message">{p.message}</p>
            {props.current && p.line !== undefined && p.column !== undefined && (
              <button type="button" class="quiet small" onClick={() => props.onGoTo(p)}>
                Go to line {p.line}, column {p.column}
              </button>
            )}
            {fixes.length > 0 && (
              <div class="explore-fixes">
                <span class="muted">{fixes.length === 1 ? 'Fix:' : 'Fixes:'}</span>
                {fixes.map((f) => (
                  <button
                    key={f.text}
                    type="button"
                    class="quiet small fix"
                    title={f.description}
                    aria-label={f.description}
                    onClick={() => props.onFix(f)}
                  >
                    {f.label}
                  </button>
                ))}
              </div>
            )}
          </div>
        );
      })}
    </div>
  );
}
