// Reading API resources into components: loading, error and value, again on demand.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, get } from './api';
import { takeEarly } from './prefetch';

export interface Resource<T> {
  value: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => void;
}

/** GETs `path` (null: nothing yet) whenever it changes. */
export function useResource<T>(path: string | null): Resource<T> {
  const [state, setState] = useState<{ value?: T; error?: ApiError; loading: boolean }>({
    loading: path !== null,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    (takeEarly<T>(path) ?? get<T>(path)).then(
      (value) => live && setState({ value, loading: false }),
      (error: unknown) =>
        live &&
        setState({
          error: error instanceof ApiError ? error : new ApiError(0, String(error)),
          loading: false,
        }),
    );
    return () => {
      live = false;
    };
  }, [path, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { value: state.value, error: state.error, loading: state.loading, reload };
}
