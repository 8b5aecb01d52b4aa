// Part of `log encrypt-personal-data` (issue 32): email claims of users erased before erasure released them. Such a
// claim is its stream's last event (nothing released or re-claimed it) while its user has UserErased, so the address
// could never register again. The rewrite appends the EmailClaimReleased that erasure appends today. Idempotent: a
// released claim is no longer its stream's last event. Found by the log alone (user ids are not sealed), under the
// legacy name or the keyed one.
import type { Knex } from 'knex';

const CANDIDATES = `
  select c.stream_id, c.revision, c.data->>'user_id' as user_id
  from es_events c
  where c.type = 'EmailClaimed' and c.stream_id like 'useremail-%'
    and not exists (select from es_events later where later.stream_id = c.stream_id and later.revision > c.revision)
    and exists (select from es_events u where u.stream_id = 'user-' || (c.data->>'user_id') and u.type = 'UserErased')`;

/** How many claims of erased users are still held (what a run releases). */
export async function heldClaimsOfErasedUsers(knex: Knex): Promise<number> {
  const res = await knex.raw(`select count(*)::int as n from (${CANDIDATES}) c`);
  return (res.rows[0] as { n: number }).n;
}

/** Releases every claim still held by an erased user, in one append (the first write of `trx`); answers how many. */
export async function releaseClaimsOfErasedUsers(trx: Knex.Transaction, now: Date): Promise<number> {
  const metadata = { org_id: null, actor: { type: 'system', id: 'cli' }, request_id: null, correlation_id: null, causation_id: null, reason: 'log encrypt-personal-data: the claim of a user erased before erasure released claims' };
  const res = await trx.raw(
    `insert into es_events (stream_id, revision, event_id, type, data, metadata, created_at)
     select c.stream_id, c.revision + 1, gen_random_uuid(), 'EmailClaimReleased', jsonb_build_object('user_id', c.user_id), ?::jsonb, ?
     from (${CANDIDATES}) c order by c.stream_id
     returning stream_id`,
    [JSON.stringify(metadata), now],
  );
  return res.rows.length;
}
