// Billing read operations.
import { billingAttachmentQueries } from './attachment-operations.ts';
import { billingCreditNoteRequestQueries } from './credit-note-requests.ts';
import { billingCustomerQueries } from './customers.ts';
import { billingEventQueries } from './events.ts';
import { billingInvoiceQueries } from './invoices.ts';
import { billingNoteQueries } from './notes.ts';
import { billingPersonalDataQueries } from './personal-subjects.ts';
import { billingOverdueQueries } from './overdue.ts';
import { billingPaymentQueries } from './payments.ts';
import { billingStatementQueries } from './statements.ts';
import { billingProductQueries } from './products.ts';
import { billingPriceQueries } from './prices.ts';
import { billingCurrencyQueries } from './currencies.ts';
import { billingEntitlementQueries } from './entitlements.ts';
import { billingEntitlementOverrideQueries } from './entitlement-overrides.ts';
import { billingSubscriptionQueries } from './subscriptions.ts';
import { billingEffectiveEntitlementQueries } from './effective-entitlements.ts';
import { billingExchangeRateQueries } from './exchange-rates.ts';

import { billingPaymentMethodQueries } from './payment-methods.ts';
import { billingHistoryQueries } from './history.ts';
import { billingChargeQueries } from './charges.ts';
import { billingAttentionQueries } from './attention.ts';
import { billingSearchQueries } from './search.ts';
import { billingDocumentQueries } from './document-operations.ts';
import { billingMessageQueries } from './messages.ts';
import { billingNameQueries } from './names.ts';
/** Every billing read operation. */
export const billingQueries = [
  ...billingCustomerQueries, ...billingPersonalDataQueries, ...billingNoteQueries, ...billingAttachmentQueries, ...billingInvoiceQueries, ...billingPaymentQueries,
  ...billingCreditNoteRequestQueries, ...billingEventQueries, ...billingStatementQueries, ...billingOverdueQueries,
  ...billingProductQueries, ...billingPriceQueries, ...billingCurrencyQueries,
  ...billingEntitlementQueries, ...billingEntitlementOverrideQueries, ...billingSubscriptionQueries, ...billingEffectiveEntitlementQueries, ...billingExchangeRateQueries,
  ...billingPaymentMethodQueries,
  ...billingHistoryQueries, ...billingChargeQueries, ...billingAttentionQueries, ...billingSearchQueries, ...billingNameQueries,
  ...billingDocumentQueries, ...billingMessageQueries,
];
