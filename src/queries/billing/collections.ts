// Reads billing_collections (billing.collections): invoices whose automatic collection failed.
import type { Knex } from 'knex';
import type { CollectionDoc } from '../../projections/billing/collections.ts';

/** Invoices whose last automatic charge was declined, the longest failing first (at most `limit`). */
export async function failingCollections(knex: Knex, limit: number): Promise<CollectionDoc[]> {
  const rows = (await knex('billing_collections').where({ failing: true }).select('doc').limit(limit)) as { doc: CollectionDoc }[];
  return rows.map((r) => r.doc).sort((a, b) => (a.failing_since ?? '').localeCompare(b.failing_since ?? '') || a.invoice_id.localeCompare(b.invoice_id));
}
