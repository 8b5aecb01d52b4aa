// jobs.get, reading the jobs table (written by projections/jobs/jobs.ts).
import type { Knex } from 'knex';
import type { z } from 'zod';
import { operation } from '../../contract/operation.ts';
import type { RequestContext } from '../../context.ts';
import { Job, JobsGetRequest, type JobIdentityV1 } from '../../contract/schemas/jobs.ts';
import type { JobDoc } from '../../projections/jobs/jobs.ts';
import { jobsErrors } from '../../domain/jobs/errors.ts';
import { exampleJob } from '../../contract/examples/jobs.ts';

/** The installed integration calling, and the organization its key belongs to. */
export function integrationCaller(ctx: RequestContext): { organizationId: string; integrationId: string; clientId: string } {
  if (ctx.auth.kind !== 'integration') throw jobsErrors.error('unauthenticated', 'This operation needs an integration API key.');
  return { organizationId: ctx.auth.organizationId, integrationId: ctx.auth.integrationId, clientId: ctx.auth.clientId };
}

/** A job document by id, or null. */
export async function getJobDoc(knex: Knex, id: string): Promise<JobDoc | null> {
  const row = await knex('jobs').where({ id }).first('doc');
  return row ? (row.doc as JobDoc) : null;
}

/** The job with that external id of one integration (client app) in an organization, or null. */
export async function findJobByExternalId(knex: Knex, organizationId: string, clientId: string, externalId: string): Promise<JobDoc | null> {
  const row = await knex('jobs').where({ organization_id: organizationId, client_id: clientId, external_id: externalId }).orderBy('created_at').first('doc');
  return row ? (row.doc as JobDoc) : null;
}

/** The job an identity names, if the caller's organization owns it (another organization's job is 404, like a missing one). */
export async function visibleJob(ctx: RequestContext, identity: z.output<typeof JobIdentityV1>): Promise<JobDoc> {
  const caller = integrationCaller(ctx);
  const knex = ctx.services.knex;
  if ('id' in identity) {
    const doc = await getJobDoc(knex, identity.id);
    if (!doc || doc.organization_id !== caller.organizationId) throw jobsErrors.error('job_not_found', `No job ${identity.id} in this organization.`);
    return doc;
  }
  const doc = await findJobByExternalId(knex, caller.organizationId, caller.clientId, identity.external.value);
  if (!doc) throw jobsErrors.error('job_not_found', `No job with external id ${JSON.stringify(identity.external.value)} for this integration.`);
  return doc;
}

/** The Job body of a stored job. */
export function toJob(d: JobDoc): z.input<typeof Job> {
  return {
    id: d.id,
    external_id: d.external_id,
    claim_number: d.claim_number,
    job_number: d.job_number,
    work_provider_id: d.work_provider_id,
    vehicle: d.vehicle,
    site_id: d.site_id,
    images: d.images,
    status: d.status,
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

/** jobs.get: one job of the caller's organization. */
export const jobsGet = operation({
  id: 'jobs.get',
  examples: { request: { identity: { external: { value: 'RJ-2026-00417' } } }, response: exampleJob },
  surface: 'integrations',
  tags: ['Integrations'],
  summary: 'Fetches a repair job of your organization by its id or by your external id.',
  description: 'An external id finds only jobs this integration created; a job id finds any job of the organization the key belongs to.',
  request: JobsGetRequest,
  response: Job,
  error: 'JobsGetError',
  errors: jobsErrors.list('job_not_found'),
  access: { integration: ['repairer'] },
  handle: async (ctx, req) => toJob(await visibleJob(ctx, req.identity)),
});

/** Read operations of repair jobs. */
export const jobQueries = [jobsGet];
