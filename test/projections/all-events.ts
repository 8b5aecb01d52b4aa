// Every event type of every aggregate, as generated values: data drawn from the type's zod schema, a stream id of the
// aggregate's category (named as its command handler names it), and metadata as the pipeline writes it.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import fc from 'fast-check';
import type { EventCodec, DomainEvent } from '../../src/domain/decider.ts';
import type { Actor, EventMetadata } from '../../src/eventstore/port.ts';
import { zodArbitrary } from '../support/zod-arbitrary.ts';
import { userCodec, emailClaimCodec } from '../../src/domain/identity/user.ts';
import { organizationCodec } from '../../src/domain/identity/organization.ts';
import { jobCodec } from '../../src/domain/jobs/job.ts';
import { jobExternalIdCodec } from '../../src/domain/jobs/external-id.ts';
import { vehicleLookupCodec } from '../../src/domain/assemblies/lookup.ts';
import { assemblySearchCodec } from '../../src/domain/assemblies/search.ts';
import { vehiclePreloadCodec } from '../../src/domain/vehicles/preload.ts';
import { paymentAttemptCodec } from '../../src/domain/billing/payment-attempt.ts';
import { productCodec } from '../../src/domain/billing/product.ts';
import { overrideCodec } from '../../src/domain/billing/entitlement-override.ts';
import { invoiceNumberCodec } from '../../src/domain/billing/invoice-number.ts';
import { creditNoteRequestCodec } from '../../src/domain/billing/credit-note-request.ts';
import { currencyCodec } from '../../src/domain/billing/currency.ts';
import { exchangeRateCodec } from '../../src/domain/billing/exchange-rate.ts';
import { subscriptionCodec } from '../../src/domain/billing/subscription.ts';
import { relationshipCodec, relationshipIdOf } from '../../src/domain/billing/configuration/relationship.ts';
import { revisionCodec } from '../../src/domain/billing/configuration/revisions.ts';
import { attachmentCodec } from '../../src/domain/billing/attachment.ts';
import { collectionCodec } from '../../src/domain/billing/collection.ts';
import { messageCodec } from '../../src/domain/billing/message.ts';
import { webhookEndpointCodec } from '../../src/domain/billing/webhook-endpoint.ts';
import { customerCodec } from '../../src/domain/billing/customer.ts';
import { accessCodec } from '../../src/domain/billing/access.ts';
import { invoiceCodec } from '../../src/domain/billing/invoice-events.ts';
import { invoiceCorrectionCodec } from '../../src/domain/billing/invoice-correction.ts';
import { usageCodec, usageKey } from '../../src/domain/billing/usage.ts';
import { usageMonthCodec, usageMonthKey } from '../../src/domain/billing/usage-month.ts';
import { paymentProfileCodec } from '../../src/domain/billing/payment-profile.ts';
import { noteCodec } from '../../src/domain/billing/note.ts';
import { priceCodec } from '../../src/domain/billing/price.ts';
import { entitlementCodec } from '../../src/domain/billing/entitlement.ts';
import { clientCodec } from '../../src/domain/integrations/client.ts';
import { integrationCodec } from '../../src/domain/integrations/integration.ts';
import { importCodec } from '../../src/domain/ingest/import.ts';
import { analyticsCodec, analyticsStream } from '../../src/domain/analytics/event.ts';
import { chargeCodec, reconciliationCodec } from '../../src/domain/billing/charge.ts';

/** One aggregate: its codec, named `<file under src/domain>#<export>`, and how its streams are named. */
export interface Aggregate {
  name: string;
  codec: EventCodec<DomainEvent>;
  streams: StreamOf;
}

const DOMAIN = fileURLToPath(new URL('../../src/domain/', import.meta.url));

/**
 * Every codec declared under src/domain (`export const x = eventCodec(...)`), as `<file>#<export>`: read from the
 * source text, so a new aggregate is found without being listed (an import here would load a second copy of the module).
 */
