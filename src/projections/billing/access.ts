// billing_access: whether an organization's access is suspended for non-payment. Read by queries/billing/overdue.ts and the overdue worker.
import { type AccessEvent, accessCodec } from '../../domain/billing/access.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';

/** The access state of one customer. */
export interface AccessDoc {
  customer_id: string;
  organization_id: string;
  suspended: boolean;
  /** The policy date the current (or last) suspension took effect from. */
  suspension_date: string | null;
  suspended_at: string | null;
  restored_at: string | null;
}

/** Builds billing_access from access events. */
export const billingAccessProjection = documentProjection({
  name: 'billing.access',
  version: 1,
  tables: [
    documentTable<AccessDoc, AccessEvent>({
      table: 'billing_access',
      events: accessCodec,
      columns: (d) => ({ organization_id: d.organization_id, suspended: d.suspended }),
      handlers: {
        AccessSuspended: (_doc, d) => ({ customer_id: d.customer_id, organization_id: d.organization_id, suspended: true, suspension_date: d.suspension_date, suspended_at: d.suspended_at, restored_at: null }),
        AccessRestored: (doc, d) => ({
          customer_id: d.customer_id, organization_id: d.organization_id, suspended: false,
          suspension_date: doc?.suspension_date ?? null, suspended_at: doc?.suspended_at ?? null, restored_at: d.restored_at,
        }),
      },
    }),
  ],
});
