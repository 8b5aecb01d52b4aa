// Password credentials: scrypt hashes in the user_credentials table, written by the command that sets them.
// They are kept out of the event log, so a changed password leaves no hash behind in permanent history.
import type { Knex } from 'knex';
import { hashPassword, verifyPassword } from '../../secrets.ts';

// Verified when the user is unknown, so response time does not reveal which emails exist.
const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

/** Sets (or replaces) a user's password. */
export async function setPassword(knex: Knex, userId: string, password: string, now: Date): Promise<void> {
  const passwordHash = await hashPassword(password);
  await knex('user_credentials').insert({ user_id: userId, password_hash: passwordHash, updated_at: now }).onConflict('user_id').merge();
}

/** True when `password` is the user's; takes the same time for an unknown user (null). */
export async function passwordMatches(knex: Knex, userId: string | null, password: string): Promise<boolean> {
  const row = userId ? ((await knex('user_credentials').where({ user_id: userId }).first('password_hash')) as { password_hash: string } | undefined) : undefined;
  const ok = await verifyPassword(password, row?.password_hash ?? DUMMY_HASH);
  return ok && row !== undefined;
}
