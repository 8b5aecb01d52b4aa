// The demo's billing activity (issue 30): what the console's usage, invoice, overdue, credit and customer pages show on
// the first start. Every write is an operation invoked as staff would make it in the console, at its time in the
// demo's story (src/seed-story.ts).
import type { App } from './app.ts';
import type { Auth, SystemAuth } from './context.ts';
import type { SeedStory } from './seed-story.ts';
import { ops } from './areas/operations.ts';

/** A caller of the seed: who and why. */
interface By {
  auth: Auth;
  reason: string;
}

/** What the activity builds on: Acme and its customer, the platform and billing staff, the seed's system caller. */
export interface ActivityBase {
  acmeId: string;
  acmeCustomerId: string;
  platform: By;
  billing: By;
  as: (organizationId?: string | null) => { auth: SystemAuth; reason: string };
  /** Resolves once the identity read model shows the organization just made (before it becomes a customer). */
  identityUpToDate: () => Promise<void>;
}

const DAY_MS = 86_400_000;
/**
 * The platform was set up, and the supplier's onboarding invoice issued on its 14-day terms, this many days before
 * the story's present: the invoice is a week past due, a week before suspension (14 days' grace).
 */
export const SET_UP_DAYS_AGO = 21;
const AGREEMENT = Buffer.from('Service agreement between core-server and Acme Repairs Ltd.\nSigned by Avery Owner for Acme Repairs.\n');

/** What the past chapter made: the supplier, its customer and the invoice now overdue. */
export interface SupplierHistory {
  supplierId: string;
  customerId: string;
  overdueInvoiceId: string;
}

/**
 * Three weeks ago: a supplier joins the marketplace and billing staff invoice its onboarding, finalized then on its
 * customer's 14-day terms (the issue date is the day finalize ran, as always), so it is a week overdue today.
 */
export async function seedSupplierHistory(story: SeedStory, base: ActivityBase): Promise<SupplierHistory> {
  const { billing, as } = base;
  const at = story.daysAgo(SET_UP_DAYS_AGO);
  const supplier = await story.call('supplier', at, ops['identity.organizations.insert'], { name: 'Northern Parts Supply', kind: 'supplier' }, as());
  await base.identityUpToDate();
  const customer = await story.call('supplier customer', at, ops['billing.customers.provision'], {
    organization_id: supplier.id, name: 'Northern Parts Supply Ltd', email: 'ledger@northern-parts.example', currency: 'GBP', payment_terms_days: 14,
    billing_address: { line1: '8 Canal Wharf', city: 'Manchester', postal_code: 'M1 2AB', country: 'GB' },
  }, as(supplier.id));
  const draft = await story.call('onboarding invoice', at, ops['billing.invoices.insert'], {
    customer_id: customer.id, lines: [{ description: 'Marketplace onboarding and catalogue import', unit_amount: 12000 }], memo: 'Thank you for joining the marketplace.',
  }, billing);
  await story.call('onboarding invoice finalized', at, ops['billing.invoices.update'], { id: draft.id, action: 'finalize' }, billing);
  return { supplierId: supplier.id, customerId: customer.id, overdueInvoiceId: draft.id };
}

/**
 * Today: the supplier's marketplace plan from the start of last month, last month's orders to Acme rated by its
 * pricing into its usage invoice (a draft to review), a credit note requested against the overdue invoice, and a note
 * and a signed agreement on Acme.
 */
