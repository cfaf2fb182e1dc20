// Who may use project file storage: the spec's Storage section asks for MD Admin (Admins
// hold every level). One check, made inside the engine by ProjectFiles (engine.files),
// uploads and the structure guess; front doors never make it themselves.
import { requireLevel, type ProjectActor } from '../access/actor.js';

export function requireStorageAccess(actor: ProjectActor): void {
  requireLevel(actor, 'mdadmin');
}
