// Error codes of the billing-configuration area and their HTTP statuses (attachment codes shared with billing evidence uploads).
import { COMMON_ERRORS, errorCatalogue } from '../../errors.ts';

/** Every code the billing-configuration area answers with (the shared ones included). */
export const configurationErrors = errorCatalogue({
  ...COMMON_ERRORS,
  invalid_relationship: 400,
  invalid_range: 400,
  invalid_supersedes: 400,
  invalid_as_of: 400,
  currency_not_enabled: 400,
  attachment_content_mismatch: 400,
  attachment_size_mismatch: 400,
  subscription_not_found: 404,
  organization_not_found: 404,
  relationship_not_found: 404,
  attachment_not_found: 404,
  subscription_canceled: 409,
  revision_overlap: 409,
  invalid_claim_transition: 409,
  evidence_required: 409,
  attachment_committed: 409,
  attachment_exists: 409,
  attachment_expired: 409,
  attachment_not_uploaded: 409,
  // The same condition as generate's and re-rate's: 422 stays reserved for a reused idempotency key.
  usage_unrateable: 409,
});
