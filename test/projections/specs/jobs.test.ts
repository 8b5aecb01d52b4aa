// Repair jobs, given job events: the Job bodies jobs.get answers with.
import { backends } from '../../support/db.ts';
import type { JobEvent } from '../../../src/domain/jobs/job.ts';
import { jobsProjection } from '../../../src/projections/jobs/jobs.ts';
import { on, projectionSpec } from '../spec.ts';
import { ORG } from './fixtures.ts';

const J1 = '0190c6a2-0000-7000-8000-00000000a001';
const J2 = '0190c6a2-0000-7000-8000-00000000a002';
const CLIENT = '0190c6a2-0000-7000-8000-000000001c01';
const INTEGRATION = '0190c6a2-0000-7000-8000-000000001101';
const SITE = '0190c6a2-0000-7000-8000-0000000000e1';
const SITE2 = '0190c6a2-0000-7000-8000-0000000000e2';
const AT = '2026-01-15T09:00:00.000Z';
const LATER = '2026-01-16T09:00:00.000Z';
const car = { identifier: { vrm: { plate: 'AB12CDE', location: { country: 'GB' } } } };
const van = { identifier: { chassis_number: 'WVWZZZ1JZXW000001' } };

for (const backend of backends()) {
  describe(`jobs projection spec (${backend})`, function () {
    this.timeout(60_000);
    const spec = projectionSpec(backend);

    it('a job merged by an update, and a job whose data was replaced', async () => {
      const created = (job_id: string, external: string): JobEvent => ({
        type: 'JobCreated',
        data: {
          job_id, organization_id: ORG, client_id: CLIENT, integration_id: INTEGRATION, external_id: { value: external }, claim_number: { value: 'CLM-1' }, job_number: {},
          work_provider_id: {}, site_id: SITE, vehicle: car, status: { type: 'draft' }, created_at: AT,
        },
      });
      const owner = { organization_id: ORG, client_id: CLIENT, integration_id: INTEGRATION, images: [], status: { type: 'draft' }, created_at: AT, updated_at: LATER };
      await spec.given(jobsProjection, [
        ...on<JobEvent>(`job-${J1}`, [created(J1, 'EXT-1'), { type: 'JobUpdated', data: { changes: { job_number: { value: 'J-9' } }, updated_at: LATER } }]),
        ...on<JobEvent>(`job-${J2}`, [
          created(J2, 'EXT-2'),
          { type: 'JobReplaced', data: { data: { claim_number: {}, job_number: { value: 'J-2' }, work_provider_id: {}, site_id: SITE2, vehicle: van }, replaced_at: LATER } },
        ]),
      ]).then({
        jobs: [
          { id: J1, ...owner, external_id: { value: 'EXT-1' }, claim_number: { value: 'CLM-1' }, job_number: { value: 'J-9' }, work_provider_id: {}, site_id: SITE, vehicle: car },
          { id: J2, ...owner, external_id: { value: 'EXT-2' }, claim_number: {}, job_number: { value: 'J-2' }, work_provider_id: {}, site_id: SITE2, vehicle: van },
        ],
      });
    });
  });
}
