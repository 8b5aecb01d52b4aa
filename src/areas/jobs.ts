// The repair-jobs area of the integrations API: sites, jobs, and vehicle preloads.
import { jobCommands } from '../commands/jobs/jobs.ts';
import { vehicleCommands } from '../commands/vehicles/preload.ts';
import { jobsProjection } from '../projections/jobs/jobs.ts';
import { jobQueries } from '../queries/jobs/jobs.ts';
import { sitesList } from '../queries/jobs/sites.ts';
import type { Area } from './area.ts';

/** Typed repair-job operations. */
export const jobsOperations = [...jobCommands, ...jobQueries, sitesList, ...vehicleCommands];

/** The jobs area as the composition root assembles it. */
export const jobs: Area = { name: 'jobs', operations: jobsOperations, projections: [jobsProjection] };
