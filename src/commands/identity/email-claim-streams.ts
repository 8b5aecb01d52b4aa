// Email claims (issue 32): which streams hold the claim of an address, and claiming and releasing it across them.
// New claims live in `useremail-<uuid of HMAC-SHA256(claim key, email)>`: without the key (kept outside the log, in the
// KeyStore under a reserved subject) nobody holding the log can tell whether an address registered. Claims written
// before that live in `useremail-<uuid v5 of the email>` (the legacy name); an unreleased one still holds its address,
// and erasure releases a claim under whichever name holds it. New code never writes a legacy name.
import type { CommandContext } from '../../context.ts';
import { EMAIL_CLAIM_KEY_SUBJECT, keyedClaimStream, legacyClaimStream } from '../../domain/identity/email-claim-names.ts';
import { type KeyStore, reservedKey } from '../../eventstore/keys.ts';
import { emailClaimDecider } from '../../domain/identity/user.ts';
import { identityErrors } from '../../domain/identity/errors.ts';
import { commandHandler, loadAggregate } from '../run.ts';

export { EMAIL_CLAIM_KEY_SUBJECT, legacyClaimStream };


/** A claim stream, named in full (the handler's id is the stream name: which name depends on the key). */
const claimStream = commandHandler(emailClaimDecider, (stream: string) => stream);

// One key per key store for the process's life: it never changes once made (and is never erased).
const claimKeys = new WeakMap<KeyStore, Promise<Buffer>>();

async function claimKey(keys: KeyStore, now: Date): Promise<Buffer> {
  let key = claimKeys.get(keys);
  if (!key) {
    key = reservedKey(keys, EMAIL_CLAIM_KEY_SUBJECT, now);
    claimKeys.set(keys, key);
    // A failed lookup (a lost connection) is not remembered: the next claim asks again.
    key.catch(() => claimKeys.delete(keys));
  }
  return key;
}

/** The claim streams of a (normalized) email: the keyed one (where claims are made) and the legacy one. */
export async function emailClaimStreams(keys: KeyStore, email: string, now: Date): Promise<{ keyed: string; legacy: string }> {
  const key = await claimKey(keys, now);
  return { keyed: keyedClaimStream(key, email), legacy: legacyClaimStream(email) };
}

/** What claiming needs: a command context and the key store holding the claim key. */
export type ClaimContext = CommandContext & { keys: KeyStore };

/**
 * Claims `email` for `userId`, or throws email_taken. The address is taken when either name holds an unreleased claim of
 * another user; claims are made under the keyed name only, where concurrent claimants race for one stream revision.
 */
export async function claimEmail(ctx: ClaimContext, email: string, userId: string): Promise<void> {
  const { keyed, legacy } = await emailClaimStreams(ctx.keys, email, ctx.now);
  const claim = { type: 'ClaimEmail' as const, data: { email, user_id: userId } };
  const before = (await loadAggregate(ctx.store, emailClaimDecider, legacy)).state;
  // This very user holds the legacy claim (a request retried across an upgrade): it is claimed already.
  if (before.userId === userId) return;
  claimStream.decide(ctx, claim, before); // email_taken when another user holds it there
  await claimStream.run(ctx, keyed, claim, { orgId: null });
  // A legacy claim that landed meanwhile (a process of the previous version) came first: give the keyed claim back.
  const after = (await loadAggregate(ctx.store, emailClaimDecider, legacy)).state;
  if (after.userId !== null && after.userId !== userId) {
    await claimStream.run(ctx, keyed, { type: 'ReleaseEmail', data: { user_id: userId } }, { orgId: null });
    throw identityErrors.error('email_taken', `A user with email ${email} already exists.`);
  }
}

/** Ends `userId`'s claim of `email` under whichever name holds it (each release is a no-op where it does not). */
export async function releaseEmail(ctx: ClaimContext, email: string, userId: string): Promise<void> {
  const { keyed, legacy } = await emailClaimStreams(ctx.keys, email, ctx.now);
  for (const stream of [keyed, legacy]) await claimStream.run(ctx, stream, { type: 'ReleaseEmail', data: { user_id: userId } }, { orgId: null });
}
