// Flows: model objects of type "flow" whose def is a graph of boxes; a run is a job of type
// "flow" (FLOWS.md). Filled in below by the run engine.
import type { ProjectActor } from '../access/actor.js';
import type { Job } from '../jobs/jobs.js';

export class Flows {
  async start(_a: ProjectActor, _flow: string, _origin: { trigger?: string } = {}): Promise<Job> {
    throw new Error('not yet');
  }

  isRunning(_projectId: string, _flow: string): boolean {
    return false;
  }
}
