// The project a screen works in: its details as GET /projects/{id} answers them (label, the
// caller's levels, the announcement), shared by the screens through a context.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ProjectDetails } from '../contract/projects';

export type { ProjectDetails };

export const ProjectContext = createContext<ProjectDetails | null>(null);

export function useProject(): ProjectDetails {
  const p = useContext(ProjectContext);
  if (!p) throw new Error('useProject outside a project screen');
  return p;
}
