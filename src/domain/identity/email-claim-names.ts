// The names of email claim streams (issue 32): keyed by the claim key (outside the log) since keyed names, uuid v5 of
// the email before. Pure: the key is the caller's (email-claim-streams.ts for commands, the log rewrite for old streams).
import { createHmac } from 'node:crypto';
import { nameId } from '../../ids.ts';

/** The KeyStore subject of the claim key: reserved (`system:`), so never erased. */
export const EMAIL_CLAIM_KEY_SUBJECT = 'system:email-claims';

/** The first 16 bytes of an HMAC as a UUID (version 8, RFC 9562's custom layout). */
function uuidOf(digest: Buffer): string {
  const b = Buffer.from(digest.subarray(0, 16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x80;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The claim stream of a (normalized) email under the claim key. */
export function keyedClaimStream(key: Buffer, email: string): string {
  return `useremail-${uuidOf(createHmac('sha256', key).update(email).digest())}`;
}

/** Where the log rewrite moves a legacy claim stream whose email no key opens any more (its claimants erased). */
export function movedClaimStream(key: Buffer, legacyStream: string): string {
  return keyedClaimStream(key, `legacy-stream:${legacyStream}`);
}

/** The legacy claim stream of a (normalized) email: an unkeyed hash, read and released, never written anew. */
export function legacyClaimStream(email: string): string {
  return `useremail-${nameId('email', email)}`;
}

/** Whether a claim stream has a legacy (uuid v5) name. */
export function isLegacyClaimStream(stream: string): boolean {
  return /^useremail-[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-/.test(stream);
}
