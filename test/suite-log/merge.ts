// One log from the whole suite's collected events (test/support/suite-log.ts), appended suite after suite into a fresh
// database, as a deployment written before crypto-shredding would hold it: every personal value a suite could still
// read is stored in plaintext again, and no key is kept (the rewrite makes them). Values of subjects a suite had
// erased stay sealed, with their tombstones: a deployment that upgraded and erased someone before running the rewrite.
// The events a suite wrote on purpose that do not read (poison.test.ts) stay left out of the projections an operator
// skipped them for there: its skips are carried over, as that deployment's operator would have recorded them.
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { envelopeSubject, isEnvelope, open } from '../../src/eventstore/envelope.ts';
import { PERSONAL_FIELDS } from '../../src/domain/personal-events.ts';
import { ERASED, subjectOf } from '../../src/domain/personal.ts';
import { nameId } from '../../src/ids.ts';
import { formatInvoiceNumber } from '../../src/domain/billing/invoice-number.ts';
import { formatPosition } from '../../src/eventstore/stored-event.ts';
import type { CollectedEvent, CollectedSuite } from '../support/suite-log.ts';

/** What the merge found and did. */
export interface MergeStats {
  suites: number;
  /** Test files the suites came from. */
  files: number;
  events: number;
  types: number;
  streams: number;
  /** Streams renamed because an earlier suite had written a stream of that name (see `renamesOf`). */
  renamedStreams: number;
  /** Emails, order ids and invoice numbers an earlier suite had claimed, renamed in the later suite's events. */
  renamedClaims: number;
  /** Event ids already taken by an earlier suite, replaced by new ones. */
  renewedEventIds: number;
  /** Personal values opened back to plaintext. */
  opened: number;
  /** Sealed values of erased subjects, kept as stored. */
  keptSealed: number;
  /** Projection skips carried over from the suites (those of events still in their logs). */
  skips: number;
}

const BATCH = 500;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A suite's events with their data parsed and every envelope the suite holds a key for opened. */
type Parsed = CollectedEvent & { value: unknown };

/**
 * The event's data with every marked field's envelope opened whose subject the suite still held a key for; counts what
 * it did. The subject is the one the envelope names (v1) or the field's mark gives, from the suite's own stream name (v2).
 */
function opened(e: CollectedEvent, keys: Map<string, Buffer | null>, stats: MergeStats, erased: Set<string>): unknown {
  const data = JSON.parse(e.data) as Record<string, unknown>;
  for (const p of PERSONAL_FIELDS.get(e.type) ?? []) {
    const parent = p.path.slice(0, -1).reduce<unknown>((at, k) => (typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[k] : undefined), data);
    const field = p.path.at(-1) ?? '';
    if (typeof parent !== 'object' || parent === null) continue;
    const v = (parent as Record<string, unknown>)[field];
    if (!isEnvelope(v)) continue;
    const subject = envelopeSubject(v) ?? subjectOf(p, data, e.stream_id);
    const key = keys.get(subject);
    if (key) {
      (parent as Record<string, unknown>)[field] = open(v, subject, key);
      stats.opened++;
    } else {
      stats.keptSealed++;
      erased.add(subject);
    }
  }
  return data;
}

/** `value` with every string `renames` names replaced. */
function renamed(value: unknown, renames: Map<string, string>): unknown {
  if (typeof value === 'string') return renames.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => renamed(v, renames));
  if (value !== null && typeof value === 'object' && !isEnvelope(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renamed(v, renames)]));
  return value;
}

/**
 * What suite `n` must rename so that, appended after the earlier suites, the log is still one deployment's. The suites
 * are separate deployments that share stream names (singleton and per-name streams: currencies, entitlements, email
 * claims, the invoice-number counter of a year, vehicle lookups) and what those streams claim (an email, a number):
 * - A stream of a name taken already gets a name of its own, so each stream keeps one contiguous revision sequence
 *   (the append would otherwise put two suites' histories, two "created" events, in one stream). A uuid id becomes a
 *   uuid derived from it and the suite (read models store it as a uuid), replaced wherever the suite's events name it;
 *   any other id gets `~<n>` after it. The category before the first "-", which projections and subjects read, stays.
 * - An email claimed by an earlier suite's user gets `+s<n>` before its "@", a marketplace order id an earlier suite
 *   recorded usage for gets `~s<n>` after it, and an invoice number an earlier suite used gets `-S<n>` after it, in
 *   every event of the suite: one deployment's claims keep them unique, and read models rely on it (unique
 *   `identity_users.email`, `billing_usage.order_id` and `billing_invoices.number`). A number is the suite's when its
 *   counter hands it out or an invoice is finalized with it: the projection specs finalize invoices with fixed numbers
 *   and no counter. `numbers` holds the earlier suites' (as renamed); the suite's own are added to it.
 */
