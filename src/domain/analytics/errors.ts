// Analytics error codes and their HTTP statuses.
import { COMMON_ERRORS, errorCatalogue } from '../errors.ts';

/** Every code the analytics area answers with (the shared ones included). */
export const analyticsErrors = errorCatalogue({
  ...COMMON_ERRORS,
  occurred_at_out_of_range: 400,
  invalid_period: 400,
});
