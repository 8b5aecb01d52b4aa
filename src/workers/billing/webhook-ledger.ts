// The webhook delivery worker's own record (webhook_delivery_cursors, webhook_deliveries, webhook_delivery_attempts): how far
// each endpoint was delivered (a log position), its backoff, who holds it now (a lease, so two processes never send to one
// endpoint at once), and every attempt. Operations state like a projection checkpoint, not a read model: it is not derived
// from the log, and a rebuild of the outbox must not reset it (that would send everything again).
import type { Knex } from 'knex';
import { newId } from '../../ids.ts';

/** Where an endpoint's delivery stands. */
export interface DeliveryCursor {
  position: string;
  failing_since: Date | null;
  next_attempt_at: Date | null;
}

/** How long a lease lasts without renewal: a process that died lets another take its endpoints after this. */
const LEASE_MS = 120_000;

/** Takes the endpoint for `owner` (creating its cursor at `from`), or null when another process holds it. Lease times are wall-clock time. */
export async function claim(knex: Knex, endpointId: string, from: string, owner: string): Promise<DeliveryCursor | null> {
  await knex('webhook_delivery_cursors').insert({ endpoint_id: endpointId, position: from }).onConflict('endpoint_id').ignore();
  const now = new Date();
  const rows = (await knex('webhook_delivery_cursors')
    .where({ endpoint_id: endpointId })
    .whereRaw('(lease_until is null or lease_until < ? or lease_owner = ?)', [now, owner])
    .update({ lease_owner: owner, lease_until: new Date(now.getTime() + LEASE_MS) })
    .returning(['position', 'failing_since', 'next_attempt_at'])) as { position: string; failing_since: Date | string | null; next_attempt_at: Date | string | null }[];
  const row = rows[0];
  if (!row) return null;
  return { position: row.position, failing_since: row.failing_since === null ? null : new Date(row.failing_since), next_attempt_at: row.next_attempt_at === null ? null : new Date(row.next_attempt_at) };
}

/** Gives the endpoint back. */
export async function release(knex: Knex, endpointId: string, owner: string): Promise<void> {
  await knex('webhook_delivery_cursors').where({ endpoint_id: endpointId, lease_owner: owner }).update({ lease_owner: null, lease_until: null });
}

/** Delivered up to `position`: the next item goes at once, and the lease is renewed. */
export async function advance(knex: Knex, endpointId: string, position: string, owner: string): Promise<void> {
  await knex('webhook_delivery_cursors').where({ endpoint_id: endpointId, lease_owner: owner }).update({ position, failing_since: null, next_attempt_at: null, lease_until: new Date(Date.now() + LEASE_MS) });
}

/** The head of the queue failed: try again at `next` (null: not before a person enables the endpoint again). */
export async function backOff(knex: Knex, endpointId: string, failingSince: Date, next: Date | null): Promise<void> {
  await knex('webhook_delivery_cursors').where({ endpoint_id: endpointId }).update({ failing_since: failingSince, next_attempt_at: next });
}

/** One attempt, and where its delivery stands after it. */
export interface AttemptRecord {
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  redelivery: boolean;
  status: 'delivered' | 'failing';
  next_attempt_at: Date | null;
  attempted_at: Date;
  status_code: number | null;
  latency_ms: number;
  response_excerpt: string;
  ok: boolean;
}

/** Records one attempt and where its delivery stands. */
export async function recordAttempt(knex: Knex, a: AttemptRecord): Promise<void> {
  await knex('webhook_deliveries')
    .insert({ id: a.delivery_id, endpoint_id: a.endpoint_id, event_id: a.event_id, webhook_id: a.event_id, event_type: a.event_type, redelivery: a.redelivery, status: a.status, next_attempt_at: a.next_attempt_at, created_at: a.attempted_at })
    .onConflict('id')
    .merge(['status', 'next_attempt_at']);
  await knex('webhook_delivery_attempts').insert({ id: newId(), delivery_id: a.delivery_id, attempted_at: a.attempted_at, status_code: a.status_code, latency_ms: a.latency_ms, response_excerpt: a.response_excerpt, ok: a.ok });
}

/**
 * Deletes deliveries delivered before `before`, with their attempts, at most `limit` deliveries per call (the worker calls it again
 * next hour, so a large backlog goes in steps, not one long transaction); deliveries still pending or failing are kept whatever their
 * age. Returns how many deliveries went.
 */
export async function pruneDeliveries(knex: Knex, before: Date, limit = 10_000): Promise<number> {
  return knex.transaction(async (trx) => {
    const gone = (await trx('webhook_deliveries')
      .whereIn('id', trx('webhook_deliveries').select('id').where('status', 'delivered').andWhere('created_at', '<', before).limit(limit))
      .delete()
      .returning('id')) as { id: string }[];
    if (gone.length > 0) await trx('webhook_delivery_attempts').whereIn('delivery_id', gone.map((g) => g.id)).delete();
    return gone.length;
  });
}
