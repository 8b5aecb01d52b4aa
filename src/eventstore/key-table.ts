// The KeyStore on the read-model database (Postgres or PGlite): table data_subject_keys.
import { randomBuffer } from '../random-pool.ts';
import type { Knex } from 'knex';
import { type KeyStore, type SubjectKey, refuseReservedErasure } from './keys.ts';

const KEY = 32; // bytes of a subject's key

/** Keys in data_subject_keys; an erased subject keeps its row with a null key. */
export class TableKeyStore implements KeyStore {
  constructor(private readonly knex: Knex) {}

  async find(subjects: readonly string[]): Promise<Map<string, SubjectKey>> {
    const out = new Map<string, SubjectKey>();
    // One array parameter per 10,000 subjects: a replay asks for a batch's keys at once, and an IN list of 1,000 binds
    // costs more to plan than its lookups.
    for (let i = 0; i < subjects.length; i += 10_000) await this.findPacked(subjects.slice(i, i + 10_000), out);
    return out;
  }

  // The found rows come back as one row of three aggregates (same row order in each): the subjects joined by a unit
  // separator, their keys end to end (32 zero bytes for an erased one) and a '1'/'0' per row for live/erased. A row per
  // subject cost the driver most of a replay's key lookup (PGlite: 11 us a subject against 6). A subject holding the
  // separator makes the counts disagree; then the rows are read one by one.
  private async findPacked(subjects: string[], out: Map<string, SubjectKey>): Promise<void> {
    const res = await this.knex.raw(
      `select string_agg(subject, chr(31)) as subjects, string_agg(coalesce(key, '\\x${'00'.repeat(KEY)}'::bytea), ''::bytea) as keys,
         string_agg(case when key is null then '0' else '1' end, '') as live
       from data_subject_keys where subject = any(?)`,
      [subjects],
    );
    const row = res.rows[0] as { subjects: string | null; keys: Buffer | Uint8Array | null; live: string | null } | undefined;
    if (!row?.subjects || !row.keys || !row.live) return;
    const names = row.subjects.split('\x1f');
    if (names.length !== row.live.length || row.keys.length !== KEY * names.length) {
      const rows = (await this.knex.raw('select subject, key from data_subject_keys where subject = any(?)', [subjects])).rows as { subject: string; key: Buffer | Uint8Array | null }[];
      for (const r of rows) out.set(r.subject, r.key === null ? null : Buffer.from(r.key));
      return;
    }
    // One copy for the chunk; each key is a view of it (no allocation per key).
    const slab = Buffer.from(row.keys);
    names.forEach((s, j) => out.set(s, row.live?.[j] === '1' ? slab.subarray(j * KEY, (j + 1) * KEY) : null));
  }

  async ensure(subjects: readonly string[], now: Date): Promise<Map<string, SubjectKey>> {
    const unique = [...new Set(subjects)];
    if (unique.length === 0) return new Map();
    const fresh = unique.map(() => randomBuffer(32).toString('hex'));
    // One statement where there were three (find, insert, find again): a new customer's key cost its creation two extra
    // round trips. First writer wins: the insert keeps an existing row, whose key the second half reads.
    const res = await this.knex.raw(
      `with wanted as (select w.subject, decode(w.hex, 'hex') as key from unnest(?::text[], ?::text[]) as w(subject, hex)),
       ins as (insert into data_subject_keys (subject, key, created_at) select subject, key, ? from wanted on conflict (subject) do nothing returning subject, key)
       select subject, key from ins
       union all
       select k.subject, k.key from data_subject_keys k join wanted w on w.subject = k.subject where k.subject not in (select subject from ins)`,
      [unique, fresh, now],
    );
    const known = new Map<string, SubjectKey>();
    for (const r of res.rows as { subject: string; key: Buffer | Uint8Array | null }[]) known.set(r.subject, r.key === null ? null : Buffer.from(r.key));
    // A creator that committed after this statement began is kept by the insert but not seen by its read: read it now.
    const racing = unique.filter((s) => !known.has(s));
    if (racing.length) for (const [s, k] of await this.find(racing)) known.set(s, k);
    return known;
  }

  async erase(subjects: readonly string[], now: Date): Promise<void> {
    if (subjects.length === 0) return;
    refuseReservedErasure(subjects);
    await this.knex.transaction(async (trx) => {
      // A SHARE lock on the log (when it is in this database) waits for the appends in flight and holds new ones until the
      // keys are gone: an append sealed with a key either commits before its erasure, or its statement starts after and
      // finds the tombstone (append-group.ts ERASED_KEY_IN), whatever key a process still caches. Erasures are rare and short.
      if ((await trx.raw(`select to_regclass('es_events') is not null as log`)).rows[0]?.log) await trx.raw('lock table es_events in share mode');
      await trx('data_subject_keys')
        .insert([...new Set(subjects)].map((subject) => ({ subject, key: null, created_at: now, erased_at: now })))
        .onConflict('subject')
        .merge({ key: null, erased_at: trx.raw('coalesce(data_subject_keys.erased_at, excluded.erased_at)') });
    });
  }
}
