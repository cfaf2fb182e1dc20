// Flows as the API lists them (docs/api.md "Data integration", GET inflow/flowlist).
import type { JobStatus } from './jobs.js';

/** A flow's latest run: `started` null while it waits its turn (or was cancelled before). */
export interface FlowLastRun {
  job: string;
  status: JobStatus;
  started: string | null;
  finished: string | null;
  message?: string;
}

/** One flow of GET inflow/flowlist (`def` and `triggers` with fullLoad=true); the API adds `link`. */
export interface FlowListItem {
  id: string;
  name: string;
  inputs: Array<{ box: string; type: string; source: string }>;
  outputs: Array<{ box: string; type: string; target: string }>;
  running: boolean;
  lastRun: FlowLastRun | null;
  def?: Record<string, unknown>;
  triggers?: Array<{ id: string; name: string; type: string; enabled: boolean }>;
}
