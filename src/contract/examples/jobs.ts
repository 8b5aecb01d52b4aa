// The repair-job examples shown in OpenAPI and /docs: one job an integration created with its own id, at a site of
// the repairer, for a plate-identified vehicle. jobs.insert, jobs.get and sites.list tell the same story.
import type { z } from 'zod';
import type { Job, JobsInsertRequest } from '../schemas/jobs.ts';

/** The ids of the story. */
export const exampleJobIds = {
  job: '0193b2d4-8c1e-7a55-9f0e-3b6c2d8a4e71',
  site: '0193635c-0eea-7da8-862d-5b0237b42b43',
} as const;

/** A site of the repairer. */
export const exampleSite = { id: exampleJobIds.site, name: 'Leeds bodyshop' };

/** jobs.insert creating the job under the integration's own id. */
export const exampleJobInsert: z.input<typeof JobsInsertRequest> = {
  identity: { external: { value: 'RJ-2026-00417' } },
  data: {
    claim_number: { value: 'CLM-884213' },
    job_number: { value: '00417' },
    repairer_site_id: exampleJobIds.site,
    vehicle: { identifier: { vrm: { plate: 'AB12CDE', location: { country: 'GB' } } } },
    work_provider_id: { value: 'INS-ACME-MOTOR' },
  },
  if_: { exists: 'update' },
};

/** The job as every job operation answers it. */
export const exampleJob: z.input<typeof Job> = {
  id: exampleJobIds.job,
  external_id: { value: 'RJ-2026-00417' },
  claim_number: { value: 'CLM-884213' },
  job_number: { value: '00417' },
  work_provider_id: { value: 'INS-ACME-MOTOR' },
  vehicle: { identifier: { vrm: { plate: 'AB12CDE', location: { country: 'GB' } } } },
  site_id: exampleJobIds.site,
  images: [],
  status: { type: 'draft' },
  created_at: '2026-01-15T09:30:00.000Z',
  updated_at: '2026-01-15T09:30:00.000Z',
};
