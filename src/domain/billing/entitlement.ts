// Entitlement aggregate (`entitlement-<key>`): a named capability products grant; upserted by key.
// Also the pure rule of an organization's effective entitlements.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';

/** The editable fields of an entitlement. */
export const EntitlementFieldsSchema = z.object({ name: z.string(), description: z.string().nullable() });
/** The editable fields of an entitlement. */
export type EntitlementFields = z.infer<typeof EntitlementFieldsSchema>;

/** Events of an entitlement stream. */
export const entitlementEvents = eventSchemas({
  EntitlementDefined: EntitlementFieldsSchema.extend({ key: z.string(), defined_at: z.string() }),
  EntitlementChanged: z.object({ changes: EntitlementFieldsSchema.partial(), updated_at: z.string() }),
});

/** An entitlement event (derived from `entitlementEvents`). */
export type EntitlementEvent = EventOf<typeof entitlementEvents>;

/** How entitlement events are read. */
export const entitlementCodec = eventCodec(entitlementEvents);

/** Define an entitlement, or change its name and description: the same values again record nothing. */
export type EntitlementCommand = { type: 'UpsertEntitlement'; data: EntitlementFields & { key: string; now: string } };

/** What the entitlement decider needs. */
export interface EntitlementState {
  fields: EntitlementFields | null;
}

/** Pure entitlement decider. */
export const entitlementDecider: Decider<EntitlementCommand, EntitlementEvent, EntitlementState> = {
  events: entitlementCodec,
  initialState: () => ({ fields: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'EntitlementDefined':
        return { fields: { name: event.data.name, description: event.data.description } };
      case 'EntitlementChanged':
        return { fields: state.fields && { ...state.fields, ...event.data.changes } };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'UpsertEntitlement': {
        const { key, name, description, now } = command.data;
        if (!state.fields) return [{ type: 'EntitlementDefined', data: { key, name, description, defined_at: now } }];
        const changes = { ...(name !== state.fields.name ? { name } : {}), ...(description !== state.fields.description ? { description } : {}) };
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'EntitlementChanged', data: { changes, updated_at: now } }];
      }
      default:
        return assertNever(command.type);
    }
  },
};

/** Why an entitlement is on or off for an organization. */
export type EffectiveReason = 'suspended' | 'revoked' | 'product' | 'granted' | 'not_granted';

/** An active, unexpired override as the rule sees it. */
export interface OverrideInForce {
  entitlement_key: string;
  mode: 'grant' | 'revoke';
  expires_at: string | null;
}

/** One entitlement's effective state. */
export interface EffectiveEntitlement {
  key: string;
  enabled: boolean;
  reason: EffectiveReason;
  products: string[];
  override: 'grant' | 'revoke' | null;
}

/**
 * The effective entitlements of an organization: granted by the products it subscribes to, plus grants,
 * minus revokes; expired overrides (expires_at <= now) are ignored; nothing is on while it is suspended.
 */
export function effectiveEntitlements(input: {
  keys: string[];
  productGrants: { product_id: string; entitlement_keys: string[] }[];
  overrides: OverrideInForce[];
  suspended: boolean;
  now: string;
}): EffectiveEntitlement[] {
  const live = new Map(input.overrides.filter((o) => o.expires_at === null || Date.parse(o.expires_at) > Date.parse(input.now)).map((o) => [o.entitlement_key, o.mode]));
  return [...input.keys].sort().map((key) => {
    const products = [...new Set(input.productGrants.filter((p) => p.entitlement_keys.includes(key)).map((p) => p.product_id))].sort();
    const override = live.get(key) ?? null;
    const reason: EffectiveReason = input.suspended ? 'suspended' : override === 'revoke' ? 'revoked' : products.length > 0 ? 'product' : override === 'grant' ? 'granted' : 'not_granted';
    return { key, enabled: reason === 'product' || reason === 'granted', reason, products, override };
  });
}
