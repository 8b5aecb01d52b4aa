// The webhook outbox, read by queries/billing/webhook-outbox.ts and so by the delivery worker. The projection engine
// follows the log with its checkpoint and keeps, in log order: each endpoint as it stands (billing_webhook_targets: where,
// which types, which secrets sign, from which log position it receives), each public event some endpoint may want
// (billing_webhook_messages: the billing.events.get body, plus lookup and import completions), and each redelivery asked
// for. What was delivered is the worker's business (webhook_delivery_cursors): a rebuild here re-sends nothing.
import type { Knex } from 'knex';
import type { RecordedEvent } from '../../eventstore/port.ts';
import type { Projection } from '../projection.ts';
import { onDocumentWritten } from '../documents/cache.ts';
import { readRecorded, streamCategory, streamKey } from '../recorded.ts';
import { FEED_TYPES, type BillingEventDoc, toFeedEvent } from './events.ts';
import { erasedDoc, feedErasure } from './feed/erasure.ts';
import type { FeedKnowledge } from './feed/types.ts';
import { type WebhookEndpointEvent, webhookEndpointCodec } from '../../domain/billing/webhook-endpoint.ts';
import { assemblySearchCodec } from '../../domain/assemblies/search.ts';
import { importCodec } from '../../domain/ingest/import.ts';

/** A secret that signs deliveries, until `until` (null: the current one). */
export interface SigningSecret {
  secret: string;
  until: string | null;
}

/** The body of a delivery: billing.events.get's shape, with the lookup and import subjects too. */
export interface WebhookPayloadDoc {
  id: string;
  type: string;
  occurred_at: string;
  subject: { type: string; id: string };
  data: Record<string, unknown>;
}

const ENDPOINT_TYPES = Object.keys(webhookEndpointCodec.schemas);
const COMPLETION_TYPES = ['AssembliesSearchCompleted', 'ImportCompleted', 'ImportFailed'];
const HANDLED = new Set([...FEED_TYPES, ...ENDPOINT_TYPES, ...COMPLETION_TYPES]);

/** Lookup (assemblies search) and import completions as public events; everything else in those streams stays internal. */
function completion(e: RecordedEvent): WebhookPayloadDoc | null {
  const at = e.createdAt.toISOString();
  const category = streamCategory(e.streamId);
  if (category === 'assemblysearch' && e.type === 'AssembliesSearchCompleted') {
    const read = readRecorded(assemblySearchCodec, e);
    const d = read.data;
    return { id: e.id, type: 'lookup.completed', occurred_at: at, subject: { type: 'lookup', id: d.search_id }, data: { vehicle_id: d.vehicle_id, vehicle: d.vehicle, hca_ids: d.hca_ids, result_count: d.result_count, enriched: d.enriched } };
  }
  if (category === 'import' && (e.type === 'ImportCompleted' || e.type === 'ImportFailed')) {
    const read = readRecorded(importCodec, e);
    if (read.type === 'ImportCompleted') return { id: e.id, type: 'import.completed', occurred_at: at, subject: { type: 'import', id: streamKey(e) }, data: {} };
    if (read.type === 'ImportFailed') return { id: e.id, type: 'import.failed', occurred_at: at, subject: { type: 'import', id: streamKey(e) }, data: { code: read.data.code, message: read.data.message } };
  }
  return null;
}

interface Target {
  endpoint_id: string;
  organization_id: string | null;
  event_types: string[];
}

/** What the feed's mappers need to know of earlier events (currencies, finalized invoices), kept here so the outbox depends on no other read model. */
async function feedFacts(knex: Knex, events: RecordedEvent[]) {
  const ids = [...new Set(events.filter((e) => e.type === 'CreditNoteRequestUpdated' || e.type === 'InvoiceDetailsUpdated').map(streamKey))];
  const rows = ids.length ? ((await knex('billing_webhook_feed_facts').whereIn('id', ids).select('id as subject_id', 'currency', 'finalized')) as { subject_id: string; currency: string | null; finalized: boolean }[]) : [];
  const currencies = new Map(rows.flatMap((r) => (r.currency ? [[r.subject_id, r.currency] as const] : [])));
  const finalized = new Set(rows.filter((r) => r.finalized).map((r) => r.subject_id));
  const learned = new Map<string, { currency?: string; finalized?: boolean }>();
  const known: FeedKnowledge = { currencyOf: (id) => currencies.get(id) ?? 'XXX', finalized: (id) => finalized.has(id) };
  return {
    known,
    learn(d: BillingEventDoc) {
      const amount = d.data.amount;
      if (amount && typeof amount === 'object' && 'currency' in amount && typeof amount.currency === 'string' && d.subject.type === 'credit_note_request') {
        currencies.set(d.subject.id, amount.currency);
        learned.set(d.subject.id, { ...learned.get(d.subject.id), currency: amount.currency });
      }
      if (d.type === 'invoice.finalized') {
        finalized.add(d.subject.id);
        learned.set(d.subject.id, { ...learned.get(d.subject.id), finalized: true });
      }
    },
    /** What was learned, as rows: a null currency or a false `finalized` changes nothing stored. */
    learned: () => [...learned].map(([id, f]) => ({ id, currency: f.currency ?? null, finalized: f.finalized ?? false })),
    async save(trx: Knex.Transaction) {
      for (const [id, f] of learned) {
        const changed = { ...(f.currency !== undefined ? { currency: f.currency } : {}), ...(f.finalized ? { finalized: true } : {}) };
        const insert = trx('billing_webhook_feed_facts').insert({ id, currency: f.currency ?? null, finalized: f.finalized ?? false }).onConflict('id');
        // An empty merge is no statement at all (knex refuses it): nothing learned to change means keep the row.
        await (Object.keys(changed).length ? insert.merge(changed) : insert.ignore());
      }
    },
  };
}