export async function seedBillingActivity(app: App, story: SeedStory, base: ActivityBase, history: SupplierHistory): Promise<void> {
  const { billing, platform } = base;
  const now = story.anchor;
  const month = (offset: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));
  const lastMonth = month(-1);
  const period = lastMonth.toISOString().slice(0, 7);

  // The marketplace plan, from the start of last month, and the fee its orders are rated at (billing configuration).
  const product = await story.call('marketplace product', now, ops['billing.products.insert'], { name: 'Marketplace Seller', description: 'Selling parts to repairers; fees on orders' }, platform);
  const price = await story.call('marketplace price', now, ops['billing.prices.insert'], { product_id: product.id, currency: 'GBP', unit_amount: 2900, type: 'recurring', recurring: { interval: 'month' }, nickname: 'Marketplace Seller monthly' }, platform);
  const subscription = await story.call('marketplace subscription', now, ops['billing.subscriptions.insert'], {
    organization_id: history.supplierId, items: [{ price_id: price.id, quantity: 1 }], current_period_start: lastMonth.toISOString(), current_period_end: month(1).toISOString(),
  }, platform);
  await story.call('marketplace pricing', now, ops['billing.configuration.pricing.insert'], {
    subscription_id: subscription.id, currency: 'GBP', effective_from: lastMonth.toISOString().slice(0, 10), rates_bps: { platform_introduced: 250, pre_existing: 100 }, minimum_fee: 50, reason: 'Launch rate card',
  }, billing);

  // Last month's orders to Acme, and that month's usage invoice (a draft, as the worker leaves it for review).
  const orders = [[3, 12000], [9, 4500], [17, 8990], [26, 1500]].map(([day = 1, amount = 0], i) => ({
    order_id: `DEMO-${period}-${i + 1}`, seller: history.supplierId, buyer: base.acmeId, amount: { amount, currency: 'GBP' },
    occurred_at: new Date(lastMonth.getTime() + (day - 1) * DAY_MS + 10 * 3_600_000).toISOString(),
  }));
  await story.call('orders', now, ops['billing.usage.insert'], { orders }, billing);
  await story.call('usage invoice', now, ops['billing.invoices.generate'], { subscription_id: subscription.id, period }, billing);
  await story.call('credit note request', now, ops['billing.credit-note-requests.insert'], {
    invoice_id: history.overdueInvoiceId, amount: 2000, currency: 'GBP', reason: 'product_unsatisfactory', description: 'The catalogue import missed two brands; the supplier asks for part of the onboarding fee back.',
  }, billing);

  // A note and a signed agreement on Acme's customer: the attachment goes through its signed upload like any client's.
  const subject = { type: 'customer' as const, id: base.acmeCustomerId };
  await story.call('note', now, ops['billing.notes.insert'], { subject, body: 'Signed service agreement received (attached). Invoices go to accounts@acme-repairs.example.' }, billing);
  if (story.has('agreement')) return;
  // Not replayed from a key: a signed upload URL from before a kill may have expired. A file prepared then and never
  // attached expires by itself; one attached then is found here.
  const attached = await app.invoke(ops['billing.customers.attachments.list'], { customer_id: base.acmeCustomerId }, billing);
  if (attached.body.items.some((f) => f.filename === AGREEMENT_NAME)) return story.record('agreement', true);
  const prepared = (await app.invoke(ops['billing.customers.attachments.prepare'], {
    customer_id: base.acmeCustomerId, files: [{ filename: AGREEMENT_NAME, content_type: 'text/plain', size: AGREEMENT.length }],
  }, billing)).body;
  const [file] = prepared.items;
  if (!file) throw new Error('the demo attachment was not prepared');
  // BASE_URL may name a proxy this process cannot reach: the demo then goes without its attachment, saying so.
  const put = await fetch(file.upload_url, { method: file.upload_method, headers: file.upload_headers, body: AGREEMENT }).then((r) => r.status, (err: unknown) => String(err));
  if (put !== 200) {
    app.logger.warn({ upload_url: file.upload_url, answer: put }, 'demo seed: the attachment upload failed; the demo has no attachment (the pending one expires)');
    return;
  }
  await app.invoke(ops['billing.customers.attachments.insert'], { customer_id: base.acmeCustomerId, attachments: [{ id: file.id, is_internal: false }] }, billing);
  await story.record('agreement', true);
}

const AGREEMENT_NAME = 'Service agreement.txt';