export function declaredCodecs(): string[] {
  const files = readdirSync(DOMAIN, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).sort();
  return files.flatMap((file) => [...readFileSync(path.join(DOMAIN, file), 'utf8').matchAll(/^export const (\w+)\b[^=\n]*= eventCodec\(/gm)].map((m) => `${file}#${m[1]}`));
}

/** Ids the generated events share (stream suffixes, ids in data, organizations in metadata), so events of one entity meet. */
export const ID_POOL = ['0190c6a2-0000-7000-8000-000000000001', '0190c6a2-0000-7000-8000-000000000002', '0190c6a2-0000-7000-8000-000000000003', '0190c6a2-0000-7000-8000-000000000004'];

/** Mostly an id of the pool, sometimes a fresh one. */
export const sharedIds: fc.Arbitrary<string> = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...ID_POOL) }, { weight: 1, arbitrary: fc.uuid() });

/** How the streams of an aggregate are named, from the event's data where its command handler names them so. */
export type StreamOf = (type: string, data: Record<string, unknown>) => fc.Arbitrary<string>;

/** `<category>-<uuid>` streams. */
export const uuidStreams =
  (category: string): StreamOf =>
  () =>
    sharedIds.map((id) => `${category}-${id}`);

/** A stream named by fields of the event's data (`currency-<code>`), or a fallback when the data has none of them. */
export const dataStreams =
  (name: (data: Record<string, unknown>) => string | null, fallback: StreamOf): StreamOf =>
  (type, data) => {
    const named = name(data);
    return named === null ? fallback(type, data) : fc.constant(named);
  };

/** One generated event to append. */
export interface GeneratedEvent {
  stream: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
}

const actor: fc.Arbitrary<Actor> = fc.record({ type: fc.constantFrom<Actor['type']>('user', 'staff', 'integration', 'system'), id: sharedIds });
const nullableId = fc.option(fc.uuid(), { nil: null });

/** Metadata as the pipeline writes it: organization id or null, an actor, request/correlation/causation ids, an optional reason. */
export const metadata: fc.Arbitrary<EventMetadata> = fc.record(
  {
    org_id: fc.option(sharedIds, { nil: null }),
    actor,
    request_id: nullableId,
    correlation_id: nullableId,
    causation_id: nullableId,
    reason: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 500 }).filter((s) => !s.includes('\u0000')),
  },
  { requiredKeys: ['org_id', 'actor', 'request_id', 'correlation_id', 'causation_id'] },
);

