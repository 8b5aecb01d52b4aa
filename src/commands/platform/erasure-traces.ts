// What an erasure must reach besides the log and the read models (issue 32): copies of personal values that no projection
// rebuilds. Idempotency records keep the answers of writes for 24 hours (a customer's email, a note's text, a referer), and
// webhook delivery attempts keep the first bytes a receiver answered (a receiver may echo the payload). They are rewritten
// by value, so the values are read (decrypted) BEFORE the keys are deleted; a retry after a crash finds nothing left to do.
// On the embedded database the old row versions and write-ahead log segments are files in the data directory: those are
// compacted after the projections rewrote their rows.
import type { Knex } from 'knex';
import type { Db } from '../../db.ts';
import type { EventStore } from '../../eventstore/port.ts';
import { ERASED, subjectOf } from '../../domain/personal.ts';
import { PERSONAL_FIELDS } from '../../domain/personal-events.ts';
import { organizationReferers } from '../../queries/analytics/events.ts';

/** Values shorter than this are not searched for: they would match unrelated text ("GB", "Al") in unrelated answers. */
const SHORTEST = 3;
/** Values per search statement. */
const CHUNK = 50;

function valueAt(data: unknown, path: readonly string[]): unknown {
  let at = data;
  for (const k of path) at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[k] : undefined;
  return at;
}

/** The plaintext personal values of `subjects` held by the events of `streams` (read through the decrypting store). */
export async function personalValues(store: EventStore, streams: readonly string[], subjects: readonly string[]): Promise<Set<string>> {
  const wanted = new Set(subjects);
  const out = new Set<string>();
  for (const stream of streams) {
    for await (const e of store.readStream(stream)) {
      for (const p of PERSONAL_FIELDS.get(e.type) ?? []) {
        const v = valueAt(e.data, p.path);
        if (typeof v !== 'string' || v === ERASED || v.trim().length < SHORTEST) continue;
        if (wanted.has(subjectOf(p, e.data as Record<string, unknown>, stream))) out.add(v);
      }
    }
  }
  return out;
}

/** The organization's stored analytics referers long enough to search for (its `analytics:<id>` subject's values). */
export async function analyticsReferers(knex: Knex, organizationId: string): Promise<string[]> {
  return (await organizationReferers(knex, organizationId)).filter((r) => r.trim().length >= SHORTEST);
}

// A LIKE pattern matching `value` inside JSON text (quotes and backslashes escaped as JSON writes them).
const likeJson = (value: string) => `%${JSON.stringify(value).slice(1, -1).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const likeText = (value: string) => `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

// `value` with every string that contains one of `values` replaced by "[erased]" (a copy; the shape is kept).
function scrubbed(value: unknown, values: readonly string[]): unknown {
  if (typeof value === 'string') return values.some((v) => value.includes(v)) ? ERASED : value;
  if (Array.isArray(value)) return value.map((v) => scrubbed(v, values));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubbed(v, values)]));
  return value;
}

/**
 * Rewrites the copies of `values` outside the log: stored idempotent answers keep their shape (a replay answers what a read
 * answers now, "[erased]"), a delivery attempt's response excerpt becomes "[erased]". Returns how many rows changed.
 */
export async function scrubTraces(knex: Knex, values: Iterable<string>): Promise<number> {
  const all = [...values].filter((v) => v.trim().length >= SHORTEST);
  let changed = 0;
  for (let i = 0; i < all.length; i += CHUNK) {
    const chunk = all.slice(i, i + CHUNK);
    const answers = (await knex('idempotency_keys')
      .whereNotNull('response')
      .where((q) => { for (const v of chunk) q.orWhereRaw(`response::text like ?`, [likeJson(v)]); })
      .select('scope', 'key', 'response')) as { scope: string; key: string; response: unknown }[];
    for (const r of answers) {
      await knex('idempotency_keys').where({ scope: r.scope, key: r.key }).update({ response: JSON.stringify(scrubbed(r.response, chunk)) });
      changed++;
    }
    changed += await knex('webhook_delivery_attempts')
      .where((q) => { for (const v of chunk) q.orWhereRaw(`response_excerpt like ?`, [likeText(v)]); })
      .update({ response_excerpt: ERASED });
  }
  return changed;
}

/**
 * The embedded database (PGlite) keeps its tables and write-ahead log as files of the data directory: an updated row's old
 * version stays in its table's file until a full vacuum rewrites it, and a log segment, once recycled, keeps its old bytes.
 * So after an erasure: every table but the log (whose personal fields are ciphertext) is rewritten, and the log segments are
 * switched and removed rather than recycled. PostgreSQL's files are the server operator's (autovacuum, WAL archiving and
 * backups follow its policy; docs/decisions.md): nothing to do there from here.
 */
export async function compactFreedSpace(db: Pick<Db, 'kind' | 'knex'>): Promise<void> {
  if (db.kind !== 'pglite') return;
  const tables = (await db.knex('information_schema.tables').where({ table_schema: 'public', table_type: 'BASE TABLE' }).whereNotIn('table_name', ['es_events', 'es_streams']).select('table_name')) as { table_name: string }[];
  for (const { table_name: t } of tables) await db.knex.raw(`vacuum full "${t}"`);
  await db.knex.raw('set wal_recycle = off');
  await db.knex.raw('select pg_switch_wal()');
  await db.knex.raw('checkpoint');
  await db.knex.raw('select pg_switch_wal()');
  await db.knex.raw('checkpoint');
}
