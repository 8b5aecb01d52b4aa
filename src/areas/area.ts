// What an area hands the composition root: its operations, the projections that build its read models, and its workers.
import type { Operation } from '../contract/operation.ts';
import type { Projection } from '../projections/projection.ts';
import type { Worker } from '../workers/worker.ts';

/** One area of the service (identity, integrations, jobs, billing, ...). */
export interface Area {
  name: string;
  operations: Operation[];
  projections: Projection[];
  workers?: Worker[];
}
