// Payment-method setups and collection profiles read models, given payment profile events.
import { backends } from '../../support/db.ts';
import type { PaymentMethodData, PaymentProfileEvent } from '../../../src/domain/billing/payment-profile.ts';
import { billingPaymentMethodsProjection } from '../../../src/projections/billing/payment-methods.ts';
import { on, projectionSpec } from '../spec.ts';
import { CUS, ORG } from './fixtures.ts';

const S1 = '0190c6a2-0000-7000-8000-000000000f11';
const S2 = '0190c6a2-0000-7000-8000-000000000f12';
const S3 = '0190c6a2-0000-7000-8000-000000000f13';
const T0 = '2026-01-15T09:00:00.000Z';
const T1 = '2026-01-16T09:00:00.000Z';
const T2 = '2026-01-17T09:00:00.000Z';

const started = (setup_id: string, created_at: string): PaymentProfileEvent => ({
  type: 'PaymentMethodSetupStarted',
  data: {
    setup_id, customer_id: CUS, organization_id: ORG, type: 'card', provider: 'sandbox', provider_ref: `seti_${setup_id}`,
    next_action: { type: 'redirect', url: `https://svc.example/sandbox/setup/seti_${setup_id}`, return_url: 'https://app.example/back' }, return_url: 'https://app.example/back', created_at,
  },
});
const card = (id: string, last4: string): PaymentMethodData => ({ id, type: 'card', provider_ref: `pm_${last4}`, brand: 'visa', last4, exp_month: 12, exp_year: 2030, bank_name: null, mandate_reference: null });
const setupDoc = (id: string, over: Record<string, unknown>) => ({
  id, customer_id: CUS, organization_id: ORG, type: 'card', status: 'requires_action', payment_method_id: null, failure: null, provider: 'sandbox', provider_ref: `seti_${id}`,
  next_action: { type: 'redirect', url: `https://svc.example/sandbox/setup/seti_${id}`, return_url: 'https://app.example/back' }, ...over,
});

for (const backend of backends()) {
  describe(`billing payment methods projection specs (${backend})`, function () {
    this.timeout(60_000);
    const spec = projectionSpec(backend);

    it('billing.payment-methods: setups move to their outcome without a next action; the profile keeps active methods and the collection profile', async () => {
      await spec.given(billingPaymentMethodsProjection, [
        ...on<PaymentProfileEvent>(`paymentprofile-${CUS}`, [
          started(S1, T0),
          { type: 'PaymentMethodSetupProcessing', data: { setup_id: S1, notification_id: 'evt_1', at: T0 } },
          { type: 'PaymentMethodSetupSucceeded', data: { setup_id: S1, notification_id: 'evt_2', method: card(`pm_${S1}`, '4242'), at: T1 } },
          { type: 'CollectionProfileChanged', data: { auto_collection: true, default_payment_method_id: `pm_${S1}`, reason: 'first_method', at: T1 } },
          started(S2, T1),
          { type: 'PaymentMethodSetupFailed', data: { setup_id: S2, notification_id: null, status: 'failed', failure: { code: 'card_declined', message: 'Declined.' }, at: T1 } },
          started(S3, T2),
          { type: 'PaymentMethodRemoved', data: { payment_method_id: `pm_${S1}`, at: T2 } },
          { type: 'CollectionProfileChanged', data: { auto_collection: false, default_payment_method_id: null, reason: 'last_method_removed', at: T2 } },
        ], { orgId: ORG }),
      ]).then({
        billing_payment_method_setups: [
          setupDoc(S1, { status: 'succeeded', next_action: null, payment_method_id: `pm_${S1}`, created_at: T0, updated_at: T1 }),
          setupDoc(S2, { status: 'failed', next_action: null, failure: { code: 'card_declined', message: 'Declined.' }, created_at: T1, updated_at: T1 }),
          setupDoc(S3, { created_at: T2, updated_at: T2 }),
        ],
        billing_payment_profiles: [{ customer_id: CUS, organization_id: ORG, methods: [], auto_collection: false, default_payment_method_id: null, updated_at: T2 }],
      });
    });
  });
}
