// Entitlement override aggregate (`entitlementoverride-<nameId(org, key)>`): staff grant or revoke one entitlement for one organization.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { billingErrors } from './errors.ts';
import { EventId } from '../event-fields.ts';

/** What an override says. */
export const OverrideTermsSchema = z.object({ mode: z.enum(['grant', 'revoke']), expires_at: z.string().nullable(), reason: z.string() });
/** What an override says. */
export type OverrideTerms = z.infer<typeof OverrideTermsSchema>;

/** Events of an override stream. */
export const overrideEvents = eventSchemas({
  EntitlementOverrideSet: OverrideTermsSchema.extend({ override_id: z.string(), organization_id: EventId, entitlement_key: z.string(), set_at: z.string() }),
  EntitlementOverrideRemoved: z.object({ removed_at: z.string() }),
});

/** An override event (derived from `overrideEvents`). */
export type OverrideEvent = EventOf<typeof overrideEvents>;

/** How override events are read. */
export const overrideCodec = eventCodec(overrideEvents);

/** What may be asked of an override; the flags are what the handler found when it asked. */
export type OverrideCommand =
  | { type: 'SetOverride'; data: OverrideTerms & { override_id: string; organization_id: string; entitlement_key: string; organization_exists: boolean; entitlement_exists: boolean; now: string } }
  | { type: 'RemoveOverride'; data: { now: string } };

/** The override in place, if any. */
export interface OverrideState {
  terms: OverrideTerms | null;
}

/** Pure override decider: setting the same terms again records nothing. */
export const overrideDecider: Decider<OverrideCommand, OverrideEvent, OverrideState> = {
  events: overrideCodec,
  initialState: () => ({ terms: null }),
  evolve(_state, event) {
    switch (event.type) {
      case 'EntitlementOverrideSet':
        return { terms: { mode: event.data.mode, expires_at: event.data.expires_at, reason: event.data.reason } };
      case 'EntitlementOverrideRemoved':
        return { terms: null };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'SetOverride': {
        const d = command.data;
        if (!d.organization_exists) throw billingErrors.error('organization_not_found', `No organization ${d.organization_id}.`);
        if (!d.entitlement_exists) throw billingErrors.error('entitlement_not_found', `No entitlement ${d.entitlement_key}.`);
        if (d.expires_at !== null && Date.parse(d.expires_at) <= Date.parse(d.now)) throw billingErrors.error('invalid_override', 'expires_at must be in the future.');
        const terms: OverrideTerms = { mode: d.mode, expires_at: d.expires_at, reason: d.reason };
        if (state.terms && state.terms.mode === terms.mode && state.terms.expires_at === terms.expires_at && state.terms.reason === terms.reason) return [];
        return [{ type: 'EntitlementOverrideSet', data: { override_id: d.override_id, organization_id: d.organization_id, entitlement_key: d.entitlement_key, ...terms, set_at: d.now } }];
      }
      case 'RemoveOverride':
        if (!state.terms) throw billingErrors.error('entitlement_override_not_found', 'This organization has no override of that entitlement.');
        return [{ type: 'EntitlementOverrideRemoved', data: { removed_at: command.data.now } }];
      default:
        return assertNever(command);
    }
  },
};
