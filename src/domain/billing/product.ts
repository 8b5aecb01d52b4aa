// Product aggregate (`product-<id>`): what prices are for; archived with active: false, never deleted.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { billingErrors } from './errors.ts';
import { EventInstant } from '../event-fields.ts';

/** The editable fields of a product. */
export const ProductFieldsSchema = z.object({
  name: z.string(),
  description: z.string().nullable(),
  active: z.boolean(),
  metadata: z.record(z.string(), z.string()),
});
/** The editable fields of a product. */
export type ProductFields = z.infer<typeof ProductFieldsSchema>;

/** Events of a product stream. */
export const productEvents = eventSchemas({
  ProductCreated: ProductFieldsSchema.extend({ product_id: z.string(), created_at: EventInstant }),
  ProductUpdated: z.object({ changes: ProductFieldsSchema.partial(), updated_at: z.string() }),
  ProductEntitlementAdded: z.object({ entitlement_key: z.string(), added_at: z.string() }),
  ProductEntitlementRemoved: z.object({ entitlement_key: z.string(), removed_at: z.string() }),
});

/** A product event (derived from `productEvents`). */
export type ProductEvent = EventOf<typeof productEvents>;

/** How product events are read. */
export const productCodec = eventCodec(productEvents);

/** What may be asked of a product. */
export type ProductCommand =
  | { type: 'CreateProduct'; data: ProductFields & { product_id: string; now: string } }
  | { type: 'UpdateProduct'; data: { changes: Partial<ProductFields>; now: string } }
  | { type: 'AddProductEntitlement'; data: { entitlement_key: string; entitlement_exists: boolean; now: string } }
  | { type: 'RemoveProductEntitlement'; data: { entitlement_key: string; now: string } };

/** What the product decider needs; `status` is what prices check. */
export interface ProductState {
  status: 'none' | 'active' | 'archived';
  fields: ProductFields | null;
  /** Keys of the entitlements the product grants. */
  entitlements: string[];
}

/** A product's status from its fields. */
function statusOf(fields: ProductFields): ProductState['status'] {
  return fields.active ? 'active' : 'archived';
}

/** Pure product decider. */
export const productDecider: Decider<ProductCommand, ProductEvent, ProductState> = {
  events: productCodec,
  initialState: () => ({ status: 'none', fields: null, entitlements: [] }),
  evolve(state, event) {
    switch (event.type) {
      case 'ProductCreated': {
        const { product_id: _p, created_at: _t, ...fields } = event.data;
        return { status: statusOf(fields), fields, entitlements: [] };
      }
      case 'ProductUpdated': {
        if (!state.fields) return state;
        const fields = { ...state.fields, ...event.data.changes };
        return { ...state, status: statusOf(fields), fields };
      }
      case 'ProductEntitlementAdded':
        return { ...state, entitlements: [...state.entitlements, event.data.entitlement_key] };
      case 'ProductEntitlementRemoved':
        return { ...state, entitlements: state.entitlements.filter((k) => k !== event.data.entitlement_key) };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreateProduct': {
        if (state.status !== 'none') throw billingErrors.error('product_exists', 'This product already exists.');
        const { now, ...data } = command.data;
        return [{ type: 'ProductCreated', data: { ...data, created_at: now } }];
      }
      case 'UpdateProduct': {
        if (!state.fields) throw billingErrors.error('product_not_found', 'No such product.');
        const current = state.fields;
        const changes = Object.fromEntries(
          Object.entries(command.data.changes).filter(([k, v]) => v !== undefined && JSON.stringify(v) !== JSON.stringify(current[k as keyof ProductFields])),
        );
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'ProductUpdated', data: { changes: ProductFieldsSchema.partial().parse(changes), updated_at: command.data.now } }];
      }
      case 'AddProductEntitlement': {
        const { entitlement_key, entitlement_exists, now } = command.data;
        if (!state.fields) throw billingErrors.error('product_not_found', 'No such product.');
        if (!entitlement_exists) throw billingErrors.error('entitlement_not_found', `No entitlement ${entitlement_key}.`);
        if (state.entitlements.includes(entitlement_key)) return [];
        return [{ type: 'ProductEntitlementAdded', data: { entitlement_key, added_at: now } }];
      }
      case 'RemoveProductEntitlement': {
        const { entitlement_key, now } = command.data;
        if (!state.fields) throw billingErrors.error('product_not_found', 'No such product.');
        if (!state.entitlements.includes(entitlement_key)) throw billingErrors.error('product_entitlement_not_found', `The product does not grant ${entitlement_key}.`);
        return [{ type: 'ProductEntitlementRemoved', data: { entitlement_key, removed_at: now } }];
      }
      default:
        return assertNever(command);
    }
  },
};
