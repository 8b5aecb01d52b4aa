// Part of `log encrypt-personal-data` (issue 32): claim streams still under their legacy name (uuid v5 of the email,
// confirmable by hashing a guess) move to keyed names, so no unkeyed name is left in the log. A stream whose email a
// key still opens moves to that email's keyed name (where claims are looked up), merged with that stream when one
// exists (revisions renumbered in log order). A stream whose claimants were all erased (its email opens nowhere, and
// its claim is released) moves to a keyed name of its old name: nobody looks it up by email, and without the key the
// old name cannot be found again. Runs after the sealing batches and the releases; a rerun finds no legacy name.
import type { Knex } from 'knex';
import { ERASED, subjectOf } from '../../domain/personal.ts';
import { PERSONAL_FIELDS } from '../../domain/personal-events.ts';
import { EMAIL_CLAIM_KEY_SUBJECT, isLegacyClaimStream, keyedClaimStream, legacyClaimStream, movedClaimStream } from '../../domain/identity/email-claim-names.ts';
import { envelopeSubject, isEnvelope, open } from '../envelope.ts';
import { TableKeyStore } from '../key-table.ts';
import { reservedKey } from '../keys.ts';

interface ClaimRow {
  stream_id: string;
  data: Record<string, unknown>;
}

/** The legacy claim streams, each with the email one of its claims still reads as (null: none opens). */
async function legacyStreams(knex: Knex): Promise<Map<string, string | null>> {
  const res = await knex.raw(`select stream_id, data from es_events where type = 'EmailClaimed' and stream_id like 'useremail-%' order by stream_id, revision`);
  const rows = (res.rows as ClaimRow[]).filter((r) => isLegacyClaimStream(r.stream_id));
  const path = PERSONAL_FIELDS.get('EmailClaimed')?.[0];
  const subjects = new Set<string>();
  for (const r of rows) {
    const v = r.data.email;
    if (isEnvelope(v) && path) subjects.add(envelopeSubject(v) ?? subjectOf(path, r.data, r.stream_id));
  }
  const keys = subjects.size > 0 ? await new TableKeyStore(knex).find([...subjects]) : new Map<string, Buffer | null>();
  const out = new Map<string, string | null>();
  for (const r of rows) {
    if (!out.has(r.stream_id)) out.set(r.stream_id, null);
    if (out.get(r.stream_id) !== null) continue;
    let email: unknown = r.data.email;
    if (isEnvelope(email) && path) {
      const subject = envelopeSubject(email) ?? subjectOf(path, r.data, r.stream_id);
      const key = keys.get(subject);
      email = key ? open(email, subject, key) : null;
    }
    // The name must be this email's: a stream a suite or an operator named otherwise is moved as one nobody finds by email.
    if (typeof email === 'string' && email !== ERASED && legacyClaimStream(email) === r.stream_id) out.set(r.stream_id, email);
  }
  return out;
}

interface MergedRow {
  stream_id: string;
  revision: string;
  type: string;
  user_id: string | null;
}

/** Who holds a claim stream after its events (as emailClaimDecider folds them). */
function holder(rows: readonly MergedRow[]): string | null {
  let held: string | null = null;
  for (const r of rows) {
    if (r.type === 'EmailClaimed') held = r.user_id;
    else if (r.type === 'EmailClaimReleased' && r.user_id === held) held = null;
  }
  return held;
}

/**
 * The events of two claim streams of one address as one stream. Both hold events only after a claim under the legacy
 * name raced a keyed one during an upgrade (the keyed claimant gave its claim back): the stream that holds the claim
 * goes last, so the merged stream keeps its holder; when both or neither hold, log order.
 */
function mergeOrder(rows: readonly MergedRow[], a: string, b: string): MergedRow[] {
  const ofA = rows.filter((r) => r.stream_id === a);
  const ofB = rows.filter((r) => r.stream_id === b);
  const heldA = holder(ofA) !== null;
  const heldB = holder(ofB) !== null;
  if (heldA === heldB) return [...rows];
  return heldA ? [...ofB, ...ofA] : [...ofA, ...ofB];
}

/** How many claim streams have a legacy name (what a run moves). */
export async function legacyClaimStreamCount(knex: Knex): Promise<number> {
  return (await legacyStreams(knex)).size;
}

/** Moves every legacy claim stream to its keyed name, in `trx`; answers how many moved. */
export async function moveLegacyClaimStreams(trx: Knex.Transaction, now: Date): Promise<number> {
  const streams = await legacyStreams(trx);
  if (streams.size === 0) return 0;
  const key = await reservedKey(new TableKeyStore(trx), EMAIL_CLAIM_KEY_SUBJECT, now);
  for (const [from, email] of streams) {
    const to = email === null ? movedClaimStream(key, from) : keyedClaimStream(key, email);
    const both = (await trx.raw(`select stream_id, revision::text as revision, type, data->>'user_id' as user_id from es_events where stream_id in (?, ?) order by transaction_id, global_position`, [from, to])).rows as MergedRow[];
    if (!both.some((r) => r.stream_id === to)) {
      await trx.raw('update es_events set stream_id = ? where stream_id = ?', [to, from]);
    } else {
      // Both names hold events: one stream (negative revisions first, so no two rows share a key meanwhile).
      for (const [i, r] of mergeOrder(both, from, to).entries()) await trx.raw('update es_events set stream_id = ?, revision = ? where stream_id = ? and revision = ?::bigint', [to, -1 - i, r.stream_id, r.revision]);
      await trx.raw('update es_events set revision = -1 - revision where stream_id = ? and revision < 0', [to]);
    }
    await trx.raw('update projection_skips set stream_id = ? where stream_id = ?', [to, from]);
  }
  return streams.size;
}
