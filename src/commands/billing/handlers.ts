// Billing aggregates bound to their streams once: every billing write goes through one of these.
import { attachmentDecider } from '../../domain/billing/attachment.ts';
import { accessDecider } from '../../domain/billing/access.ts';
import { creditNoteRequestDecider } from '../../domain/billing/credit-note-request.ts';
import { customerDecider } from '../../domain/billing/customer.ts';
import { invoiceDecider } from '../../domain/billing/invoice.ts';
import { noteDecider } from '../../domain/billing/note.ts';
import { messageDecider } from '../../domain/billing/message.ts';
import { priceDecider } from '../../domain/billing/price.ts';
import { productDecider } from '../../domain/billing/product.ts';
import { currencyDecider } from '../../domain/billing/currency.ts';
import { entitlementDecider } from '../../domain/billing/entitlement.ts';
import { overrideDecider } from '../../domain/billing/entitlement-override.ts';
import { subscriptionDecider } from '../../domain/billing/subscription.ts';
import { exchangeRateDecider } from '../../domain/billing/exchange-rate.ts';
import { paymentProfileDecider } from '../../domain/billing/payment-profile.ts';
import { collectionDecider } from '../../domain/billing/collection.ts';
import { paymentAttemptDecider } from '../../domain/billing/payment-attempt.ts';
import { chargeDecider, reconciliationDecider } from '../../domain/billing/charge.ts';
import { usageDecider, usageKey } from '../../domain/billing/usage.ts';
import { usageMonthDecider, usageMonthKey } from '../../domain/billing/usage-month.ts';
import { webhookEndpointDecider } from '../../domain/billing/webhook-endpoint.ts';
import { nameId } from '../../ids.ts';
import { commandHandler } from '../run.ts';

/** Writers racing on one invoice stream (payments, credits) re-decide on fresh state this many times before giving up with 409. */
export const INVOICE_ATTEMPTS = 50;

/** `customer-<id>`. */
export const customers = commandHandler(customerDecider, (id) => `customer-${id}`);
/** `note-<id>`. */
export const notes = commandHandler(noteDecider, (id) => `note-${id}`);
/** `message-<id>`: one email to a customer, decided once, then its delivery attempts. */
export const messages = commandHandler(messageDecider, (id) => `message-${id}`);
/** `attachment-<id>`: a file on a customer or an invoice. */
export const attachments = commandHandler(attachmentDecider, (id) => `attachment-${id}`);
/** `invoice-<id>`: lines, status, payments and credits. */
export const invoices = commandHandler(invoiceDecider, (id) => `invoice-${id}`, { maxAttempts: INVOICE_ATTEMPTS });
/** `creditnoterequest-<id>`. */
export const creditNoteRequests = commandHandler(creditNoteRequestDecider, (id) => `creditnoterequest-${id}`);
/** `access-<customer id>`: suspension for non-payment. */
export const customerAccess = commandHandler(accessDecider, (customerId) => `access-${customerId}`);
/** `product-<id>`. */
export const products = commandHandler(productDecider, (id) => `product-${id}`);
/** `price-<id>`. */
export const prices = commandHandler(priceDecider, (id) => `price-${id}`);
/** `currency-<ISO 4217 code>`: whether billing in it is on. */
export const currencySettings = commandHandler(currencyDecider, (code) => `currency-${code}`);
/** `entitlement-<key>`. */
export const entitlements = commandHandler(entitlementDecider, (key) => `entitlement-${key}`);
/** The id of the override of one entitlement for one organization: one per pair, so insert is an upsert. */
export function overrideIdOf(organizationId: string, entitlementKey: string): string {
  return nameId('billing-entitlement-override', `${organizationId}/${entitlementKey}`);
}
/** `entitlementoverride-<id>` (see overrideIdOf). */
export const entitlementOverrides = commandHandler(overrideDecider, (id) => `entitlementoverride-${id}`);
/** `subscription-<id>`. */
export const subscriptions = commandHandler(subscriptionDecider, (id) => `subscription-${id}`);
/** `exchangerate-<BASE>_<TARGET>`: every rate recorded for the pair. */
export const exchangeRates = commandHandler(exchangeRateDecider, (pair: { base: string; target: string }) => `exchangerate-${pair.base}_${pair.target}`);
/** `paymentprofile-<customer id>`: method setups, reusable methods and the collection profile. */
export const paymentProfiles = commandHandler(paymentProfileDecider, (customerId) => `paymentprofile-${customerId}`);
/** `collection-<invoice id>`: automatic charge attempts of one invoice. */
export const collections = commandHandler(collectionDecider, (invoiceId) => `collection-${invoiceId}`);
/** `paymentattempt-<id>`: one try to pay an invoice on the payment page. */
export const paymentAttempts = commandHandler(paymentAttemptDecider, (id) => `paymentattempt-${id}`);
/** `charge-<provider charge ref>`: a provider charge not (fully) applied, found by reconciliation, and how staff resolved it (once). */
export const charges = commandHandler(chargeDecider, (chargeRef) => `charge-${chargeRef}`);
/** `reconciliation-<provider name>`: how far the provider's charges have been compared with the service's records. */
export const reconciliations = commandHandler(reconciliationDecider, (provider) => `reconciliation-${provider}`);
/** `usage-<uuid of the order id>`: one order's usage facts and their corrections. */
export const usageOrders = commandHandler(usageDecider, (orderId: string) => `usage-${usageKey(orderId)}`);
/** `usagemonth-<uuid of subscription/month>`: held orders and the worker's refusals of one subscription month. */
export const usageMonths = commandHandler(usageMonthDecider, (m: { subscription_id: string; period: string }) => `usagemonth-${usageMonthKey(m.subscription_id, m.period)}`);
/** `webhookendpoint-<id>`: an outbound webhook endpoint, its secrets and the redeliveries asked of it. */
export const webhookEndpoints = commandHandler(webhookEndpointDecider, (id) => `webhookendpoint-${id}`);
