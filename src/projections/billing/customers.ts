// billing_customers: one document per customer, read by queries/billing/customers.ts.
import { type CustomerEvent, type CustomerFields, customerCodec } from '../../domain/billing/customer.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';

/** The stored customer: exactly the billing.CustomerDetailItem body. */
export interface CustomerDoc extends CustomerFields {
  id: string;
  organization_id: string;
  status: 'active' | 'removed';
  created_at: string;
  updated_at: string;
}

/** Builds billing_customers from customer events. */
export const billingCustomersProjection = documentProjection({
  name: 'billing.customers',
  version: 1,
  tables: [
    documentTable<CustomerDoc, CustomerEvent>({
      table: 'billing_customers',
      events: customerCodec,
      columns: (d) => ({ organization_id: d.organization_id, status: d.status, name: d.name, email: d.email, created_at: d.created_at }),
      handlers: {
        CustomerCreated: (_doc, d) => {
          const { customer_id, created_at, ...rest } = d;
          return { id: customer_id, ...rest, status: 'active', created_at, updated_at: created_at };
        },
        CustomerUpdated: (doc, d) => doc && { ...doc, ...d.changes, updated_at: d.updated_at },
        CustomerRemoved: (doc, d) => doc && { ...doc, status: 'removed', updated_at: d.removed_at },
      },
    }),
  ],
});
