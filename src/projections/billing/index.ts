// Billing read-model builders.
import { billingAccessProjection } from './access.ts';
import { billingAttachmentsProjection } from './attachments.ts';
import { billingCreditNoteRequestsProjection } from './credit-note-requests.ts';
import { billingCustomersProjection } from './customers.ts';
import { billingEventsProjection } from './events.ts';
import { billingInvoicesProjection } from './invoices.ts';
import { billingNotesProjection } from './notes.ts';
import { billingPaymentsProjection } from './payments.ts';
import { billingStatementsProjection } from './statements.ts';
import { billingProductsProjection } from './products.ts';
import { billingPricesProjection } from './prices.ts';
import { billingCurrenciesProjection } from './currencies.ts';
import { billingEntitlementsProjection } from './entitlements.ts';
import { billingEntitlementOverridesProjection } from './entitlement-overrides.ts';
import { billingSubscriptionsProjection } from './subscriptions.ts';
import { billingExchangeRatesProjection } from './exchange-rates.ts';
import { billingPaymentMethodsProjection } from './payment-methods.ts';
import { billingChargesProjection } from './charges.ts';
import { billingCollectionsProjection } from './collections.ts';
import { billingMessagesProjection } from './messages.ts';
import { billingPersonalSubjectsProjection } from './personal-subjects.ts';

/** Every billing projection. */
export const billingProjections = [
  billingCustomersProjection, billingNotesProjection, billingInvoicesProjection, billingPaymentsProjection, billingCreditNoteRequestsProjection,
  billingEventsProjection, billingStatementsProjection, billingAccessProjection,
  billingProductsProjection, billingPricesProjection, billingCurrenciesProjection,
  billingEntitlementsProjection, billingEntitlementOverridesProjection, billingSubscriptionsProjection, billingExchangeRatesProjection, billingPaymentMethodsProjection,
  billingAttachmentsProjection, billingChargesProjection, billingCollectionsProjection, billingMessagesProjection, billingPersonalSubjectsProjection,
];
