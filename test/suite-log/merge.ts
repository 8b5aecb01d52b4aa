// One log from the whole suite's collected events (test/support/suite-log.ts), appended suite after suite into a fresh
// database, as a deployment written before crypto-shredding would hold it: every personal value a suite could still
// read is stored in plaintext again, and no key is kept (the rewrite makes them). Values of subjects a suite had
// erased stay sealed, with their tombstones: a deployment that upgraded and erased someone before running the rewrite.
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { type Envelope, envelopeSubject, isEnvelope, open } from '../../src/eventstore/envelope.ts';
import type { CollectedSuite } from '../support/suite-log.ts';

/** What the merge found and did. */
export interface MergeStats {
  suites: number;
  /** Test files the suites came from. */
  files: number;
  events: number;
  types: number;
  streams: number;
  /** Streams renamed because an earlier suite had written a stream of that name (see `streamIn`). */
  renamedStreams: number;
  /** Event ids already taken by an earlier suite, replaced by new ones. */
  renewedEventIds: number;
  /** Personal values opened back to plaintext. */
  opened: number;
  /** Sealed values of erased subjects, kept as stored. */
  keptSealed: number;
}

const BATCH = 500;

/**
 * The stream a suite's stream becomes in the merged log. Suites share stream names (singleton streams, ids a test
 * fixes, email claims of the same address): appended into one log, their revisions would collide, and one stream would
 * hold two suites' histories (two "created" events). A later suite's stream of a name taken already gets the suite's
 * number after its id, `<category>-<id>~<n>`: revisions restart at 0 in a stream of its own, so the log keeps one
 * contiguous revision sequence per stream, and the category before the first "-" (what projections and subjects read)
 * is unchanged.
 */
function streamIn(owner: Map<string, number>, stream: string, suite: number): { name: string; renamed: boolean } {
  const first = owner.get(stream);
  if (first === undefined) {
    owner.set(stream, suite);
    return { name: stream, renamed: false };
  }
  return first === suite ? { name: stream, renamed: false } : { name: `${stream}~${suite}`, renamed: true };
}

/** `value` with every envelope opened whose subject the suite still held a key for; counts what it did. */
function opened(value: unknown, keys: Map<string, Buffer | null>, stats: MergeStats, erased: Set<string>): unknown {
  if (isEnvelope(value)) {
    const subject = envelopeSubject(value as Envelope);
    const key = keys.get(subject);
    if (key) {
      stats.opened++;
      return open(value, key);
    }
    stats.keptSealed++;
    erased.add(subject);
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => opened(v, keys, stats, erased));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, opened(v, keys, stats, erased)]));
  return value;
}

/** Appends every suite's events to the (fresh, migrated) database's log, in collection order. */
export async function mergeCollection(knex: Knex, suites: readonly CollectedSuite[]): Promise<MergeStats> {
  const stats: MergeStats = { suites: suites.length, files: new Set(suites.map((s) => s.file)).size, events: 0, types: 0, streams: 0, renamedStreams: 0, renewedEventIds: 0, opened: 0, keptSealed: 0 };
  const owner = new Map<string, number>();
  const renamed = new Set<string>();
  const eventIds = new Set<string>();
  const types = new Set<string>();
  const tombstones = new Map<string, { subject: string; key: null; created_at: string; erased_at: string | null }>();
  for (const [i, suite] of suites.entries()) {
    const keys = new Map(suite.keys.map((k) => [k.subject, k.key === null ? null : Buffer.from(k.key, 'hex')]));
    const erased = new Set<string>();
    const out = suite.events.map((e) => {
      const stream = streamIn(owner, e.stream_id, i);
      if (stream.renamed) renamed.add(stream.name);
      let eventId = e.event_id;
      if (eventIds.has(eventId)) {
        eventId = crypto.randomUUID();
        stats.renewedEventIds++;
      }
      eventIds.add(eventId);
      types.add(e.type);
      const data = e.data.includes('"$enc"') ? JSON.stringify(opened(JSON.parse(e.data), keys, stats, erased)) : e.data;
      return { stream_id: stream.name, revision: e.revision, event_id: eventId, type: e.type, data, metadata: e.metadata, created_at: e.created_at };
    });
    for (const k of suite.keys) if (erased.has(k.subject) && !tombstones.has(k.subject)) tombstones.set(k.subject, { subject: k.subject, key: null, created_at: k.created_at, erased_at: k.erased_at });
    for (let at = 0; at < out.length; at += BATCH) await knex('es_events').insert(out.slice(at, at + BATCH));
    stats.events += out.length;
  }
  const rows = [...tombstones.values()];
  for (let at = 0; at < rows.length; at += BATCH) await knex('data_subject_keys').insert(rows.slice(at, at + BATCH));
  stats.types = types.size;
  stats.streams = owner.size + renamed.size;
  stats.renamedStreams = renamed.size;
  return stats;
}
