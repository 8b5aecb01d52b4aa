// Platform operations error codes (read-model health and its repair) and their HTTP statuses.
import { COMMON_ERRORS, errorCatalogue } from '../errors.ts';

/** Every code the platform operations answer with (the shared ones included). */
export const platformErrors = errorCatalogue({
  ...COMMON_ERRORS,
  projection_not_found: 404,
  projection_not_failed: 409,
  event_not_failing: 409,
});
