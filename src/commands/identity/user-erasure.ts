// identity.users.erase (issue 32): crypto-shreds a user's personal data (the email and name of `user:<id>`). The order makes
// a crash anywhere safe, and a retry completes it: the copies outside the log (stored idempotent answers) are rewritten
// while the values can still be read; the user's sessions are revoked and its password credential deleted; its email
// claim is released (the address may sign up again); the key goes;
// UserErased is appended last (its presence means "erased completely"). The user id stays in every event that names the
// user as actor (audit trail); those actors are shown as "erased user".
import { operation } from '../../contract/operation.ts';
import type { RequestContext } from '../../context.ts';
import { Erasure, UserEraseRequest } from '../../contract/schemas/billing-erasure.ts';
import { identityErrors } from '../../domain/identity/errors.ts';
import { identityProjection } from '../../projections/identity/identity.ts';
import { forgetSessions } from '../../queries/identity/session-cache.ts';
import { users } from './handlers.ts';
import { releaseEmail } from './email-claim-streams.ts';
import { ERASED } from '../../domain/personal.ts';
import { compactFreedSpace, personalValues, scrubTraces } from '../platform/erasure-traces.ts';

/** Erases the user `id`; answers the erasure's record (the first one, on a retry). Idempotent. */
export async function eraseUser(ctx: RequestContext, id: string, legalBasis: string, reason: string) {
  const state = await users.load(ctx, id);
  if (!state.exists) throw identityErrors.error('user_not_found', `No user ${id}.`);
  const subject = `user:${id}`;
  const record = state.erasure ?? {
    subject,
    erased: [subject],
    retained: [],
    retained_until: null,
    legal_basis: legalBasis,
    reason,
    requested_by: { type: ctx.metadata.actor.type, id: ctx.metadata.actor.id },
    erased_at: ctx.now.toISOString(),
  };
  const { knex, store, personalData } = ctx.services;
  // 1. Copies outside the log, while the values still read (after the key is gone there is nothing left to find).
  if (!state.erasure) await scrubTraces(knex, await personalValues(store, [`user-${id}`], [subject]));
  // 2. Signed out everywhere, and no password to sign in with again (the email it was tied to is going).
  await knex('sessions').where({ user_id: id }).whereNull('revoked_at').update({ revoked_at: ctx.now });
  await knex('integration_access_codes').where({ user_id: id }).whereNull('used_at').delete();
  await knex('user_credentials').where({ user_id: id }).delete();
  forgetSessions();
  // 3. The email's claim ends, so the address can sign up again. Its stream is named by the email (keyed, or the legacy
  // name of an older claim), read while the key still opens it; a retry that finds "[erased]" comes after step 4, so the
  // claim was released already.
  const email = await registeredEmail(ctx, id);
  if (email !== null) await releaseEmail({ ...ctx, keys: personalData.keys }, email, id);
  // 4. The key: from here on every read of the email and name is "[erased]".
  await personalData.eraseSubjects(record.erased, ctx.now);
  // 5. The record, last (a no-op when already there).
  const { erased_at: _at, ...erasure } = record;
  await users.run(ctx, id, { type: 'EraseUser', data: erasure }, { orgId: null });
  await ctx.readYourWrites();
  await compactFreedSpace(ctx.services.db);
  const after = await users.load(ctx, id);
  if (!after.erasure) throw identityErrors.error('user_not_found', 'No such user.');
  return after.erasure;
}

/** The email the user registered with, or null once it reads "[erased]". */
async function registeredEmail(ctx: RequestContext, id: string): Promise<string | null> {
  for await (const e of ctx.services.store.readStream(`user-${id}`)) {
    if (e.type !== 'UserRegistered') continue;
    const email = (e.data as { email?: unknown }).email;
    return typeof email === 'string' && email !== ERASED ? email : null;
  }
  return null;
}

/** identity.users.erase */
export const usersErase = operation({
  id: 'identity.users.erase',
  examples: {
    request: { id: '019312de-a96f-7c20-8935-66ab75692c99', legal_basis: 'consent_withdrawn', reason: 'Ticket 4411: former employee asked to be forgotten' },
    response: {
      subject: 'user:019312de-a96f-7c20-8935-66ab75692c99',
      erased: ['user:019312de-a96f-7c20-8935-66ab75692c99'],
      retained: [],
      retained_until: null,
      legal_basis: 'consent_withdrawn',
      reason: 'Ticket 4411: former employee asked to be forgotten',
      requested_by: { type: 'staff', id: '0193472e-3c5d-7e6f-8a9b-0c1d2e3f4a5b' },
      erased_at: '2026-03-02T10:00:00.000Z',
    },
  },
  surface: 'core',
  tags: ['Authentication'],
  summary: 'Erases a user\'s personal data (right to erasure): the email and name read "[erased]" in every event, read model and rebuild; the user\'s sessions end.',
  description:
    'Platform staff only, with a legal basis and a reason (both kept on the UserErased event with who asked). Revokes every session and unused '
    + 'authorization code of the user and deletes its password, so it cannot sign in again. The user id stays in the events that name the user '
    + 'as actor (the audit trail), shown as "erased user". Idempotent: a second request answers the first erasure. Extension operation (issue 32).',
  request: UserEraseRequest,
  response: Erasure,
  error: 'identity.UserEraseError',
  errors: identityErrors.list('user_not_found'),
  access: 'platform_staff',
  write: true,
  readModels: [identityProjection],
  handle: (ctx, req) => eraseUser(ctx, req.id, req.legal_basis, req.reason),
});

/** identity.users.operator-erase: the same erasure for `core-server erase user` (the system caller `cli`). */
export const usersOperatorErase = operation({
  id: 'identity.users.operator-erase',
  surface: 'internal',
  tags: ['Authentication'],
  summary: 'Erases a user\'s personal data on an operator\'s command (core-server erase user), exactly as identity.users.erase.',
  description: 'Internal: invoked by the CLI as the system (job `cli`).',
  request: UserEraseRequest,
  response: Erasure,
  error: 'identity.UserEraseError',
  errors: identityErrors.list('user_not_found'),
  access: 'system',
  write: true,
  readModels: [identityProjection],
  handle: (ctx, req) => eraseUser(ctx, req.id, req.legal_basis, req.reason),
});

/** Identity's erasure operations. */
export const identityErasureCommands = [usersErase, usersOperatorErase];
