// A subscription's month of usage as documents (issue 26): its usage invoice, then supplementary invoices 1, 2, ... of
// the orders billed after it, and the baseline the month's earlier documents consume. Generation
// (commands/billing/usage-invoices.ts) and re-rating (invoice-corrections.ts) share these, so a supplementary invoice is
// rated the same way both times: after the orders of the month's earlier documents.
import type { Knex } from 'knex';
import { baselineConsumption } from '../../domain/billing/configuration/rating.ts';
import type { ConfigurationSnapshot } from '../../domain/billing/configuration/snapshot.ts';
import { supplementId, usageInvoiceId } from '../../domain/billing/usage-month.ts';
import { existingInvoices } from './invoices.ts';
import { ordersOfInvoices } from './invoice-orders.ts';
import { usageByOrderIds } from './usage.ts';

/** The ids of the month's documents that exist: its invoice, then supplementary invoices 1, 2, ... in order. */
export async function monthDocuments(knex: Knex, subscriptionId: string, period: string): Promise<string[]> {
  const regular = usageInvoiceId(subscriptionId, period);
  if ((await existingInvoices(knex, [regular])).size === 0) return [];
  const ids = [regular];
  for (let seq = 1; ; seq += 8) {
    const batch = Array.from({ length: 8 }, (_, i) => supplementId(subscriptionId, period, seq + i));
    const found = await existingInvoices(knex, batch);
    for (const id of batch) {
      if (!found.has(id)) return ids;
      ids.push(id);
    }
  }
}

/**
 * The baseline consumed, by seller and month (baselineKey), by the orders of the month's documents before `invoiceId`
 * (none for its regular invoice): their current facts, voided ones left out, rated under `snapshot` as known at `asOf`.
 * The invoice's own orders are rated after them, as generation rated them.
 */
export async function consumedBeforeDocument(knex: Knex, invoiceId: string, subscriptionId: string, period: string, snapshot: ConfigurationSnapshot, asOf: string): Promise<Map<string, bigint>> {
  const docs = await monthDocuments(knex, subscriptionId, period);
  const at = docs.indexOf(invoiceId);
  const earlier = at < 0 ? [] : docs.slice(0, at);
  if (earlier.length === 0) return new Map();
  const facts = await usageByOrderIds(knex, [...(await ordersOfInvoices(knex, earlier)).keys()]);
  const orders = [...facts.values()].filter((f) => f.correction?.kind !== 'voided');
  return baselineConsumption(snapshot, orders, asOf);
}
