// The model objects a query can name (attributes, labels, facts, metrics, filters the member
// may read), for completion after `[`: the first 1000 once, and a search by the typed text
// when the model holds more.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { get, projectApi } from '../../api';
import { useResource } from '../../data';
import type { Paging } from '../../../contract/links';
import type { ModelObject } from './complete';

const KINDS = ['attribute', 'label', 'fact', 'metric', 'filter'];
const LIMIT = 1000;

interface ObjectList {
  objects: ModelObject[];
  paging: Paging;
}

const listPath = (project: string, extra = '') =>
  `${projectApi(project)}/pmd/obj?${KINDS.map((k) => `rel=object.${k}`).join('&')}${extra}`;

export interface Model {
  objects: ModelObject[];
  /** Whether `objects` is every object (else completion searches the server too). */
  complete: boolean;
  reload: () => void;
}

export function useModel(project: string): Model {
  const r = useResource<ObjectList>(listPath(project, `&limit=${LIMIT}`));
  const objects = r.value?.objects ?? [];
  const complete = !r.value || r.value.paging.total <= objects.length;
  return { objects, complete, reload: r.reload };
}

/** Objects for a typed reference: from the loaded list, plus a server search for big models. */
export function useObjectsFor(project: string, model: Model, query: string | null): ModelObject[] {
  const [found, setFound] = useState<{ query: string; objects: ModelObject[] } | null>(null);
  useEffect(() => {
    if (query === null || model.complete || !query.trim()) return;
    let live = true;
    const t = setTimeout(() => {
      get<ObjectList>(listPath(project, `&limit=50&query=${encodeURIComponent(query.trim())}`))
        .then((r) => live && setFound({ query, objects: r.objects }))
        .catch(() => undefined);
    }, 150);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [project, model.complete, query]);
  return useMemo(() => {
    if (query === null) return [];
    const extra = found && found.query === query ? found.objects : [];
    const seen = new Set(model.objects.map((o) => o.ident));
    return [...model.objects, ...extra.filter((o) => !seen.has(o.ident))];
  }, [model.objects, found, query]);
}
