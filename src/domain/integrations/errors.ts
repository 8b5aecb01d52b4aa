// Integrations error codes and their HTTP statuses: the one list every integrations decider, handler and operation declaration draws from.
import { COMMON_ERRORS, errorCatalogue } from '../errors.ts';

/** Every code the integrations area answers with (the shared ones included). */
export const integrationsErrors = errorCatalogue({
  ...COMMON_ERRORS,
  invalid_grant: 400,
  invalid_name: 400,
  invalid_redirect_url: 400,
  invalid_scope: 400,
  invalid_client: 401,
  client_not_found: 404,
  integration_not_found: 404,
  secret_not_found: 404,
  client_exists: 409,
  secret_limit_reached: 409,
});
