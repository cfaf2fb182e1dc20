// The one place a project's backend is chosen: by its kind, read from the project (a
// warehouse binding makes it "warehouse"). Everything else asks `of(projectId)` for what it
// needs and never which database it is.
import type { ProjectBackend } from './backend.js';

export class Backends {
  private readonly byKind: Map<string, ProjectBackend>;

  constructor(
    backends: ProjectBackend[],
    /** The kind of a project now (one read of its row). */
    private readonly kindOf: (projectId: string) => Promise<string>,
  ) {
    this.byKind = new Map(backends.map((b) => [b.kind, b]));
  }

  /** The backend of a project of this kind. */
  kind(kind: string): ProjectBackend {
    const b = this.byKind.get(kind);
    if (!b) throw new Error(`no backend for projects of kind "${kind}"`);
    return b;
  }

  /** The backend a project's queries and loads use now. */
  async of(projectId: string): Promise<ProjectBackend> {
    return this.kind(await this.kindOf(projectId));
  }
}
