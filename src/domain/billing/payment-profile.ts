// Payment profile aggregate (`paymentprofile-<customer id>`): a customer's method setups, reusable methods and collection profile.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { billingErrors } from './errors.ts';
import { EventId, EventInstant } from '../event-fields.ts';

const NextActionSchema = z.union([
  z.object({ type: z.literal('redirect'), url: z.string(), return_url: z.string() }),
  z.object({ type: z.literal('display_details'), details: z.record(z.string(), z.string()) }),
]);
/** What the payer must do next, provider-neutral (as the setup events record it). */
export type NextAction = z.infer<typeof NextActionSchema>;
const Failure = z.object({ code: z.string(), message: z.string() });

/** A reusable method as stored (brand/last4 or bank and mandate reference; never a full number). */
export const PaymentMethodSchema = z.object({
  id: z.string(), type: z.enum(['card', 'bank_debit']), provider_ref: z.string(), brand: z.string().nullable(), last4: z.string(),
  exp_month: z.number().nullable(), exp_year: z.number().nullable(), bank_name: z.string().nullable(), mandate_reference: z.string().nullable(),
});
/** A reusable method as stored. */
export type PaymentMethodData = z.infer<typeof PaymentMethodSchema>;

/** Events of a payment profile stream. */
export const paymentProfileEvents = eventSchemas({
  PaymentMethodSetupStarted: z.object({
    setup_id: EventId, customer_id: EventId, organization_id: z.string(), type: z.enum(['card', 'bank_debit']),
    provider: z.string(), provider_ref: z.string(), next_action: NextActionSchema.nullable(), return_url: z.string(), created_at: EventInstant,
  }),
  PaymentMethodSetupProcessing: z.object({ setup_id: EventId, notification_id: z.string().nullable(), at: z.string() }),
  PaymentMethodSetupSucceeded: z.object({ setup_id: EventId, notification_id: z.string().nullable(), method: PaymentMethodSchema, at: z.string() }),
  PaymentMethodSetupFailed: z.object({ setup_id: EventId, notification_id: z.string().nullable(), status: z.enum(['failed', 'canceled']), failure: Failure.nullable(), at: z.string() }),
  PaymentMethodRemoved: z.object({ payment_method_id: z.string(), at: z.string() }),
  CollectionProfileChanged: z.object({ auto_collection: z.boolean(), default_payment_method_id: z.string().nullable(), reason: z.string(), at: z.string() }),
});

/** A payment profile event. */
export type PaymentProfileEvent = EventOf<typeof paymentProfileEvents>;
/** How payment profile events are read. */
export const paymentProfileCodec = eventCodec(paymentProfileEvents);

/** A setup's status. */
export type SetupStatus = 'requires_action' | 'processing' | 'succeeded' | 'failed' | 'canceled';

/** What may be asked of a payment profile. */
export type PaymentProfileCommand =
  | { type: 'StartSetup'; data: Omit<z.infer<typeof paymentProfileEvents.PaymentMethodSetupStarted>, 'created_at'> & { now: string } }
  | { type: 'ApplySetupUpdate'; data: { setup_id: string; notification_id: string | null; status: SetupStatus; method: Omit<PaymentMethodData, 'id'> | null; failure: z.infer<typeof Failure> | null; now: string } }
  | { type: 'RemoveMethod'; data: { payment_method_id: string; now: string } };

/** What the decider needs. */
export interface PaymentProfileState {
  setups: Record<string, SetupStatus>;
  methods: string[];
  defaultMethodId: string | null;
  autoCollection: boolean;
  notifications: string[];
}


const TERMINAL: SetupStatus[] = ['succeeded', 'failed', 'canceled'];

/** Pure payment profile decider. */
export const paymentProfileDecider: Decider<PaymentProfileCommand, PaymentProfileEvent, PaymentProfileState> = {
  events: paymentProfileCodec,
  initialState: () => ({ setups: {}, methods: [], defaultMethodId: null, autoCollection: false, notifications: [] }),
  evolve(state, event) {
    const seen = (id: string | null) => (id ? [...state.notifications, id] : state.notifications);
    switch (event.type) {
      case 'PaymentMethodSetupStarted':
        return { ...state, setups: { ...state.setups, [event.data.setup_id]: 'requires_action' } };
      case 'PaymentMethodSetupProcessing':
        return { ...state, setups: { ...state.setups, [event.data.setup_id]: 'processing' }, notifications: seen(event.data.notification_id) };
      case 'PaymentMethodSetupSucceeded':
        return { ...state, setups: { ...state.setups, [event.data.setup_id]: 'succeeded' }, methods: [...state.methods, event.data.method.id], notifications: seen(event.data.notification_id) };
      case 'PaymentMethodSetupFailed':
        return { ...state, setups: { ...state.setups, [event.data.setup_id]: event.data.status }, notifications: seen(event.data.notification_id) };
      case 'PaymentMethodRemoved':
        return { ...state, methods: state.methods.filter((m) => m !== event.data.payment_method_id) };
      case 'CollectionProfileChanged':
        return { ...state, autoCollection: event.data.auto_collection, defaultMethodId: event.data.default_payment_method_id };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    const at = command.data.now;
    switch (command.type) {
      case 'StartSetup': {
        const { now, ...data } = command.data;
        return [{ type: 'PaymentMethodSetupStarted', data: { ...data, created_at: now } }];
      }
      case 'ApplySetupUpdate': {
        const { setup_id, notification_id, status, method, failure } = command.data;
        if (notification_id && state.notifications.includes(notification_id)) return [];
        const current = state.setups[setup_id];
        if (!current) throw billingErrors.error('setup_not_found', `No setup ${setup_id}.`);
        if (TERMINAL.includes(current) || status === current || status === 'requires_action') return [];
        if (status === 'processing') return [{ type: 'PaymentMethodSetupProcessing', data: { setup_id, notification_id, at } }];
        if (status === 'succeeded') {
          if (!method) throw new Error('a succeeded setup carries its method');
          const id = methodId(setup_id);
          const events: PaymentProfileEvent[] = [{ type: 'PaymentMethodSetupSucceeded', data: { setup_id, notification_id, method: { ...method, id }, at } }];
          if (!state.defaultMethodId) events.push({ type: 'CollectionProfileChanged', data: { auto_collection: true, default_payment_method_id: id, reason: 'first_method', at } });
          return events;
        }
        return [{ type: 'PaymentMethodSetupFailed', data: { setup_id, notification_id, status, failure, at } }];
      }
      case 'RemoveMethod': {
        const { payment_method_id } = command.data;
        if (!state.methods.includes(payment_method_id)) throw billingErrors.error('payment_method_not_found', `No active payment method ${payment_method_id}.`);
        const events: PaymentProfileEvent[] = [{ type: 'PaymentMethodRemoved', data: { payment_method_id, at } }];
        const last = state.methods.length === 1;
        if ((last || state.defaultMethodId === payment_method_id) && (state.autoCollection || state.defaultMethodId))
          events.push({ type: 'CollectionProfileChanged', data: { auto_collection: false, default_payment_method_id: null, reason: last ? 'last_method_removed' : 'default_method_removed', at } });
        return events;
      }
      default:
        return assertNever(command);
    }
  },
};

/** The id of the method a setup produced (deterministic: a replayed success names the same method). */
export function methodId(setupId: string): string {
  return `pm_${setupId}`;
}
