// Caps on open server-sent-event streams (STREAMS_PER_TOKEN, STREAMS_PER_ORGANIZATION): each stream holds a slot of its
// token and one of its organization from before it opens until its connection closes; past a cap it is refused with 429.
import type { Auth } from '../context.ts';
import { commonErrors, type DomainError } from '../domain/errors.ts';

/** Seconds a refused client is asked to wait: a slot frees only when one of its streams closes. */
const RETRY_AFTER_SECONDS = 10;

/** Open streams per token and per organization in this process. */
export class StreamCaps {
  private readonly byToken = new Map<string, number>();
  private readonly byOrganization = new Map<string, number>();

  constructor(private readonly caps: { perToken: number; perOrganization: number }) {}

  /** Takes a slot for a stream of `auth`, or throws 429 `rate_limited`; the function returned gives it back (calling it again does nothing). */
  enter(auth: Auth): () => void {
    // Streams are served over HTTP only: a system caller (in process) holds no slot.
    if (auth.kind === 'anonymous' || auth.kind === 'system') return () => {};
    const token = auth.kind === 'session' ? `session:${auth.tokenHash}` : `integration:${auth.integrationId}`;
    const org = auth.organizationId;
    if ((this.byToken.get(token) ?? 0) >= this.caps.perToken) throw refused(`this token has ${this.caps.perToken} streams open`);
    if ((this.byOrganization.get(org) ?? 0) >= this.caps.perOrganization) throw refused(`this organization has ${this.caps.perOrganization} streams open`);
    add(this.byToken, token, 1);
    add(this.byOrganization, org, 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      add(this.byToken, token, -1);
      add(this.byOrganization, org, -1);
    };
  }

}

function add(counts: Map<string, number>, key: string, n: number): void {
  const next = (counts.get(key) ?? 0) + n;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
}

function refused(why: string): DomainError {
  return commonErrors.error('rate_limited', `Too many open streams: ${why}; close one first.`, { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } });
}
