// Repair jobs error codes and their HTTP statuses: the one list every jobs decider, handler and operation declaration draws from.
import { COMMON_ERRORS, errorCatalogue } from '../errors.ts';

/** Every code the jobs area answers with (the shared ones included). */
export const jobsErrors = errorCatalogue({
  ...COMMON_ERRORS,
  job_data_incomplete: 400,
  site_not_found: 400,
  job_not_found: 404,
});
