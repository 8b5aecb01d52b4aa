// Payment profile decider: setup transitions, notification idempotency, collection profile on first method and on removal.
import { type PaymentMethodData, type PaymentProfileCommand, type PaymentProfileEvent, methodId, paymentProfileDecider } from '../../src/domain/billing/payment-profile.ts';
import { given } from './given.ts';

const now = '2026-03-01T10:00:00.000Z';
const S1 = 'setup-1';
const S2 = 'setup-2';
const started = (setup_id: string): PaymentProfileEvent => ({
  type: 'PaymentMethodSetupStarted',
  data: { setup_id, customer_id: 'cus-1', organization_id: 'org-1', type: 'card', provider: 'sandbox', provider_ref: `ref-${setup_id}`, next_action: null, return_url: 'https://app.example/back', created_at: now },
});
const card = (setupId: string): Omit<PaymentMethodData, 'id'> => ({ type: 'card', provider_ref: `pm-${setupId}`, brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, bank_name: null, mandate_reference: null });
const update = (setup_id: string, status: 'processing' | 'succeeded' | 'failed', notification_id: string | null): PaymentProfileCommand => ({
  type: 'ApplySetupUpdate',
  data: { setup_id, notification_id, status, method: status === 'succeeded' ? card(setup_id) : null, failure: status === 'failed' ? { code: 'card_declined', message: 'Declined.' } : null, now },
});
const succeeded = (setup_id: string, notification_id: string | null): PaymentProfileEvent => ({ type: 'PaymentMethodSetupSucceeded', data: { setup_id, notification_id, method: { ...card(setup_id), id: methodId(setup_id) }, at: now } });
const collection = (auto_collection: boolean, default_payment_method_id: string | null, reason: string): PaymentProfileEvent => ({ type: 'CollectionProfileChanged', data: { auto_collection, default_payment_method_id, reason, at: now } });
const remove = (payment_method_id: string): PaymentProfileCommand => ({ type: 'RemoveMethod', data: { payment_method_id, now } });

describe('payment profile decider', () => {
  it('moves a setup to processing, then to succeeded; the first method turns automatic collection on as the default', () => {
    given(paymentProfileDecider, [started(S1)]).when(update(S1, 'processing', 'evt-1')).then([{ type: 'PaymentMethodSetupProcessing', data: { setup_id: S1, notification_id: 'evt-1', at: now } }]);
    given(paymentProfileDecider, [started(S1)]).when(update(S1, 'succeeded', 'evt-2')).then([succeeded(S1, 'evt-2'), collection(true, methodId(S1), 'first_method')]);
  });

  it('a second method does not change the default', () => {
    given(paymentProfileDecider, [started(S1), succeeded(S1, 'e1'), collection(true, methodId(S1), 'first_method'), started(S2)]).when(update(S2, 'succeeded', 'e2')).then([succeeded(S2, 'e2')]);
  });

  it('a replayed notification, a final setup and a repeated status decide nothing', () => {
    const history = [started(S1), { type: 'PaymentMethodSetupProcessing', data: { setup_id: S1, notification_id: 'evt-1', at: now } } satisfies PaymentProfileEvent];
    given(paymentProfileDecider, history).when(update(S1, 'succeeded', 'evt-1')).thenNothing();
    given(paymentProfileDecider, history).when(update(S1, 'processing', null)).thenNothing();
    given(paymentProfileDecider, [started(S1), succeeded(S1, 'e1')]).when(update(S1, 'failed', 'e9')).thenNothing();
  });

  it('an unknown setup is refused', () => {
    given(paymentProfileDecider, []).when(update(S1, 'succeeded', 'evt-1')).thenError('setup_not_found');
  });

  it('removing the default turns automatic collection off; removing an unknown or removed method is refused', () => {
    const two = [started(S1), succeeded(S1, 'e1'), collection(true, methodId(S1), 'first_method'), started(S2), succeeded(S2, 'e2')];
    given(paymentProfileDecider, two).when(remove(methodId(S1))).then([
      { type: 'PaymentMethodRemoved', data: { payment_method_id: methodId(S1), at: now } }, collection(false, null, 'default_method_removed'),
    ]);
    given(paymentProfileDecider, two).when(remove(methodId(S2))).then([{ type: 'PaymentMethodRemoved', data: { payment_method_id: methodId(S2), at: now } }]);
    const removed: PaymentProfileEvent = { type: 'PaymentMethodRemoved', data: { payment_method_id: methodId(S2), at: now } };
    given(paymentProfileDecider, [...two, removed]).when(remove(methodId(S2))).thenError('payment_method_not_found');
    given(paymentProfileDecider, []).when(remove('pm_x')).thenError('payment_method_not_found');
  });
});
