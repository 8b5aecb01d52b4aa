// billing_collections: automatic collection of each invoice as staff need to see it (the last attempt and whether it
// failed). Read by queries/billing/collections.ts (the Needs attention list).
import { type CollectionEvent, collectionCodec } from '../../domain/billing/collection.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';

/** Automatic collection of one invoice. */
export interface CollectionDoc {
  invoice_id: string;
  attempts: number;
  /** The last attempt was declined. */
  failing: boolean;
  last_code: string | null;
  /** When the next attempt is due; null once collection has stopped (or succeeded). */
  next_attempt_at: string | null;
  /** When the first failed attempt of the current run of failures happened. */
  failing_since: string | null;
  updated_at: string;
}

/** Builds billing_collections from the collection streams. */
export const billingCollectionsProjection = documentProjection({
  name: 'billing.collections',
  version: 1,
  tables: [
    documentTable<CollectionDoc, CollectionEvent>({
      table: 'billing_collections',
      events: collectionCodec,
      columns: (d) => ({ failing: d.failing }),
      handlers: {
        ChargeSucceeded: (doc, d) => ({ invoice_id: d.invoice_id, attempts: Math.max(doc?.attempts ?? 0, d.attempt), failing: false, last_code: null, next_attempt_at: null, failing_since: null, updated_at: d.at }),
        ChargeFailed: (doc, d) => ({
          invoice_id: d.invoice_id, attempts: Math.max(doc?.attempts ?? 0, d.attempt), failing: true, last_code: d.code, next_attempt_at: d.next_attempt_at,
          failing_since: doc?.failing ? doc.failing_since : d.at, updated_at: d.at,
        }),
      },
    }),
  ],
});
