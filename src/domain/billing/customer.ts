// Billing customer aggregate (`customer-<id>`): one per organization.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { billingErrors } from './errors.ts';
import { EventId, EventInstant } from '../event-fields.ts';
import { DataSubjectErasedSchema, RetainedDataErasedSchema, personal } from '../personal.ts';

// What tax law requires on an issued invoice (the customer's legal name, address and VAT number) uses the retention key;
// the rest of the customer's personal data its own key. See docs/decisions.md (issue 32).
const retained = { kind: 'customer', retained: true } as const;
const erasable = { kind: 'customer' } as const;

/** Postal address on invoices. */
export const BillingAddressSchema = z.object({
  line1: personal(z.string(), retained),
  line2: personal(z.string(), retained).optional(),
  city: personal(z.string(), retained),
  postal_code: personal(z.string(), retained).optional(),
  region: personal(z.string(), retained).optional(),
  country: z.string(),
});

/** The editable fields of a customer. */
export const CustomerFieldsSchema = z.object({
  name: personal(z.string(), retained),
  email: personal(z.string(), erasable),
  billing_address: BillingAddressSchema.nullable(),
  currency: z.string(),
  payment_terms_days: z.number(),
  tax_id: personal(z.string(), retained).nullable(),
  metadata: z.record(z.string(), z.string()),
});
/** The editable fields of a customer. */
export type CustomerFields = z.infer<typeof CustomerFieldsSchema>;

/** Events of a customer stream. */
export const customerEvents = eventSchemas({
  CustomerCreated: CustomerFieldsSchema.extend({ customer_id: EventId, organization_id: EventId, created_at: EventInstant }),
  CustomerUpdated: z.object({ changes: CustomerFieldsSchema.partial(), updated_at: z.string() }),
  CustomerRemoved: z.object({ removed_at: z.string() }),
  /** The customer's personal data was erased (its key deleted); what tax law keeps waits for `retained_until`. */
  DataSubjectErased: DataSubjectErasedSchema,
  /** The retention period ended: the kept fields were erased too. */
  RetainedDataErased: RetainedDataErasedSchema,
});

/** A customer event (derived from `customerEvents`). */
export type CustomerEvent = EventOf<typeof customerEvents>;

/** How customer events are read. */
export const customerCodec = eventCodec(customerEvents);

/** What may be asked of a customer. */
export type CustomerCommand =
  | { type: 'CreateCustomer'; data: CustomerFields & { customer_id: string; organization_id: string; now: string } }
  | { type: 'UpdateCustomer'; data: { changes: Partial<CustomerFields>; now: string } }
  | { type: 'RemoveCustomer'; data: { now: string; open_invoices: number } }
  | { type: 'EraseCustomer'; data: Omit<z.infer<typeof DataSubjectErasedSchema>, 'erased_at'> & { now: string } }
  | { type: 'EndRetention'; data: { now: string } };

/** What the customer decider needs. */
export interface CustomerState {
  status: 'none' | 'active' | 'removed';
  organizationId: string | null;
  fields: CustomerFields | null;
  /** The erasure of the customer's personal data, once recorded (retained empty once retention ended). */
  erasure: z.infer<typeof DataSubjectErasedSchema> | null;
}

/** Pure customer decider. */
export const customerDecider: Decider<CustomerCommand, CustomerEvent, CustomerState> = {
  events: customerCodec,
  initialState: () => ({ status: 'none', organizationId: null, fields: null, erasure: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'CustomerCreated': {
        const { customer_id: _c, organization_id, created_at: _t, ...fields } = event.data;
        return { status: 'active', organizationId: organization_id, fields, erasure: null };
      }
      case 'CustomerUpdated':
        return { ...state, fields: state.fields && { ...state.fields, ...event.data.changes } };
      case 'CustomerRemoved':
        return { ...state, status: 'removed' };
      case 'DataSubjectErased':
        return { ...state, erasure: event.data };
      case 'RetainedDataErased':
        return { ...state, erasure: state.erasure && { ...state.erasure, erased: [...state.erasure.erased, ...event.data.erased], retained: [] } };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreateCustomer': {
        if (state.status === 'active') throw billingErrors.error('customer_exists', 'This organization already has a billing customer.');
        const { now, ...data } = command.data;
        return [{ type: 'CustomerCreated', data: { ...data, created_at: now } }];
      }
      case 'UpdateCustomer': {
        requireActive(state);
        const changes = Object.fromEntries(
          Object.entries(command.data.changes).filter(([k, v]) => v !== undefined && JSON.stringify(v) !== JSON.stringify(state.fields?.[k as keyof CustomerFields])),
        ) as Partial<CustomerFields>;
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'CustomerUpdated', data: { changes, updated_at: command.data.now } }];
      }
      case 'RemoveCustomer':
        requireActive(state);
        if (command.data.open_invoices > 0)
          throw billingErrors.error('customer_has_open_invoices', `The customer has ${command.data.open_invoices} open invoice(s); void or settle them first.`);
        return [{ type: 'CustomerRemoved', data: { removed_at: command.data.now } }];
      case 'EraseCustomer':
        // Idempotent: a second request (or the retry after a crash) records nothing more.
        if (state.status === 'none') throw billingErrors.error('customer_not_found', 'No such customer.');
        if (state.erasure) return [];
        {
          const { now, ...erasure } = command.data;
          return [{ type: 'DataSubjectErased', data: { ...erasure, erased_at: now } }];
        }
      case 'EndRetention': {
        const kept = state.erasure?.retained ?? [];
        const until = state.erasure?.retained_until ?? null;
        if (kept.length === 0 || until === null || command.data.now.slice(0, 10) < until) return [];
        return [{ type: 'RetainedDataErased', data: { erased: kept, erased_at: command.data.now } }];
      }
      default:
        return assertNever(command);
    }
  },
};

function requireActive(state: CustomerState): void {
  if (state.status === 'none') throw billingErrors.error('customer_not_found', 'No such customer.');
  if (state.erasure) throw billingErrors.error('customer_erased', 'The customer\'s personal data was erased; it cannot be changed.');
  if (state.status === 'removed') throw billingErrors.error('customer_removed', 'The customer was removed.');
}
