// The AQL editor: a plain textarea (no wrapping) with a line-number gutter and, behind it, a
// mirror of the text that marks where an error points. Completion follows the combobox
// keyboard pattern on the textbox: after `[` the model's objects by title, on a word the
// functions (Ctrl+Space asks); arrows choose, Enter or Tab accepts, Escape closes.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useProject } from '../../project';
import { accept, contextAt, functionChoices, objectChoices, type Context } from './complete';
import { useObjectsFor, type Model } from './model';

/** The marked span and where it is (1-based line and column). */
export interface Mark {
  offset: number;
  length: number;
  line: number;
  column: number;
}

/** A selection to make from outside (a fix, "go to the error"); `seq` tells them apart. */
export interface Selection {
  start: number;
  end: number;
  seq: number;
}

interface Props {
  id: string;
  value: string;
  onChange: (text: string) => void;
  onRun: () => void;
  model: Model;
  mark: Mark | null;
  select: Selection | null;
  describedBy: string;
  invalid: boolean;
  placeholder?: string;
  /** The fewest lines shown (4 unless told). */
  minRows?: number;
}

// Ids of the suggestions, per editor (the query's, a formula's): `aql` keeps its old ones.
const listId = (id: string) => `${id}-choices`;
const optionOf = (id: string) => (i: number) => `${id}-choice-${i}`;

