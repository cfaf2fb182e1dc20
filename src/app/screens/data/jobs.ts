// Jobs (scache) from the Data screen: the id of a started job, and a hook that follows one
// until its status is final (OK, ERROR, CANCELLED).
import { useEffect, useState } from 'preact/hooks';
import { get, projectApi, type ApiError } from '../../api';
import { asApiError } from '../model/parts';
import { isFinal, type Job, type JobLink } from './types';

export const POLL_MS = 400;

export const jobIdOf = (r: JobLink): string => {
  const l = r.link.find((x) => x.rel === 'scache') ?? r.link[0];
  if (!l?.id) throw new Error('the API answered no job link');
  return l.id;
};

/** The job `id` (null: none), read again every POLL_MS until it is final. */
export function useJob(project: string, id: string | null) {
  const [job, setJob] = useState<Job | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  useEffect(() => {
    setJob(undefined);
    setError(undefined);
    if (!id) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      try {
        const j = await get<Job>(
          `${projectApi(project)}/kodiak/scache/obj/${encodeURIComponent(id)}`,
        );
        if (!live) return;
        setJob(j);
        if (!isFinal(j.status)) timer = setTimeout(tick, POLL_MS);
      } catch (e) {
        if (live) setError(asApiError(e));
      }
    };
    void tick();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [project, id]);
  return { job, error };
}
