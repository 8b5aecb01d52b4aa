// The demo's billing activity (issue 30): what the console's usage, invoice, overdue, credit and customer pages show on
// the first start. Every write is an operation invoked as staff would make it in the console.
import type { z } from 'zod';
import type { App } from './app.ts';
import type { Invocable, Invoked } from './contract/caller.ts';
import type { Auth, SystemAuth } from './context.ts';
import { invokeRegistered } from './pipeline/invoke.ts';
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

/** invoke with the request typed by the operation's schema, so a renamed field fails the type-check, not the first start. */
function call<Op extends Invocable & { request: z.ZodType }>(app: Pick<App, 'invoke'>, op: Op, input: z.input<Op['request']>, by: By): Promise<Invoked<z.output<Op['response']>>> {
  return app.invoke(op, input, by);
}

const DAY_MS = 86_400_000;
/** The overdue invoice was issued this many days ago, on 14-day terms: a week past due, a week before suspension (14 days' grace). */
const OVERDUE_ISSUED_DAYS_AGO = 21;
const AGREEMENT = Buffer.from('Service agreement between core-server and Acme Repairs Ltd.\nSigned by Avery Owner for Acme Repairs.\n');

/**
 * A supplier selling to Acme through the marketplace, with last month's orders rated into its usage invoice (a draft to
 * review), an invoice a week overdue with a credit note requested against it, and a note and a signed agreement on Acme.
 */
export async function seedBillingActivity(app: App, base: ActivityBase): Promise<void> {
  const { billing, platform, as } = base;
  const now = app.clock.now();
  const month = (offset: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));
  const lastMonth = month(-1);
  const period = lastMonth.toISOString().slice(0, 7);

  const supplier = (await call(app, ops['identity.organizations.insert'], { name: 'Northern Parts Supply', kind: 'supplier' }, as())).body;
  await base.identityUpToDate();
  const customer = (await call(app, ops['billing.customers.provision'], {
    organization_id: supplier.id, name: 'Northern Parts Supply Ltd', email: 'ledger@northern-parts.example', currency: 'GBP', payment_terms_days: 14,
    billing_address: { line1: '8 Canal Wharf', city: 'Manchester', postal_code: 'M1 2AB', country: 'GB' },
  }, as(supplier.id))).body;

  // The marketplace plan, from the start of last month, and the fee its orders are rated at (billing configuration).
  const product = (await call(app, ops['billing.products.insert'], { name: 'Marketplace Seller', description: 'Selling parts to repairers; fees on orders' }, platform)).body;
  const price = (await call(app, ops['billing.prices.insert'], { product_id: product.id, currency: 'GBP', unit_amount: 2900, type: 'recurring', recurring: { interval: 'month' }, nickname: 'Marketplace Seller monthly' }, platform)).body;
  const subscription = (await call(app, ops['billing.subscriptions.insert'], {
    organization_id: supplier.id, items: [{ price_id: price.id, quantity: 1 }], current_period_start: lastMonth.toISOString(), current_period_end: month(1).toISOString(),
  }, platform)).body;
  await call(app, ops['billing.configuration.pricing.insert'], {
    subscription_id: subscription.id, currency: 'GBP', effective_from: lastMonth.toISOString().slice(0, 10), rates_bps: { platform_introduced: 250, pre_existing: 100 }, minimum_fee: 50, reason: 'Launch rate card',
  }, billing);

  // Last month's orders to Acme, and that month's usage invoice (a draft, as the worker leaves it for review).
  const orders = [[3, 12000], [9, 4500], [17, 8990], [26, 1500]].map(([day = 1, amount = 0], i) => ({
    order_id: `DEMO-${period}-${i + 1}`, seller: supplier.id, buyer: base.acmeId, amount: { amount, currency: 'GBP' },
    occurred_at: new Date(lastMonth.getTime() + (day - 1) * DAY_MS + 10 * 3_600_000).toISOString(),
  }));
  await call(app, ops['billing.usage.insert'], { orders }, billing);
  await call(app, ops['billing.invoices.generate'], { subscription_id: subscription.id, period }, billing);

  // An overdue invoice needs an issue date in the past, which finalize takes from the clock: these two calls go through
  // the same pipeline on a clock set back three weeks (the events are recorded at that time too).
  const back = { ...app, clock: { now: () => new Date(now.getTime() - OVERDUE_ISSUED_DAYS_AGO * DAY_MS) } };
  const draft = (await invokeRegistered(back, app.registry, ops['billing.invoices.insert'], {
    customer_id: customer.id, lines: [{ description: 'Marketplace onboarding and catalogue import', unit_amount: 12000 }], memo: 'Thank you for joining the marketplace.',
  }, billing)).body;
  const overdue = (await invokeRegistered(back, app.registry, ops['billing.invoices.update'], { id: draft.id, action: 'finalize' }, billing)).body;
  await call(app, ops['billing.credit-note-requests.insert'], {
    invoice_id: overdue.id, amount: 2000, currency: 'GBP', reason: 'product_unsatisfactory', description: 'The catalogue import missed two brands; the supplier asks for part of the onboarding fee back.',
  }, billing);

  // A note and a signed agreement on Acme's customer: the attachment goes through its signed upload like any client's.
  const subject = { type: 'customer' as const, id: base.acmeCustomerId };
  await call(app, ops['billing.notes.insert'], { subject, body: 'Signed service agreement received (attached). Invoices go to accounts@acme-repairs.example.' }, billing);
  const prepared = (await call(app, ops['billing.customers.attachments.prepare'], {
    customer_id: base.acmeCustomerId, files: [{ filename: 'Service agreement.txt', content_type: 'text/plain', size: AGREEMENT.length }],
  }, billing)).body;
  const [file] = prepared.items;
  if (!file) throw new Error('the demo attachment was not prepared');
  // BASE_URL may name a proxy this process cannot reach: the demo then goes without its attachment, saying so.
  const put = await fetch(file.upload_url, { method: file.upload_method, headers: file.upload_headers, body: AGREEMENT }).then((r) => r.status, (err: unknown) => String(err));
  if (put !== 200) {
    app.logger.warn({ upload_url: file.upload_url, answer: put }, 'demo seed: the attachment upload failed; the demo has no attachment (the pending one expires)');
    return;
  }
  await call(app, ops['billing.customers.attachments.insert'], { customer_id: base.acmeCustomerId, attachments: [{ id: file.id, is_internal: false }] }, billing);
}
