// billing_customers: one document per customer, read by queries/billing/customers.ts.
import { type CustomerEvent, type CustomerFields, CustomerFieldsSchema, customerCodec } from '../../domain/billing/customer.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';
import { ERASED, type PersonalPath, personalPaths } from '../../domain/personal.ts';

const PERSONAL = personalPaths(CustomerFieldsSchema);

/** The document with the given personal fields set to "[erased]" (where they hold text). */
function erased(doc: CustomerDoc, fields: PersonalPath[]): CustomerDoc {
  const out = structuredClone(doc) as unknown as Record<string, unknown>;
  for (const { path } of fields) {
    let at: unknown = out;
    for (const k of path.slice(0, -1)) at = at && typeof at === 'object' ? (at as Record<string, unknown>)[k] : undefined;
    const last = path[path.length - 1];
    if (at && typeof at === 'object' && last !== undefined && typeof (at as Record<string, unknown>)[last] === 'string') (at as Record<string, unknown>)[last] = ERASED;
  }
  return out as unknown as CustomerDoc;
}

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
        // The live row loses the erased values at once (a rebuild reads them as "[erased]" from the log already).
        DataSubjectErased: (doc, d) => doc && { ...erased(doc, PERSONAL.filter((f) => d.retained.length === 0 || !f.retained)), updated_at: d.erased_at },
        RetainedDataErased: (doc, d) => doc && { ...erased(doc, PERSONAL), updated_at: d.erased_at },
      },
    }),
  ],
});
