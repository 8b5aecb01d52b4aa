// Customer events in the billing feed.
import type { CustomerEvent, CustomerFields } from '../../../domain/billing/customer.ts';
import { type FeedMappers, pick, streamId } from './types.ts';

const PUBLIC_FIELDS = ['name', 'email', 'billing_address', 'currency', 'payment_terms_days', 'tax_id', 'metadata'] as const satisfies readonly (keyof CustomerFields)[];

/** customer.created / customer.updated / customer.removed. */
export const customerFeed: FeedMappers<CustomerEvent> = {
  CustomerCreated: (d) => ({
    type: 'customer.created',
    subject: { type: 'customer', id: d.customer_id },
    data: { customer: { id: d.customer_id, organization_id: d.organization_id, ...pick(d, PUBLIC_FIELDS) } },
  }),
  CustomerUpdated: (d, e) => ({ type: 'customer.updated', subject: { type: 'customer', id: streamId(e) }, data: { changes: pick(d.changes, PUBLIC_FIELDS) } }),
  CustomerRemoved: (_d, e) => ({ type: 'customer.removed', subject: { type: 'customer', id: streamId(e) }, data: {} }),
  // Not feed events of their own: the projection rewrites the customer's earlier feed events instead (feed/erasure.ts).
  DataSubjectErased: () => null,
  RetainedDataErased: () => null,
};