/** Whether any endpoint (enabled or not: a disabled one gets its backlog when enabled again) may want the message. */
function wanted(targets: Target[], m: { organization_id: string | null; staff_only: boolean; type: string }): boolean {
  return targets.some((t) => t.event_types.includes(m.type) && (t.organization_id === null || (t.organization_id === m.organization_id && !m.staff_only)));
}

async function applyEndpointEvent(trx: Knex.Transaction, e: RecordedEvent): Promise<void> {
  const read = readRecorded(webhookEndpointCodec, e) as WebhookEndpointEvent;
  const endpointId = streamKey(e);
  const target = trx('billing_webhook_targets').where({ id: endpointId });
  switch (read.type) {
    case 'WebhookEndpointRegistered': {
      const d = read.data;
      const secrets: SigningSecret[] = [{ secret: d.secret, until: null }];
      await trx('billing_webhook_targets')
        .insert({ id: endpointId, organization_id: d.organization_id, url: d.url, event_types: JSON.stringify(d.event_types), enabled: true, enabled_at: d.registered_at, from_position: e.position, secrets: JSON.stringify(secrets) })
        .onConflict('id')
        .ignore();
      return;
    }
    case 'WebhookEndpointUpdated': {
      // A description is no concern of deliveries.
      const changes = { ...(read.data.url !== undefined ? { url: read.data.url } : {}), ...(read.data.event_types ? { event_types: JSON.stringify(read.data.event_types) } : {}) };
      if (Object.keys(changes).length) await target.update(changes);
      return;
    }
    case 'WebhookEndpointDisabled':
      await target.update({ enabled: false });
      return;
    case 'WebhookEndpointEnabled':
      await target.update({ enabled: true, enabled_at: read.data.enabled_at });
      return;
    case 'WebhookEndpointSecretRotated': {
      const row = (await target.clone().first('secrets')) as { secrets: SigningSecret[] } | undefined;
      if (!row) return;
      const at = Date.parse(read.data.rotated_at);
      const kept = row.secrets.filter((s) => s.until === null || Date.parse(s.until) > at).map((s) => (s.until === null ? { ...s, until: read.data.previous_valid_until } : s));
      await target.update({ secrets: JSON.stringify([{ secret: read.data.secret, until: null }, ...kept]) });
      return;
    }
    case 'WebhookEndpointRemoved':
      await target.delete();
      await trx('billing_webhook_redeliveries').where({ endpoint_id: endpointId }).delete();
      return;
    case 'WebhookRedeliveryRequested':
      await trx('billing_webhook_redeliveries').insert({ id: read.data.redelivery_id, endpoint_id: endpointId, delivery_id: read.data.delivery_id, event_id: read.data.event_id, position: e.position }).onConflict('id').ignore();
      return;
  }
}

/** The stored endpoints as `wanted` reads them. */
async function targetsOf(knex: Knex): Promise<Target[]> {
  return (await knex('billing_webhook_targets').select('id as endpoint_id', 'organization_id', 'event_types')) as Target[];
}

/**
 * The endpoints as this process last read them, per database, for staging: a tail batch with a public event read the
 * table every time (1.2 to 1.7 ms of each tail cycle, which every command's read-your-writes wait sat through). Only
 * this projection writes the table: its own endpoint events (apply) drop the copies, and so does any other way the
 * rows may have changed (forgetDocuments: another runner's commit, a catch-up, a rebuild), as for staged documents.
 */
