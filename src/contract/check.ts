// In test runs every answer is checked against its operation's declaration: a success body must parse with
// the response schema, an error code must be declared. A mismatch answers 500 contract_violation, so the test
// that caused it fails with the reason in the body.
import type { Operation } from './operation.ts';

/** Why `body` (status 200) breaks `op`'s declared response, or null. */
export function successViolation(op: Operation, body: unknown): string | null {
  const parsed = op.response.safeParse(body);
  return parsed.success ? null : `${op.id} answered a body its response schema rejects: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`;
}

/** Why an error `code` breaks `op`'s declared error list, or null. */
export function errorViolation(op: Operation, code: string): string | null {
  return declaredCodes(op).includes(code) ? null : `${op.id} answered code ${code}, which its errors do not declare`;
}

/** Every code an operation may answer with: its own list plus what the HTTP binding answers for any operation of its kind. */
export function declaredCodes(op: Operation): string[] {
  // Any operation may be sent a bad credential (401), even a public one.
  const codes = [...op.errors, 'invalid_request', 'malformed_json', 'payload_too_large', 'unsupported_media_type', 'internal_error', 'unauthenticated', 'database_unavailable', 'read_model_failed'];
  if (op.access !== 'public') codes.push('forbidden');
  if (op.entitlement) codes.push('entitlement_required');
  if (op.write) codes.push('idempotency_key_reused', 'idempotency_key_in_use', 'invalid_idempotency_key', 'concurrency_conflict', 'stream_unreadable', 'projection_lag');
  return codes;
}
