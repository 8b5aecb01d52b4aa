// Vehicle error codes and their HTTP statuses: the one list every vehicles decider, handler and operation declaration draws from.
import { COMMON_ERRORS, errorCatalogue } from '../errors.ts';

/** Every code the vehicles area answers with (the shared ones included). */
export const vehiclesErrors = errorCatalogue({
  ...COMMON_ERRORS,
  invalid_identifier_count: 400,
});
