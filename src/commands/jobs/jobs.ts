// jobs.insert: create a draft repair job, or update / replace one, for the installing organization.
import type { z } from 'zod';
import { operation } from '../../contract/operation.ts';
import type { RequestContext } from '../../context.ts';
import { type ExternalInsertV1, Job, JobsInsertRequest } from '../../contract/schemas/jobs.ts';
import { type JobCommand, type JobData, jobDecider } from '../../domain/jobs/job.ts';
import { normaliseVehicleIdentifier } from '../../domain/vehicles/identifier.ts';

import { integrationCaller, toJob, visibleJob } from '../../queries/jobs/jobs.ts';
import type { Unstamped } from '../run.ts';
import { organizations } from '../identity/handlers.ts';
import { jobExternalIds, jobs } from './handlers.ts';
import { jobsProjection } from '../../projections/jobs/jobs.ts';
import { jobsErrors } from '../../domain/jobs/errors.ts';
import { exampleJob, exampleJobInsert } from '../../contract/examples/jobs.ts';

/** The request's data as job fields: site id renamed, vehicle identifier normalised, omitted fields left out. */
export function jobFields(data: z.output<typeof ExternalInsertV1>): Partial<JobData> {
  const fields: Partial<JobData> = {};
  if (data.claim_number) fields.claim_number = data.claim_number;
  if (data.job_number) fields.job_number = data.job_number;
  if (data.work_provider_id) fields.work_provider_id = data.work_provider_id;
  if (data.repairer_site_id) fields.site_id = data.repairer_site_id;
  if (data.vehicle) fields.vehicle = { identifier: normaliseVehicleIdentifier(data.vehicle.identifier) };
  return fields;
}

// Sites are read from the organization's stream, not its read model, so a site added a moment ago counts.
async function organizationSites(ctx: RequestContext, organizationId: string): Promise<string[]> {
  return Object.keys((await organizations.load(ctx, organizationId)).sites);
}

/** jobs.insert: create, update or replace a job. */
export const jobsInsert = operation({
  id: 'jobs.insert',
  examples: { request: exampleJobInsert, response: exampleJob },
  surface: 'integrations',
  tags: ['Integrations'],
  summary: 'Creates a draft repair job, or updates or replaces an existing one.',
  description: [
    'With an `external` identity and no such job yet, a draft job is created (needs `data.repairer_site_id` and `data.vehicle`).',
    'When the job exists, `if_.exists` decides: `update` changes only the fields given, `replace` overwrites the data (omitted identifiers become `{}`).',
    'An `id` identity only addresses an existing job of your organization; it never creates one.',
    '`data.repairer_site_id` must be a site of the organization the key belongs to. Plates are stored upper case without spaces.',
  ].join(' '),
  request: JobsInsertRequest,
  response: Job,
  error: 'JobsInsertError',
  errors: jobsErrors.list('job_not_found', 'site_not_found', 'job_data_incomplete', 'concurrency_conflict'),
  access: { integration: ['repairer'] },
  write: true,
  readModels: [jobsProjection],
  async handle(ctx, req) {
    const caller = integrationCaller(ctx);
    const fields = jobFields(req.data);
    const newJobId = ctx.ids.next();
    const command = (jobId: string, externalId: string | null, siteIds: string[]): Unstamped<JobCommand> => ({
      type: 'InsertJob',
      data: {
        job_id: jobId,
        organization_id: caller.organizationId,
        client_id: caller.clientId,
        integration_id: caller.integrationId,
        external_id: externalId === null ? {} : { value: externalId },
        fields,
        if_exists: req.if_.exists,
        create_if_missing: externalId !== null,
        site_ids: siteIds,
      },
    });
    const siteIds = fields.site_id === undefined ? [] : await organizationSites(ctx, caller.organizationId);
    let jobId: string;
    let externalId: string | null = null;
    if ('id' in req.identity) {
      jobId = req.identity.id;
    } else {
      externalId = req.identity.external.value;
      const key = { organizationId: caller.organizationId, clientId: caller.clientId, externalId };
      const held = await jobExternalIds.load(ctx, key);
      if (held.jobId) {
        jobId = held.jobId;
      } else {
        // A request that could not create the job must not reserve its external id: check it first (pure).
        jobs.decide(ctx, command(newJobId, externalId, siteIds), jobDecider.initialState());
        // Appended with expected revision no_stream: of two racing requests one reserves, the other re-decides and gets its job id.
        const reserved = await jobExternalIds.run(ctx, key, {
          type: 'ReserveJobExternalId',
          data: { organization_id: caller.organizationId, client_id: caller.clientId, integration_id: caller.integrationId, external_id: externalId, job_id: newJobId },
        }, { orgId: caller.organizationId });
        jobId = reserved.state.jobId ?? newJobId;
      }
    }
    await jobs.run(ctx, jobId, command(jobId, externalId, siteIds), { orgId: caller.organizationId });
    await ctx.readYourWrites();
    return toJob(await visibleJob(ctx, { id: jobId }));
  },
});

/** Write operations of repair jobs. */
export const jobCommands = [jobsInsert];
