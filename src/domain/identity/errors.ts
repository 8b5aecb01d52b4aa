// Identity error codes and their HTTP statuses: the one list every identity decider, handler and operation declaration draws from.
import { COMMON_ERRORS, errorCatalogue } from '../errors.ts';

/** Every code the identity area answers with (the shared ones included). */
export const identityErrors = errorCatalogue({
  ...COMMON_ERRORS,
  invalid_email: 400,
  invalid_name: 400,
  weak_password: 400,
  invalid_credentials: 401,
  no_organization: 403,
  not_a_member: 403,
  organization_not_found: 404,
  user_not_found: 404,
  email_taken: 409,
  organization_exists: 409,
  user_exists: 409,
});
