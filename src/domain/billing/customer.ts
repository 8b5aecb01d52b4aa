// Billing customer aggregate (`customer-<id>`): one per organization.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { billingErrors } from './errors.ts';
import { EventId, EventInstant } from '../event-fields.ts';

/** Postal address on invoices. */
export const BillingAddressSchema = z.object({
  line1: z.string(),
  line2: z.string().optional(),
  city: z.string(),
  postal_code: z.string().optional(),
  region: z.string().optional(),
  country: z.string(),
});

/** The editable fields of a customer. */
export const CustomerFieldsSchema = z.object({
  name: z.string(),
  email: z.string(),
  billing_address: BillingAddressSchema.nullable(),
  currency: z.string(),
  payment_terms_days: z.number(),
  tax_id: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
});
/** The editable fields of a customer. */
export type CustomerFields = z.infer<typeof CustomerFieldsSchema>;

/** Events of a customer stream. */
export const customerEvents = eventSchemas({
  CustomerCreated: CustomerFieldsSchema.extend({ customer_id: EventId, organization_id: EventId, created_at: EventInstant }),
  CustomerUpdated: z.object({ changes: CustomerFieldsSchema.partial(), updated_at: z.string() }),
  CustomerRemoved: z.object({ removed_at: z.string() }),
});

/** A customer event (derived from `customerEvents`). */
export type CustomerEvent = EventOf<typeof customerEvents>;

/** How customer events are read. */
export const customerCodec = eventCodec(customerEvents);

/** What may be asked of a customer. */
export type CustomerCommand =
  | { type: 'CreateCustomer'; data: CustomerFields & { customer_id: string; organization_id: string; now: string } }
  | { type: 'UpdateCustomer'; data: { changes: Partial<CustomerFields>; now: string } }
  | { type: 'RemoveCustomer'; data: { now: string; open_invoices: number } };

/** What the customer decider needs. */
export interface CustomerState {
  status: 'none' | 'active' | 'removed';
  organizationId: string | null;
  fields: CustomerFields | null;
}

/** Pure customer decider. */
export const customerDecider: Decider<CustomerCommand, CustomerEvent, CustomerState> = {
  events: customerCodec,
  initialState: () => ({ status: 'none', organizationId: null, fields: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'CustomerCreated': {
        const { customer_id: _c, organization_id, created_at: _t, ...fields } = event.data;
        return { status: 'active', organizationId: organization_id, fields };
      }
      case 'CustomerUpdated':
        return { ...state, fields: state.fields && { ...state.fields, ...event.data.changes } };
      case 'CustomerRemoved':
        return { ...state, status: 'removed' };
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
      default:
        return assertNever(command);
    }
  },
};

function requireActive(state: CustomerState): void {
  if (state.status === 'none') throw billingErrors.error('customer_not_found', 'No such customer.');
  if (state.status === 'removed') throw billingErrors.error('customer_removed', 'The customer was removed.');
}