let knownTargets = new WeakMap<Knex, Target[]>();
const forgetTargets = () => {
  knownTargets = new WeakMap();
};
onDocumentWritten('billing_webhook_targets', forgetTargets);

async function stagingTargets(knex: Knex): Promise<Target[]> {
  const known = knownTargets.get(knex);
  if (known) return known;
  const generation = knownTargets;
  const read = await targetsOf(knex);
  // Not kept if the copies were dropped while it read.
  if (generation === knownTargets) knownTargets.set(knex, read);
  return read;
}

/** The outbox row of a public event (a feed event, or a lookup or import completion), before asking whether an endpoint wants it. */
function messageOf(e: RecordedEvent, facts: Awaited<ReturnType<typeof feedFacts>>) {
  const feed = toFeedEvent(e, facts.known);
  if (feed) facts.learn(feed.doc);
  const payload: WebhookPayloadDoc | null = feed ? feed.doc : completion(e);
  if (!payload) return null;
  return { id: e.id, position: e.position, organization_id: e.metadata.org_id, staff_only: feed?.staffOnly ?? false, type: payload.type, payload };
}

/** Builds the outbox; its checkpoint is what makes every public event reach it once, in log order. */
export const billingWebhookOutboxProjection: Projection = {
  name: 'billing.webhook-outbox',
  version: 1,
  tables: ['billing_webhook_targets', 'billing_webhook_messages', 'billing_webhook_redeliveries', 'billing_webhook_feed_facts'],
  handles: (type) => HANDLED.has(type),
  async apply(trx, events) {
    const facts = await feedFacts(trx, events);
    let targets: Target[] | null = null;
    const messages: Record<string, unknown>[] = [];
    for (const e of events) {
      if (streamCategory(e.streamId) === 'webhookendpoint') {
        await applyEndpointEvent(trx, e);
        targets = null;
        forgetTargets();
        continue;
      }
      const message = messageOf(e, facts);
      if (!message) continue;
      targets ??= await targetsOf(trx);
      if (wanted(targets, message)) messages.push({ ...message, payload: JSON.stringify(message.payload) });
    }
    await facts.save(trx);
    for (let i = 0; i < messages.length; i += 2000) await trx('billing_webhook_messages').insert(messages.slice(i, i + 2000)).onConflict('id').ignore();
    // An erased customer's messages not delivered yet go out, and stay, as the feed now reads them (issue 32).
    for (const x of events.map(feedErasure)) {
      if (!x) continue;
      const rows = (await trx('billing_webhook_messages').whereRaw(`payload->'subject'->>'type' = 'customer' and payload->'subject'->>'id' = ?`, [x.customerId]).select('id', 'payload')) as { id: string; payload: unknown }[];
      for (const r of rows) {
        const payload = erasedDoc(r.payload, x.paths);
        if (payload !== null) await trx('billing_webhook_messages').where({ id: r.id }).update({ payload: JSON.stringify(payload) });
      }
    }
  },
  // A batch that changes no endpoint and erases no customer commits in the tail's one statement (the common one: a
  // customer created, an invoice paid). The endpoints it reads are the ones the checkpoint it moves from has seen: the
  // commit's compare-and-set skips the writes if anything moved since. Before, every batch of the tail waited for this
  // projection's own transaction (six round trips against the statement's one), and every command's read-your-writes
  // wait with it.
  stages: (events) => !events.some((e) => streamCategory(e.streamId) === 'webhookendpoint' || feedErasure(e) !== null),
  async stage(knex, events) {
    const facts = await feedFacts(knex, events);
    const candidates = events.map((e) => messageOf(e, facts)).filter((m) => m !== null);
    const targets = candidates.length ? await stagingTargets(knex) : [];
    const messages = candidates.filter((m) => wanted(targets, m));
    const learned = facts.learned();
    return {
      write(add) {
        if (learned.length) {
          add(
            (guard) => `insert into billing_webhook_feed_facts (id, currency, finalized)
              select id, currency, finalized from jsonb_to_recordset(?::jsonb) as f(id uuid, currency text, finalized boolean) where ${guard}
              on conflict (id) do update set currency = coalesce(excluded.currency, billing_webhook_feed_facts.currency), finalized = billing_webhook_feed_facts.finalized or excluded.finalized`,
            [JSON.stringify(learned)],
          );
        }
        if (messages.length) {
          add(
            (guard) => `insert into billing_webhook_messages (id, position, organization_id, staff_only, type, payload)
              select id, position, organization_id, staff_only, type, payload from jsonb_populate_recordset(null::billing_webhook_messages, ?::jsonb) where ${guard}
              on conflict (id) do nothing`,
            [JSON.stringify(messages)],
          );
        }
      },
    };
  },
};