export function AqlEditor(p: Props) {
  const project = useProject().id;
  const LIST_ID = listId(p.id);
  const optionId = optionOf(p.id);
  const ta = useRef<HTMLTextAreaElement>(null);
  const caretAfter = useRef<number | null>(null);
  const navigated = useRef(false);
  const [ctx, setCtx] = useState<Context | null>(null);
  const [active, setActive] = useState(0);
  const [scroll, setScroll] = useState({ top: 0, left: 0 });

  const objects = useObjectsFor(project, p.model, ctx?.kind === 'object' ? ctx.query : null);
  const choices = useMemo(
    () =>
      !ctx
        ? []
        : ctx.kind === 'object'
          ? objectChoices(objects, ctx.query)
          : functionChoices(ctx.query),
    [ctx, objects],
  );
  const open = choices.length > 0;

  const refresh = (forced = false) => {
    const el = ta.current;
    if (!el) return;
    setActive(0);
    setCtx(
      el.selectionStart === el.selectionEnd ? contextAt(el.value, el.selectionStart, forced) : null,
    );
  };

  const choose = (i: number) => {
    const el = ta.current;
    const c = choices[i];
    if (!el || !ctx || !c) return;
    const r = accept(el.value, ctx, c);
    caretAfter.current = r.caret;
    setCtx(null);
    p.onChange(r.text);
  };

  // The caret after an accepted choice, once the text is rendered.
  useLayoutEffect(() => {
    const el = ta.current;
    if (el && caretAfter.current !== null) {
      el.setSelectionRange(caretAfter.current, caretAfter.current);
      caretAfter.current = null;
    }
  }, [p.value]);

  // A selection asked from outside: focus, select, and show it.
  useLayoutEffect(() => {
    const el = ta.current;
    if (!el || !p.select) return;
    el.focus();
    el.setSelectionRange(p.select.start, p.select.end);
    setCtx(null);
  }, [p.select?.seq]);

  useEffect(() => {
    if (open) document.getElementById(optionId(active))?.scrollIntoView({ block: 'nearest' });
  }, [open, active]);

  const onKeyDown = (e: KeyboardEvent) => {
    navigated.current = false;
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      setCtx(null);
      p.onRun();
      return;
    }
    if (e.key === ' ' && e.ctrlKey) {
      e.preventDefault();
      refresh(true);
      return;
    }
    if (!open) return;
    const n = choices.length;
    switch (e.key) {
      case 'ArrowDown':
        setActive((active + 1) % n);
        break;
      case 'ArrowUp':
        setActive((active - 1 + n) % n);
        break;
      case 'Enter':
      case 'Tab':
        choose(active);
        break;
      case 'Escape':
        setCtx(null);
        break;
      default:
        return;
    }
    e.preventDefault();
    navigated.current = true;
  };

  // Keys that move the caret (not used by the list) change what completion is about.
  const onKeyUp = (e: KeyboardEvent) => {
    if (navigated.current) return;
    if (/^(Arrow|Home|End|Page)/.test(e.key)) refresh();
  };

  const lines = p.value.split('\n');
  const mark = p.mark;
  const m = mark && mark.offset <= p.value.length ? mark : null;
  const shift = { transform: `translate(${-scroll.left}px, ${-scroll.top}px)` };

  // The list opens under the start of what is being completed.
  let popStyle: Record<string, string> = {};
  if (open && ctx) {
    const anchor = ctx.kind === 'object' ? ctx.start - 1 : ctx.start;
    const before = p.value.slice(0, anchor);
    const line = before.split('\n').length;
    const col = anchor - (before.lastIndexOf('\n') + 1);
    popStyle = {
      top: `calc(var(--aql-pad-y) + ${line} * var(--aql-lh) - ${scroll.top}px + 2px)`,
      left: `max(0px, min(calc(var(--aql-pad-x) + ${col}ch - ${scroll.left}px), calc(100% - var(--aql-pop-w))))`,
    };
  }

  return (
    <div class="aql-editor">
      <div class="aql-gutter" aria-hidden="true">
        <div style={{ transform: `translateY(${-scroll.top}px)` }}>
          {lines.map((_, i) => (
            <span key={i} class={m?.line === i + 1 ? 'err' : undefined}>
              {i + 1}
            </span>
          ))}
        </div>
      </div>
      <div class="aql-area">
        <div class="aql-mirror" aria-hidden="true">
          <pre style={shift}>
            {m ? p.value.slice(0, m.offset) : p.value}
            {m && (
              <mark
                class={m.length ? 'aql-mark' : 'aql-mark empty'}
                data-line={m.line}
                data-column={m.column}
              >
                {p.value.slice(m.offset, m.offset + m.length)}
              </mark>
            )}
            {m ? p.value.slice(m.offset + m.length) : ''}
            {'\n'}
          </pre>
        </div>
        <textarea
          ref={ta}
          id={p.id}
          value={p.value}
          rows={Math.min(16, Math.max(p.minRows ?? 4, lines.length + 1))}
          wrap="off"
          spellcheck={false}
          autocapitalize="off"
          autocomplete="off"
          placeholder={p.placeholder ?? 'SELECT [Carrier Name], SUM([Distance])'}
          aria-autocomplete="list"
          aria-haspopup="listbox"
          aria-controls={open ? LIST_ID : undefined}
          aria-activedescendant={open ? optionId(active) : undefined}
          aria-describedby={p.describedBy}
          aria-invalid={p.invalid || undefined}
          aria-keyshortcuts="Control+Enter Meta+Enter Control+Space"
          onInput={(e) => {
            const el = e.currentTarget;
            p.onChange(el.value);
            refresh();
          }}
          onKeyDown={onKeyDown}
          onKeyUp={onKeyUp}
          onClick={() => refresh()}
          onBlur={() => setCtx(null)}
          onScroll={(e) =>
            setScroll({ top: e.currentTarget.scrollTop, left: e.currentTarget.scrollLeft })
          }
        />
        {open && (
          <div class="aql-pop" style={popStyle}>
            <ul role="listbox" id={LIST_ID} aria-label="Suggestions">
              {choices.map((c, i) => (
                <li
                  key={c.id}
                  id={optionId(i)}
                  role="option"
                  aria-selected={i === active}
                  onMouseDown={(e) => e.preventDefault()}
                  onClick={() => choose(i)}
                >
                  <span class="label">{c.label}</span>
                  <span class="kind">{c.detail}</span>
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>
      <p class="vh" role="status">
        {open
          ? `${choices.length} suggestion${choices.length === 1 ? '' : 's'}: arrow keys choose, Enter or Tab accepts, Escape closes`
          : ''}
      </p>
    </div>
  );
}