/** Events of one type: schema-drawn data, a stream of its aggregate and metadata (ids are given at append). */
export function eventsOf(codec: EventCodec<DomainEvent>, type: string, streamOf: StreamOf): fc.Arbitrary<GeneratedEvent> {
  const schema = codec.schemas[type];
  if (!schema) throw new Error(`no schema for ${type}`);
  return zodArbitrary(schema, { uuid: sharedIds }).chain((data) => fc.record({ stream: streamOf(type, isRecord(data) ? data : {}), type: fc.constant(type), data: fc.constant(data), metadata }));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const CURRENCIES = ['GBP', 'EUR', 'USD', 'JPY'];

/** Every aggregate, with its streams named as its command handler names them; the test checks this list against declaredCodecs(). */
export const AGGREGATES: Aggregate[] = [
  { name: 'identity/user.ts#userCodec', codec: userCodec, streams: uuidStreams('user') },
  { name: 'identity/user.ts#emailClaimCodec', codec: emailClaimCodec, streams: uuidStreams('useremail') },
  { name: 'identity/organization.ts#organizationCodec', codec: organizationCodec, streams: uuidStreams('organization') },
  { name: 'jobs/job.ts#jobCodec', codec: jobCodec, streams: uuidStreams('job') },
  { name: 'jobs/external-id.ts#jobExternalIdCodec', codec: jobExternalIdCodec, streams: uuidStreams('jobexternal') },
  { name: 'assemblies/lookup.ts#vehicleLookupCodec', codec: vehicleLookupCodec, streams: uuidStreams('vehiclelookup') },
  { name: 'assemblies/search.ts#assemblySearchCodec', codec: assemblySearchCodec, streams: uuidStreams('assemblysearch') },
  { name: 'vehicles/preload.ts#vehiclePreloadCodec', codec: vehiclePreloadCodec, streams: uuidStreams('vehiclepreload') },
  { name: 'billing/payment-attempt.ts#paymentAttemptCodec', codec: paymentAttemptCodec, streams: uuidStreams('paymentattempt') },
  { name: 'billing/product.ts#productCodec', codec: productCodec, streams: uuidStreams('product') },
  { name: 'billing/entitlement-override.ts#overrideCodec', codec: overrideCodec, streams: uuidStreams('entitlementoverride') },
  { name: 'billing/invoice-number.ts#invoiceNumberCodec', codec: invoiceNumberCodec, streams: uuidStreams('invoicenumber') },
  { name: 'billing/credit-note-request.ts#creditNoteRequestCodec', codec: creditNoteRequestCodec, streams: uuidStreams('creditnoterequest') },
  { name: 'billing/currency.ts#currencyCodec', codec: currencyCodec, streams: dataStreams((d) => (str(d.code) === null ? null : `currency-${str(d.code)}`), () => fc.constantFrom(...CURRENCIES).map((c) => `currency-${c}`)) },
  { name: 'billing/exchange-rate.ts#exchangeRateCodec', codec: exchangeRateCodec, streams: dataStreams((d) => (str(d.base) === null || str(d.target) === null ? null : `exchangerate-${str(d.base)}_${str(d.target)}`), () => fc.constant('exchangerate-EUR_GBP')) },
  { name: 'billing/subscription.ts#subscriptionCodec', codec: subscriptionCodec, streams: uuidStreams('subscription') },
  // A relationship's id is derived from its (subscription, seller, buyer): one stream per triple.
  { name: 'billing/configuration/relationship.ts#relationshipCodec', codec: relationshipCodec, streams: (type, d) => (type === 'RelationshipRegistered' ? fc.constant(`billingrelationship-${relationshipIdOf(String(d.subscription_id), String(d.seller), String(d.buyer))}`) : uuidStreams('billingrelationship')(type, d)) },
  { name: 'billing/configuration/revisions.ts#revisionCodec', codec: revisionCodec, streams: uuidStreams('billingconfiguration') },
  { name: 'billing/attachment.ts#attachmentCodec', codec: attachmentCodec, streams: uuidStreams('attachment') },
  { name: 'billing/collection.ts#collectionCodec', codec: collectionCodec, streams: uuidStreams('collection') },
  { name: 'billing/message.ts#messageCodec', codec: messageCodec, streams: uuidStreams('message') },
  { name: 'billing/webhook-endpoint.ts#webhookEndpointCodec', codec: webhookEndpointCodec, streams: uuidStreams('webhookendpoint') },
  { name: 'billing/customer.ts#customerCodec', codec: customerCodec, streams: uuidStreams('customer') },
  { name: 'billing/access.ts#accessCodec', codec: accessCodec, streams: uuidStreams('access') },
  { name: 'billing/invoice-events.ts#invoiceCodec', codec: invoiceCodec, streams: uuidStreams('invoice') },
  // One stream per corrected invoice, named by the invoice id both events carry.
  { name: 'billing/invoice-correction.ts#invoiceCorrectionCodec', codec: invoiceCorrectionCodec, streams: dataStreams((d) => (str(d.invoice_id) === null ? null : `invoicecorrections-${str(d.invoice_id)}`), uuidStreams('invoicecorrections')) },
  // One stream per order id: the order id is claimed once across the log (billing_usage.order_id is unique).
  { name: 'billing/usage.ts#usageCodec', codec: usageCodec, streams: dataStreams((d) => (str(d.order_id) === null ? null : `usage-${usageKey(str(d.order_id) ?? '')}`), uuidStreams('usage')) },
  // One stream per subscription and month (the key is derived from both).
  { name: 'billing/usage-month.ts#usageMonthCodec', codec: usageMonthCodec, streams: dataStreams((d) => (str(d.subscription_id) === null || str(d.period) === null ? null : `usagemonth-${usageMonthKey(str(d.subscription_id) ?? '', str(d.period) ?? '')}`), uuidStreams('usagemonth')) },
  { name: 'billing/payment-profile.ts#paymentProfileCodec', codec: paymentProfileCodec, streams: uuidStreams('paymentprofile') },
  { name: 'billing/note.ts#noteCodec', codec: noteCodec, streams: uuidStreams('note') },
  { name: 'billing/price.ts#priceCodec', codec: priceCodec, streams: uuidStreams('price') },
  { name: 'billing/entitlement.ts#entitlementCodec', codec: entitlementCodec, streams: dataStreams((d) => (str(d.key) === null ? null : `entitlement-${str(d.key)}`), () => fc.constantFrom('api', 'parts.search').map((k) => `entitlement-${k}`)) },
  // One stream per provider charge reference, and one per provider for reconciliation's checkpoint.
  { name: 'billing/charge.ts#chargeCodec', codec: chargeCodec, streams: dataStreams((d) => (str(d.charge_ref) === null ? null : `charge-${str(d.charge_ref)}`), () => fc.constant('charge-ch_sbx_1')) },
  { name: 'billing/charge.ts#reconciliationCodec', codec: reconciliationCodec, streams: dataStreams((d) => (str(d.provider) === null ? null : `reconciliation-${str(d.provider)}`), () => fc.constant('reconciliation-sandbox')) },
  { name: 'integrations/client.ts#clientCodec', codec: clientCodec, streams: uuidStreams('integrationclient') },
  { name: 'integrations/integration.ts#integrationCodec', codec: integrationCodec, streams: uuidStreams('integration') },
  { name: 'ingest/import.ts#importCodec', codec: importCodec, streams: (type, d) => (type === 'ImportChunkRecorded' ? fc.constant(`importchunk-${str(d.import_id)}-${String(d.chunk)}`) : uuidStreams('import')(type, d)) },
  { name: 'analytics/event.ts#analyticsCodec', codec: analyticsCodec, streams: dataStreams((d) => (str(d.event_id) !== null && /^[0-9a-f]{8}-[0-9a-f]{4}-7/i.test(str(d.event_id) ?? '') ? analyticsStream(str(d.event_id) ?? '') : null), () => fc.constant('analytics-2026-01-15')) },
];

/**
 * Values the write side keeps unique across streams (claims and counters, not something one event's schema can say):
 * an email is claimed by one user (EmailClaimed), an API key hash belongs to one installation, an invoice number is
 * allocated once (InvoiceNumberAllocated). The read models index them as unique.
 */
const UNIQUE_ACROSS_STREAMS: readonly (readonly [type: string, field: string])[] = [
  ['UserRegistered', 'email'],
  ['IntegrationInstalled', 'api_key_hash'],
  ['InvoiceFinalized', 'number'],
];

/** Drops the events that would break a cross-stream uniqueness the write side guarantees (the first claim wins). */
export function keepWriteInvariants(log: GeneratedEvent[]): GeneratedEvent[] {
  const owners = new Map<string, string>();
  return log.filter((e) => {
    for (const [type, field] of UNIQUE_ACROSS_STREAMS) {
      if (e.type !== type || !isRecord(e.data)) continue;
      const key = `${type}:${JSON.stringify(e.data[field])}`;
      const owner = owners.get(key);
      if (owner !== undefined && owner !== e.stream) return false;
      owners.set(key, e.stream);
    }
    return true;
  });
}

/** A log placed in phases: each event with the phase it is appended in (0, 1 or 2). */
export interface PhasedEvent extends GeneratedEvent {
  phase: number;
}

/**
 * Logs holding every event type of every codec 1-2 times, in random order and phases, with the write side's
 * cross-stream invariants kept.
 */
export function eventLogs(aggregates: Aggregate[], phases: number): fc.Arbitrary<PhasedEvent[]> {
  const perType = aggregates.flatMap(({ codec, streams }) =>
    Object.keys(codec.schemas).map((type) =>
      fc.array(fc.record({ event: eventsOf(codec, type, streams), order: fc.nat(), phase: fc.nat({ max: phases - 1 }) }), { minLength: 1, maxLength: 2 }),
    ),
  );
  return fc.tuple(...perType).map((lists) => {
    const sorted = lists.flat().sort((a, b) => a.order - b.order);
    const kept = new Set(keepWriteInvariants(sorted.map((x) => x.event)));
    return sorted.filter((x) => kept.has(x.event)).map((x) => ({ ...x.event, phase: x.phase }));
  });
}
