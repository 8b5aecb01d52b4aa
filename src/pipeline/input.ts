// The input an operation accepts: well-formed text, bounded nesting, then its declared schema.
import type { ZodError } from 'zod';
import type { Operation } from '../contract/operation.ts';
import { textProblem } from '../contract/text.ts';
import { commonErrors } from '../domain/errors.ts';

/** Deepest nesting a request may have; real requests need a handful of levels. */
const MAX_DEPTH = 32;

/** The validated input of `op` (its schema's output), or a 400 naming the field (ZodError or DomainError). */
export function validInput(op: Operation, body: unknown): unknown {
  if (op.request === null) {
    if (body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0)) return undefined;
    throw commonErrors.error('invalid_request', 'This operation takes no request body.', { issues: [{ path: '', message: 'expected no body or {}' }] });
  }
  if (body === undefined) throw commonErrors.error('invalid_request', 'A JSON request body is required.', { issues: [{ path: '', message: 'required' }] });
  const problem = bodyProblem(body);
  if (problem) throw commonErrors.error('invalid_request', problem.message, { issues: [{ path: problem.path.join('.'), message: problem.message }] });
  const parsed = op.request.safeParse(body);
  if (!parsed.success) throw parsed.error satisfies ZodError;
  return parsed.data;
}

// Walks the body without recursion (a 1 MiB body can nest 500,000 levels): refuses nesting deeper than
// MAX_DEPTH, which would overflow the stack in validation, and text (values and keys) that Postgres cannot hold.
function bodyProblem(body: unknown): { path: string[]; message: string } | null {
  const stack: { value: unknown; path: string[] }[] = [{ value: body, path: [] }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { value, path } = next;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return { path, message: problem };
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (path.length >= MAX_DEPTH) return { path, message: `The request nests deeper than ${MAX_DEPTH} levels.` };
    for (const [k, v] of Object.entries(value)) {
      const problem = textProblem(k);
      if (problem) return { path: [...path, k], message: problem };
      stack.push({ value: v, path: [...path, k] });
    }
  }
  return null;
}
