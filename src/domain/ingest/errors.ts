// Ingest error codes and their HTTP statuses: the one list the import decider, handlers and declarations draw from.
import { COMMON_ERRORS, errorCatalogue } from '../errors.ts';

/** Every code the ingest area answers with (the shared ones included). */
export const ingestErrors = errorCatalogue({
  ...COMMON_ERRORS,
  import_not_found: 404,
  import_not_uploaded: 409,
  import_expired: 409,
  import_size_mismatch: 400,
});
