// What the log rewrite tests (issue 32) read from es_events: rows, the stored text, and the personal values left in
// plaintext. Used by test/eventstore/encrypt-personal-data.test.ts (a sample log) and test/suite-log/ (the whole suite's).
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../../src/db.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { PERSONAL_FIELDS } from '../../src/domain/personal-events.ts';
import { ERASED } from '../../src/domain/personal.ts';

/** An es_events row as the tests read it. */
export type LogRow = { stream_id: string; revision: string; type: string; data: Record<string, unknown> };

/** The value at `p` inside `data` (undefined when a step is missing). */
export function valueAt(data: unknown, p: readonly string[]): unknown {
  return p.reduce<unknown>((at, k) => (typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[k] : undefined), data);
}

/** Every event, in log order. */
export async function rows(knex: Knex): Promise<LogRow[]> {
  return (await knex('es_events').select('stream_id', knex.raw('revision::text as revision'), 'type', 'data').orderBy('global_position')) as LogRow[];
}

/** The log's text as stored, row by row (what someone reading the table sees). */
export async function logText(knex: Knex): Promise<string[]> {
  const r = await knex.raw('select data::text || metadata::text as t from es_events order by global_position');
  return (r.rows as { t: string }[]).map((x) => x.t);
}

/** Every plaintext personal value of the log (its marked fields), by "type.field": what must not be left. */
export async function plaintexts(knex: Knex): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const row of await rows(knex)) {
    for (const p of PERSONAL_FIELDS.get(row.type) ?? []) {
      const v = valueAt(row.data, p.path);
      if (typeof v === 'string' && v !== ERASED) out.set(`${row.type}.${p.path.join('.')}`, [...(out.get(`${row.type}.${p.path.join('.')}`) ?? []), v]);
    }
  }
  return out;
}

/** The log's text with every marked field blanked: where a personal value copied into an unmarked field shows. */
export async function unmarkedText(knex: Knex): Promise<string> {
  const out: string[] = [];
  for (const row of await rows(knex)) {
    const data = structuredClone(row.data);
    for (const p of PERSONAL_FIELDS.get(row.type) ?? []) {
      const parent = valueAt(data, p.path.slice(0, -1));
      if (typeof parent === 'object' && parent !== null) delete (parent as Record<string, unknown>)[p.path.at(-1) ?? ''];
    }
    out.push(JSON.stringify(data));
  }
  return out.join('\n');
}

/** Whether `text` (JSON) holds the string `value` (as JSON escapes it). */
export function holds(text: string, value: string): boolean {
  return text.includes(JSON.stringify(value).slice(1, -1));
}

/**
 * Appends, straight to the log (no decorator), a user's two events as written before password hashes left the log:
 * UserRegistered with the first hash, PasswordChanged with the second.
 */
export async function appendLegacyUser(db: Db, user: { id: string; email: string; name: string }, hashes: readonly string[]): Promise<void> {
  const metadata = { org_id: null, actor: { type: 'system' as const, id: 'legacy' }, request_id: null, correlation_id: null, causation_id: null };
  const raw = new PostgresEventStore(db);
  try {
    await raw.appendToStream(`user-${user.id}`, [
      { id: crypto.randomUUID(), type: 'UserRegistered', data: { user_id: user.id, email: user.email, name: user.name, password_hash: hashes[0], registered_at: '2025-01-02T03:04:05.000Z' }, metadata },
      { id: crypto.randomUUID(), type: 'PasswordChanged', data: { password_hash: hashes[1] }, metadata },
    ], { expectedRevision: 'no_stream' });
  } finally {
    await raw.close();
  }
}
