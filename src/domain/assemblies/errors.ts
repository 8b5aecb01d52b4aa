// Assemblies error codes and their HTTP statuses: the one list the lookup deciders, searches and streams draw from.
import { COMMON_ERRORS, errorCatalogue } from '../errors.ts';

/** Every code the assemblies area answers with (the shared ones included). */
export const assembliesErrors = errorCatalogue({
  ...COMMON_ERRORS,
  vehicle_not_found: 404,
  lookup_not_queued: 409,
  resume_point_expired: 410,
});
