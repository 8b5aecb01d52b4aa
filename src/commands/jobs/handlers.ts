// Repair-job aggregates bound to their streams once.
import { jobExternalIdDecider, jobExternalIdStream } from '../../domain/jobs/external-id.ts';
import { jobDecider } from '../../domain/jobs/job.ts';
import { vehiclePreloadDecider } from '../../domain/vehicles/preload.ts';
import { commandHandler } from '../run.ts';

/** `job-<id>`. */
export const jobs = commandHandler(jobDecider, (id) => `job-${id}`);
/** One app's external id of a job in one organization (reserved once, so racing inserts create one job). */
export const jobExternalIds = commandHandler(jobExternalIdDecider, (k: { organizationId: string; clientId: string; externalId: string }) =>
  jobExternalIdStream(k.organizationId, k.clientId, k.externalId),
);
/** `vehiclepreload-<id>`. */
export const vehiclePreloads = commandHandler(vehiclePreloadDecider, (id) => `vehiclepreload-${id}`);
