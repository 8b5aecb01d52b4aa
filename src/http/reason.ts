// The `Svc-Reason` header: why the caller makes a change, kept in the metadata of every event the request appends.
import type { Request } from 'express';
import { commonErrors } from '../domain/errors.ts';
import { textProblem } from '../contract/text.ts';

/** Name of the header (case-insensitive, as every HTTP header). */
export const REASON_HEADER = 'Svc-Reason';
/** Longest reason kept. */
export const MAX_REASON = 500;

/** What OpenAPI says of the header on every write operation. */
export const REASON_DOC =
  `Why the change is made, kept with every event this request appends (the audit trail, \`billing.history.get\`). UTF-8 percent-encoded (encodeURIComponent), 1-${MAX_REASON} characters after decoding and trimming. A reason field of the request body, where the operation has one, takes precedence.`;

/**
 * The decoded reason of a request, or undefined when the header is absent. A header that is empty, not
 * valid percent-encoding, too long or not storable text is a 400 (the request writes nothing).
 */
export function requestReason(req: Request): string | undefined {
  const raw = req.get(REASON_HEADER);
  if (raw === undefined) return undefined;
  const bad = (message: string) => commonErrors.error('invalid_request', `${REASON_HEADER}: ${message}`, { issues: [{ path: REASON_HEADER, message }] });
  let text: string;
  try {
    text = decodeURIComponent(raw).trim();
  } catch {
    throw bad('must be UTF-8 percent-encoded (encodeURIComponent).');
  }
  if (text.length === 0) throw bad('must not be empty when sent.');
  if (text.length > MAX_REASON) throw bad(`at most ${MAX_REASON} characters.`);
  const problem = textProblem(text);
  if (problem) throw bad(problem);
  return text;
}
