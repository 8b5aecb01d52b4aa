// In test runs every answer is checked against its operation's declaration: a success body must parse with
// the response schema, an error code must be declared. A mismatch answers 500 contract_violation, so the test
// that caused it fails with the reason in the body.
import type { Operation } from './operation.ts';
import { declaredCodes } from './openapi.ts';

/** Why `body` (status 200) breaks `op`'s declared response, or null. */
export function successViolation(op: Operation, body: unknown): string | null {
  const parsed = op.response.safeParse(body);
  return parsed.success ? null : `${op.id} answered a body its response schema rejects: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`;
}

/** Why an error `code` breaks `op`'s declared error list, or null. */
export function errorViolation(op: Operation, code: string): string | null {
  return declaredCodes(op).includes(code) ? null : `${op.id} answered code ${code}, which its errors do not declare`;
}
