// Who may use project file storage: the spec's Storage section asks for MD Admin (Admins
// hold every level). One check, shared by the REST storage routes and WebDAV.
import { requireLevel, type ProjectActor } from '../access/actor.js';

export function requireStorageAccess(actor: ProjectActor): void {
  requireLevel(actor, 'mdadmin');
}
