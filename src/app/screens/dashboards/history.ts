// Undo and redo for the dashboard editor: the states it went through, the present, and those
// undone. Changes with the same key in a row (the keystrokes of one title, the steps of one
// drag) are one step.
import { useCallback, useState } from 'preact/hooks';

interface State<T> {
  past: T[];
  present: T;
  future: T[];
  key?: string;
}

const LIMIT = 100;

export function useHistory<T>(initial: () => T) {
  const [s, setS] = useState<State<T>>(() => ({ past: [], present: initial(), future: [] }));
  /** The next state (from the present); `key`: merged with the last change of that key. */
  const set = useCallback((next: (present: T) => T, key?: string) => {
    setS((h) => {
      const value = next(h.present);
      if (value === h.present) return h;
      if (key !== undefined && key === h.key) return { ...h, present: value, future: [] };
      return { past: [...h.past, h.present].slice(-LIMIT), present: value, future: [], key };
    });
  }, []);
  const undo = useCallback(() => {
    setS((h) =>
      h.past.length
        ? { past: h.past.slice(0, -1), present: h.past.at(-1)!, future: [h.present, ...h.future] }
        : h,
    );
  }, []);
  const redo = useCallback(() => {
    setS((h) =>
      h.future.length
        ? { past: [...h.past, h.present], present: h.future[0]!, future: h.future.slice(1) }
        : h,
    );
  }, []);
  return {
    value: s.present,
    set,
    undo,
    redo,
    canUndo: s.past.length > 0,
    canRedo: s.future.length > 0,
  };
}
