// Billing write operations.
import { billingAttachmentCommands } from './attachment-operations.ts';
import { billingCreditNoteRequestCommands } from './credit-note-requests.ts';
import { billingCustomerCommands } from './customers.ts';
import { billingInvoiceCommands } from './invoices.ts';
import { billingNoteCommands } from './notes.ts';
import { billingPaymentCommands } from './payments.ts';
import { billingProductCommands } from './products.ts';
import { billingPriceCommands } from './prices.ts';
import { billingCurrencyCommands } from './currencies.ts';
import { billingEntitlementCommands } from './entitlements.ts';
import { billingEntitlementOverrideCommands } from './entitlement-overrides.ts';
import { billingSubscriptionCommands } from './subscriptions.ts';
import { billingExchangeRateCommands } from './exchange-rates.ts';
import { billingPaymentMethodCommands } from './payment-methods.ts';
import { billingChargeCommands } from './charges.ts';

/** Every billing write operation. */
export const billingCommands = [...billingCustomerCommands, ...billingNoteCommands, ...billingAttachmentCommands, ...billingInvoiceCommands, ...billingPaymentCommands, ...billingCreditNoteRequestCommands,
  ...billingProductCommands, ...billingPriceCommands, ...billingCurrencyCommands,
  ...billingEntitlementCommands, ...billingEntitlementOverrideCommands, ...billingSubscriptionCommands, ...billingExchangeRateCommands,
  ...billingPaymentMethodCommands, ...billingChargeCommands];
