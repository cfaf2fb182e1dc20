// Which fields can join the builder's question before it runs: the API's
// GET pmd/obj/{id}/compatible for each measure (the attributes that can break it down) and
// each breakdown (the facts and metrics it can break down). A field outside every answer
// cannot combine with the question; the builder shows it so and does not offer it.
import { useEffect, useState } from 'preact/hooks';
import { get, projectApi } from '../../api';
import type { Built } from './builder-aql';

interface Compatible {
  compatible: { id: string }[];
}

/** Answers by project and object, for the page's life (the model rarely changes meanwhile). */
const known = new Map<string, Promise<Set<string> | null>>();

function compatibleWith(project: string, ident: string): Promise<Set<string> | null> {
  const key = `${project}\u0000${ident}`;
  let p = known.get(key);
  if (!p) {
    p = get<Compatible>(
      `${projectApi(project)}/pmd/obj/${encodeURIComponent(ident)}/compatible`,
    ).then(
      (r) => new Set(r.compatible.map((c) => c.id)),
      // Not known (no right to read it, a network error): no field is marked for it.
      () => (known.delete(key), null),
    );
    known.set(key, p);
  }
  return p;
}

/** The fields that combine with what is chosen: every answer's intersection; null: all. */
export interface Combinable {
  /** Attributes and labels the chosen measures can be broken down by. */
  dims: Set<string> | null;
  /** Facts and metrics the chosen breakdowns can break down. */
  measures: Set<string> | null;
}

const intersect = (sets: (Set<string> | null)[]): Set<string> | null =>
  sets.reduce<Set<string> | null>(
    (acc, s) => (!s ? acc : !acc ? new Set(s) : new Set([...acc].filter((x) => s.has(x)))),
    null,
  );

export function useCombinable(project: string, built: Built | null): Combinable {
  const measureIds =
    built?.measures.flatMap((x) => (x.kind === 'fact' || x.kind === 'metric' ? [x.ref] : [])) ?? [];
  const dimIds = built?.dims.map((d) => d.ref) ?? [];
  const key = `${measureIds.join(',')}|${dimIds.join(',')}`;
  const [state, setState] = useState<{ key: string; value: Combinable }>({
    key: '',
    value: { dims: null, measures: null },
  });
  useEffect(() => {
    let live = true;
    void Promise.all([
      Promise.all(measureIds.map((id) => compatibleWith(project, id))),
      Promise.all(dimIds.map((id) => compatibleWith(project, id))),
    ]).then(([fromMeasures, fromDims]) => {
      if (live)
        setState({ key, value: { dims: intersect(fromMeasures), measures: intersect(fromDims) } });
    });
    return () => {
      live = false;
    };
    // The key names every id the effect reads.
  }, [project, key]);
  return state.key === key ? state.value : { dims: null, measures: null };
}
