// How many open invoices a customer has: customers.remove is refused while any are open.
import type { Knex } from 'knex';

/** Counts the customer's invoices in status open or uncollectible. */
export async function openInvoiceCount(knex: Knex, customerId: string): Promise<number> {
  const row = await knex('billing_invoices').where({ customer_id: customerId }).whereIn('status', ['open', 'uncollectible']).count<{ count: string }[]>('* as count');
  return Number(row[0]?.count ?? 0);
}
