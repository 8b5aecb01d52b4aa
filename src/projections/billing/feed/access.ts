// Access suspension events in the billing feed: the organization must learn why its access stopped.
import type { AccessEvent } from '../../../domain/billing/access.ts';
import type { FeedMappers } from './types.ts';

/** customer.access_suspended / customer.access_restored. */
export const accessFeed: FeedMappers<AccessEvent> = {
  AccessSuspended: (d) => ({
    type: 'customer.access_suspended',
    subject: { type: 'customer', id: d.customer_id },
    data: { suspension_date: d.suspension_date, oldest_due_date: d.oldest_due_date, grace_days: d.grace_days, invoice_ids: d.invoice_ids },
  }),
  AccessRestored: (d) => ({ type: 'customer.access_restored', subject: { type: 'customer', id: d.customer_id }, data: {} }),
};
