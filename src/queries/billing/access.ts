// Reads of the access read model (billing_access, written by projections/billing/access.ts): suspension for non-payment.
import type { Knex } from 'knex';
import type { AccessDoc } from '../../projections/billing/access.ts';

/** A customer's access document, if access was ever reviewed. */
export async function accessOf(knex: Knex, customerId: string): Promise<AccessDoc | undefined> {
  const row = await knex('billing_access').where({ id: customerId }).first('doc');
  return row?.doc as AccessDoc | undefined;
}

/** Customers whose access is suspended now. */
export async function suspendedCustomers(knex: Knex): Promise<{ customer_id: string; organization_id: string }[]> {
  return (await knex('billing_access').where({ suspended: true }).select('id as customer_id', 'organization_id')) as { customer_id: string; organization_id: string }[];
}

/** Which of the given customers are suspended now. */
export async function suspendedAmong(knex: Knex, customerIds: string[]): Promise<Set<string>> {
  if (customerIds.length === 0) return new Set();
  const rows = (await knex('billing_access').whereIn('id', customerIds).where({ suspended: true }).select('id')) as { id: string }[];
  return new Set(rows.map((r) => r.id));
}
