// billing_payment_method_setups (one per setup) and billing_payment_profiles (one per customer), read by queries/billing/payment-methods.ts.
import { type PaymentMethodData, type PaymentProfileEvent, type SetupStatus, paymentProfileCodec } from '../../domain/billing/payment-profile.ts';
import type { NextAction } from '../../domain/billing/payment-profile.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';

/** A stored setup: the billing.PaymentMethodSetupItem body plus the provider's reference. */
export interface SetupDoc {
  id: string;
  customer_id: string;
  organization_id: string;
  type: 'card' | 'bank_debit';
  status: SetupStatus;
  next_action: NextAction | null;
  payment_method_id: string | null;
  failure: { code: string; message: string } | null;
  provider: string;
  provider_ref: string;
  created_at: string;
  updated_at: string;
}

/** A stored customer's methods and collection profile. */
export interface ProfileDoc {
  customer_id: string;
  organization_id: string;
  methods: (PaymentMethodData & { created_at: string })[];
  auto_collection: boolean;
  default_payment_method_id: string | null;
  updated_at: string;
}

const setupKey = (_e: unknown, read: PaymentProfileEvent): string | null => ('setup_id' in read.data ? read.data.setup_id : null);

/** Builds the setup and profile tables from payment profile events. */
export const billingPaymentMethodsProjection = documentProjection({
  name: 'billing.payment-methods',
  version: 1,
  tables: [
    documentTable<SetupDoc, PaymentProfileEvent>({
      table: 'billing_payment_method_setups',
      events: paymentProfileCodec,
      keyOf: setupKey,
      columns: (d) => ({ customer_id: d.customer_id, status: d.status, created_at: d.created_at }),
      handlers: {
        PaymentMethodSetupStarted: (_doc, d) => ({
          id: d.setup_id, customer_id: d.customer_id, organization_id: d.organization_id, type: d.type, status: 'requires_action', next_action: d.next_action,
          payment_method_id: null, failure: null, provider: d.provider, provider_ref: d.provider_ref, created_at: d.created_at, updated_at: d.created_at,
        }),
        PaymentMethodSetupProcessing: (doc, d) => doc && { ...doc, status: 'processing', next_action: null, updated_at: d.at },
        PaymentMethodSetupSucceeded: (doc, d) => doc && { ...doc, status: 'succeeded', next_action: null, payment_method_id: d.method.id, updated_at: d.at },
        PaymentMethodSetupFailed: (doc, d) => doc && { ...doc, status: d.status, next_action: null, failure: d.failure, updated_at: d.at },
      },
    }),
    documentTable<ProfileDoc, PaymentProfileEvent>({
      table: 'billing_payment_profiles',
      events: paymentProfileCodec,
      columns: (d) => ({ auto_collection: d.auto_collection }),
      handlers: {
        PaymentMethodSetupStarted: (doc, d) => doc ?? { customer_id: d.customer_id, organization_id: d.organization_id, methods: [], auto_collection: false, default_payment_method_id: null, updated_at: d.created_at },
        PaymentMethodSetupSucceeded: (doc, d) => doc && { ...doc, methods: [...doc.methods, { ...d.method, created_at: d.at }], updated_at: d.at },
        PaymentMethodRemoved: (doc, d) => doc && { ...doc, methods: doc.methods.filter((m) => m.id !== d.payment_method_id), updated_at: d.at },
        CollectionProfileChanged: (doc, d) => doc && { ...doc, auto_collection: d.auto_collection, default_payment_method_id: d.default_payment_method_id, updated_at: d.at },
      },
    }),
  ],
});
