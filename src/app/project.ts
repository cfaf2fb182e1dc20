// The project a screen works in: its details as GET /projects/{id} answers them (label, the
// caller's levels, the announcement), shared by the screens through a context.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

export interface ProjectDetails {
  id: string;
  label: string;
  description?: string;
  access: {
    admin: boolean;
    mdadmin: boolean;
    useradmin: boolean;
    roles: string[];
    /** The caller's row-level filter (AQL), null when none. */
    filter?: string | null;
  };
  announcement: { title: string; message: string; current: boolean } | null;
}

export const ProjectContext = createContext<ProjectDetails | null>(null);

export function useProject(): ProjectDetails {
  const p = useContext(ProjectContext);
  if (!p) throw new Error('useProject outside a project screen');
  return p;
}
