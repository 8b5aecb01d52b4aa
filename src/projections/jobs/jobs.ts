// jobs: one document per repair job, read by queries/jobs/jobs.ts.
import { type JobData, type JobEvent, type JobStatus, type OptionalIdentifier, jobCodec } from '../../domain/jobs/job.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';

/** The stored job: the Job body plus who owns it. */
export interface JobDoc extends JobData {
  id: string;
  organization_id: string;
  /** The app (client) that created it, whose external id it carries; null if made otherwise. */
  client_id: string | null;
  /** The installation that created it. */
  integration_id: string | null;
  external_id: OptionalIdentifier;
  images: string[];
  status: JobStatus;
  created_at: string;
  updated_at: string;
}

/** Builds the jobs table from job events. */
export const jobsProjection = documentProjection({
  name: 'jobs',
  version: 1,
  tables: [
    documentTable<JobDoc, JobEvent>({
      table: 'jobs',
      events: jobCodec,
      columns: (d) => ({ organization_id: d.organization_id, client_id: d.client_id, external_id: d.external_id.value ?? null, created_at: d.created_at }),
      handlers: {
        JobCreated: (_doc, d) => {
          const { job_id, created_at, ...rest } = d;
          return { id: job_id, ...rest, images: [], created_at, updated_at: created_at };
        },
        JobUpdated: (doc, d) => doc && { ...doc, ...d.changes, updated_at: d.updated_at },
        JobReplaced: (doc, d) => doc && { ...doc, ...d.data, updated_at: d.replaced_at },
      },
    }),
  ],
});
