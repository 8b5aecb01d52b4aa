// Reads the bearer token of the Authorization header.
import { commonErrors } from '../domain/errors.ts';

/** Extracts the bearer token, or null when there is no Authorization header. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined || header === '') return null;
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  if (token === undefined) throw commonErrors.error('unauthenticated', 'The authorization header must be "Bearer <token>".');
  return token;
}