function renamesOf(events: readonly Parsed[], n: number, owner: Map<string, number>, numbers: Set<string>, emails: Set<string>): { streams: Map<string, string>; values: Map<string, string>; claims: number } {
  const streams = new Map<string, string>();
  const values = new Map<string, string>();
  let claims = 0;
  const own = new Set<string>();
  for (const e of events) {
    const data = e.value as Record<string, unknown>;
    const number = e.type === 'InvoiceNumberAllocated' && typeof data.year === 'number' ? formatInvoiceNumber(data.year, Number(e.revision) + 1) : e.type === 'InvoiceFinalized' && typeof data.number === 'string' ? data.number : null;
    if (number === null || own.has(number)) continue;
    own.add(number);
    if (numbers.has(number)) {
      values.set(number, `${number}-S${n}`);
      claims++;
    }
  }
  for (const number of own) numbers.add(values.get(number) ?? number);
  // Emails by value: a claim stream's name is keyed by its deployment's claim key, so two suites' claims of one address
  // no longer share a stream (a legacy name still does; both ways the email is renamed here).
  const ownEmails = new Set<string>();
  for (const e of events) {
    const email = (e.value as Record<string, unknown>).email;
    if (e.type !== 'EmailClaimed' || typeof email !== 'string' || email === ERASED || ownEmails.has(email)) continue;
    ownEmails.add(email);
    if (emails.has(email) && !values.has(email)) {
      values.set(email, email.includes('@') ? email.replace(/@/, `+s${n}@`) : `${email}+s${n}`);
      claims++;
    }
  }
  for (const email of ownEmails) emails.add(values.get(email) ?? email);
  for (const e of events) {
    const first = owner.get(e.stream_id);
    if (first === undefined) owner.set(e.stream_id, n);
    if (first === undefined || first === n) continue;
    const dash = e.stream_id.indexOf('-');
    const category = e.stream_id.slice(0, dash);
    const id = e.stream_id.slice(dash + 1);
    if (!streams.has(e.stream_id)) {
      const newId = dash > 0 && UUID.test(id) ? nameId('suite-log', `${n}:${id}`) : `${id}~${n}`;
      streams.set(e.stream_id, dash > 0 ? `${category}-${newId}` : `${e.stream_id}~${n}`);
      if (UUID.test(id)) values.set(id, newId);
    }
    const data = e.value as Record<string, unknown>;
    if (e.type === 'EmailClaimed' && typeof data.email === 'string' && !values.has(data.email)) {
      values.set(data.email, data.email.includes('@') ? data.email.replace(/@/, `+s${n}@`) : `${data.email}+s${n}`);
      claims++;
    }
    if (category === 'usage' && typeof data.order_id === 'string' && !values.has(data.order_id)) {
      values.set(data.order_id, `${data.order_id}~s${n}`);
      claims++;
    }
  }
  // A stream of the suite named after an id renamed above follows it (an aggregate and its lookup share the id).
  for (const e of events) {
    const id = e.stream_id.slice(e.stream_id.indexOf('-') + 1);
    const to = values.get(id);
    if (to !== undefined && !streams.has(e.stream_id) && UUID.test(id)) streams.set(e.stream_id, `${e.stream_id.slice(0, e.stream_id.indexOf('-'))}-${to}`);
  }
  return { streams, values, claims };
}

/** Appends every suite's events to the (fresh, migrated) database's log, in collection order. */
export async function mergeCollection(knex: Knex, suites: readonly CollectedSuite[]): Promise<MergeStats> {
  const stats: MergeStats = { suites: suites.length, files: new Set(suites.map((s) => s.file)).size, events: 0, types: 0, streams: 0, renamedStreams: 0, renamedClaims: 0, renewedEventIds: 0, opened: 0, keptSealed: 0, skips: 0 };
  const owner = new Map<string, number>();
  const numbers = new Set<string>();
  const emails = new Set<string>();
  const skips: { projection: string; event_id: string; stream_id: string; position: string; type: string; reason: string; actor: string; skipped_at: string }[] = [];
  const eventIds = new Set<string>();
  const types = new Set<string>();
  const streams = new Set<string>();
  const tombstones = new Map<string, { subject: string; key: null; created_at: string; erased_at: string | null }>();
  for (const [n, suite] of suites.entries()) {
    const keys = new Map(suite.keys.map((k) => [k.subject, k.key === null ? null : Buffer.from(k.key, 'hex')]));
    const erased = new Set<string>();
    const parsed: Parsed[] = suite.events.map((e) => ({ ...e, value: opened(e, keys, stats, erased) }));
    const renames = renamesOf(parsed, n, owner, numbers, emails);
    const ids = new Map<string, string>();
    stats.renamedStreams += renames.streams.size;
    stats.renamedClaims += renames.claims;
    const out = parsed.map((e) => {
      let eventId = e.event_id;
      if (eventIds.has(eventId)) {
        eventId = crypto.randomUUID();
        stats.renewedEventIds++;
      }
      eventIds.add(eventId);
      ids.set(e.event_id, eventId);
      types.add(e.type);
      const stream = renames.streams.get(e.stream_id) ?? e.stream_id;
      streams.add(stream);
      return { stream_id: stream, revision: e.revision, event_id: eventId, type: e.type, data: JSON.stringify(renamed(e.value, renames.values)), metadata: e.metadata, created_at: e.created_at };
    });
    // A skip of an event the suite later removed by hand (its row repaired away) has nothing left to skip.
    for (const s of suite.skips) {
      const id = ids.get(s.event_id);
      // The position is the merged log's, once appended (below).
      if (id) skips.push({ ...s, event_id: id, stream_id: renames.streams.get(s.stream_id) ?? s.stream_id, position: '' });
    }
    for (const k of suite.keys) if (erased.has(k.subject) && !tombstones.has(k.subject)) tombstones.set(k.subject, { subject: k.subject, key: null, created_at: k.created_at, erased_at: k.erased_at });
    for (let at = 0; at < out.length; at += BATCH) await knex('es_events').insert(out.slice(at, at + BATCH));
    stats.events += out.length;
  }
  const rows = [...tombstones.values()];
  for (let at = 0; at < rows.length; at += BATCH) await knex('data_subject_keys').insert(rows.slice(at, at + BATCH));
  for (const s of skips) {
    const at = (await knex('es_events').where({ event_id: s.event_id }).first(knex.raw('transaction_id::text as xid'), 'global_position')) as { xid: string; global_position: string | number };
    s.position = formatPosition(at.xid, at.global_position);
  }
  if (skips.length > 0) await knex('projection_skips').insert(skips);
  stats.skips = skips.length;
  stats.types = types.size;
  stats.streams = streams.size;
  return stats;
}
