// Helpers for projection tests: dump every read-model table, and fill the log with a realistic mix of events that reaches every read model.
import type { Knex } from 'knex';
import { projections } from '../../src/areas/index.ts';
import type { Reply, TestService } from '../support/app.ts';
import { billedOrg, billingStaff, draft, openInvoice, paymentBody } from '../support/billing.ts';
import { installIntegration, integrationHeaders } from '../support/integrations.ts';
import { settle } from '../support/settle.ts';
import { platformStaff } from '../support/catalogue.ts';
import { ops } from '../support/ops.ts';
import { WebClient } from '../support/web.ts';
import { TEST_CARDS } from '../../src/payments/sandbox.ts';
import { runLookupPass } from '../../src/workers/assemblies/lookups.ts';
import { collectionWorker } from '../../src/workers/billing/collection.ts';
import { RECONCILIATION_SETTLE_MS, reconciliationWorker } from '../../src/workers/billing/reconciliation.ts';
import { autoCollectedCustomers } from '../../src/queries/billing/payment-methods.ts';
import { importFile, itemsCsv, upload } from '../support/ingest.ts';
import { order, sellerWithSubscription } from '../support/usage.ts';
import { baseline, buyer, configuredSeller, pricing, relate } from '../support/configuration.ts';
import { WEBHOOK_EVENT_TYPES } from '../../src/domain/billing/webhook-endpoint.ts';

/** Every row of every table the registered projections own, ordered, keyed by table. */
export async function dumpReadModels(knex: Knex): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const p of projections) {
    for (const t of p.tables) out[t] = await knex(t).select('*').orderBy('id');
  }
  return out;
}

/** Every table the registered projections own. */
export function readModelTables(): string[] {
  return projections.flatMap((p) => p.tables);
}

/** Writes, over HTTP and through the workers, events that leave rows in every read model. */
export async function writeSampleData(svc: TestService): Promise<void> {
  const webhooks = await writeWebhookEndpoints(svc);
  await writeAccounts(svc);
  await writeIntegrationAndJobs(svc);
  await writeInvoices(svc);
  await writeCatalogue(svc);
  await writePaymentMethods(svc);
  await writeRefundsDue(svc);
  await writeAssemblies(svc);
  await writeIngestAndAnalytics(svc);
  await writeUsage(svc);
  await writeConfiguration(svc);
  await writeWebhookDeliveries(svc, webhooks);
}

/** Webhook endpoints (issue 29) before the rest, so the staff one's outbox fills with every public event that follows; one is removed. */
async function writeWebhookEndpoints(svc: TestService): Promise<{ endpointId: string }> {
  const staff = (await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] })).token;
  const types = [...WEBHOOK_EVENT_TYPES];
  // Port 9 (discard) refuses: every attempt fails fast, which is recorded too.
  const e = ok(await svc.call(ops['billing.webhook-endpoints.insert'], { url: 'http://127.0.0.1:9/hook', event_types: types, description: 'every event' }, staff), 'webhook-endpoints.insert');
  const gone = ok(await svc.call(ops['billing.webhook-endpoints.insert'], { url: 'https://example.com/gone', event_types: ['invoice.paid'] }, staff), 'webhook-endpoints.insert');
  ok(await svc.call(ops['billing.webhook-endpoints.remove'], { id: gone.body.id }, staff), 'webhook-endpoints.remove');
  return { endpointId: e.body.id };
}

/** A failed attempt, a redelivery asked of it, a rotated secret, an update and a disable. */
async function writeWebhookDeliveries(svc: TestService, endpoint: { endpointId: string }): Promise<void> {
  // A fresh session: the sample moves the clock past the first one's life.
  const w = { ...endpoint, staff: await billingStaff(svc) };
  await settle(svc);
  await svc.app.workers.runOnce('webhooks');
  const list = ok(await svc.call(ops['billing.webhook-deliveries.list'], { endpoint_id: w.endpointId }, w.staff), 'webhook-deliveries.list');
  const first = list.body.items[0];
  if (!first) throw new Error('no webhook delivery attempted');
  ok(await svc.call(ops['billing.webhook-deliveries.redeliver'], { id: first.id }, w.staff), 'webhook-deliveries.redeliver');
  ok(await svc.call(ops['billing.webhook-endpoints.rotate-secret'], { id: w.endpointId }, w.staff), 'webhook-endpoints.rotate-secret');
  ok(await svc.call(ops['billing.webhook-endpoints.update'], { id: w.endpointId, description: 'all of them' }, w.staff), 'webhook-endpoints.update');
  ok(await svc.call(ops['billing.webhook-endpoints.disable'], { id: w.endpointId }, w.staff), 'webhook-endpoints.disable');
}

function ok<T extends Reply<unknown>>(res: T, what: string): T {
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
}

/** Organizations, users, customers (created, updated, removed) and notes (added, edited, removed). */
async function writeAccounts(svc: TestService): Promise<void> {
  const staff = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
  for (let i = 0; i < 4; i++) {
    const o = await svc.signUp({ role: i % 2 ? 'admin' : 'owner' });
    const c = await svc.call(ops['billing.customers.insert'], {
      name: `Customer ${i}`, email: `c${i}@example.com`, currency: i % 2 ? 'EUR' : 'GBP', tax_id: 'GB123', metadata: { n: String(i), note: 'a tab\there, a line\nbreak, a back\\slash, \\N, "quoted"' },
      billing_address: { line1: '1 High St', city: 'Leeds', country: 'GB' },
    }, o.token);
    if (c.status !== 200) throw new Error(`customers.insert: ${JSON.stringify(c.body)}`);
    svc.clock.advance(1000);
    await svc.call(ops['billing.customers.update'], { id: c.body.id, name: `Customer ${i} Ltd`, tax_id: null, billing_address: null }, o.token);
    const n = await svc.call(ops['billing.notes.insert'], { subject: { type: 'customer', id: c.body.id }, body: `first note ${i}` }, o.token);
    // Tabs, line breaks, backslashes and a literal \N: a replay's COPY must carry them as they are (copy-load.ts).
    ok(await svc.call(ops['billing.notes.update'], { id: n.body.id, body: `edited note ${i}\tcolumn\nline \\ back\\slash \\N "quoted"` }, staff.token), 'notes.update');
    const n2 = await svc.call(ops['billing.notes.insert'], { subject: { type: 'customer', id: c.body.id }, body: `second note ${i}` }, staff.token);
    await writeAttachments(svc, o.token, c.body.id, i);
    if (i === 3) {
      await svc.call(ops['billing.notes.remove'], { id: n2.body.id }, o.token);
      await svc.call(ops['billing.customers.remove'], { id: c.body.id }, o.token);
    }
  }
}

/** Attachments of a customer: one committed (internal on odd `i`), one left pending, one committed and removed on `i` 2. */
async function writeAttachments(svc: TestService, token: string, customerId: string, i: number): Promise<void> {
  const pdf = Buffer.from(`%PDF-1.7 sample ${i}\n`);
  const files = [{ filename: `contract ${i}.pdf`, content_type: 'application/pdf' as const, size: pdf.length }, { filename: 'pending.pdf', content_type: 'application/pdf' as const, size: pdf.length }];
  const prep = ok(await svc.call(ops['billing.customers.attachments.prepare'], { customer_id: customerId, files }, token), 'attachments.prepare');
  const [first, pending] = prep.body.items;
  if (!first || !pending) throw new Error('attachments.prepare: two items expected');
  for (const item of [first, pending]) {
    const put = await fetch(item.upload_url, { method: 'PUT', headers: item.upload_headers, body: pdf });
    if (put.status !== 200) throw new Error(`attachment upload: ${put.status}`);
  }
  ok(await svc.call(ops['billing.customers.attachments.insert'], { customer_id: customerId, attachments: [{ id: first.id, is_internal: i % 2 === 1 }] }, token), 'attachments.insert');
  if (i === 2) ok(await svc.call(ops['billing.customers.attachments.remove'], { customer_id: customerId, id: first.id }, token), 'attachments.remove');
}

/** Currencies switched on and off, products (one archived) and prices (created, updated, archived). */
async function writeCatalogue(svc: TestService): Promise<void> {
  const staff = await platformStaff(svc);
  for (const [code, enabled] of [['GBP', true], ['EUR', true], ['EUR', false]] as const) ok(await svc.call(ops['billing.currencies.update'], { code, enabled_for_billing: enabled }, staff), 'currencies.update');
  const pro = ok(await svc.call(ops['billing.products.insert'], { name: 'Pro', description: 'Everything', metadata: { tier: 'pro' } }, staff), 'products.insert');
  const old = ok(await svc.call(ops['billing.products.insert'], { name: 'Old' }, staff), 'products.insert');
  ok(await svc.call(ops['billing.products.update'], { id: old.body.id, active: false }, staff), 'products.update');
  const monthly = ok(await svc.call(ops['billing.prices.insert'], { product_id: pro.body.id, currency: 'GBP', unit_amount: 4999, type: 'recurring', recurring: { interval: 'month' }, lookup_key: 'pro' }, staff), 'prices.insert');
  ok(await svc.call(ops['billing.prices.update'], { id: monthly.body.id, nickname: 'Pro monthly' }, staff), 'prices.update');
  const once = ok(await svc.call(ops['billing.prices.insert'], { product_id: pro.body.id, currency: 'GBP', unit_amount: 2500, type: 'one_time' }, staff), 'prices.insert');
  ok(await svc.call(ops['billing.prices.remove'], once.body.id, staff), 'prices.remove');
  for (const key of ['parts.search', 'api']) ok(await svc.call(ops['billing.entitlements.insert'], { key, name: key }, staff), 'entitlements.insert');
  ok(await svc.call(ops['billing.entitlements.insert'], { key: 'api', name: 'API access', description: 'Programmatic access' }, staff), 'entitlements.insert');
  ok(await svc.call(ops['billing.products.entitlements.insert'], { product_id: pro.body.id, entitlement_key: 'parts.search' }, staff), 'products.entitlements.insert');
  ok(await svc.call(ops['billing.products.entitlements.insert'], { product_id: pro.body.id, entitlement_key: 'api' }, staff), 'products.entitlements.insert');
  ok(await svc.call(ops['billing.products.entitlements.remove'], { product_id: pro.body.id, entitlement_key: 'api' }, staff), 'products.entitlements.remove');
  const orgs = [await svc.signUp(), await svc.signUp()];
  for (const o of orgs) {
    ok(await svc.call(ops['billing.entitlement-overrides.insert'], { organization_id: o.orgId, entitlement_key: 'api', mode: 'grant', reason: 'Pilot' }, staff), 'entitlement-overrides.insert');
    ok(await svc.call(ops['billing.entitlement-overrides.insert'], { organization_id: o.orgId, entitlement_key: 'api', mode: 'revoke', reason: 'Ended' }, staff), 'entitlement-overrides.insert');
    const sub = ok(await svc.call(ops['billing.subscriptions.insert'], {
      organization_id: o.orgId, items: [{ price_id: monthly.body.id, quantity: 2 }], current_period_start: '2026-01-01T00:00:00Z', current_period_end: '2026-02-01T00:00:00Z',
    }, staff), 'subscriptions.insert');
    ok(await svc.call(ops['billing.subscriptions.update'], { id: sub.body.id, items: [{ price_id: monthly.body.id, quantity: 5 }] }, staff), 'subscriptions.update');
  }
  for (const [rate, as_of] of [['0.85', '2026-01-01T00:00:00Z'], ['0.86', '2026-01-02T00:00:00Z'], ['0.8612345678', '2026-01-02T00:00:00Z']] as const) {
    ok(await svc.call(ops['billing.currency-exchange-rates.insert'], { base: 'EUR', target: 'GBP', rate, as_of, source: 'ECB' }, staff), 'currency-exchange-rates.insert');
  }
  ok(await svc.call(ops['billing.entitlement-overrides.remove'], { organization_id: orgs[0]?.orgId ?? '', entitlement_key: 'api' }, staff), 'entitlement-overrides.remove');
}

/** An app installed by an organization's owner, and the repair jobs it writes (created, updated, replaced). */
async function writeIntegrationAndJobs(svc: TestService): Promise<void> {
  const owner = await svc.signUp();
  const app = await installIntegration(svc, { token: owner.token, scopes: ['repairer'] });
  const car = { identifier: { vrm: { plate: 'ab12 cde', location: { country: 'gb' } } } };
  const job = ok(await svc.callIntegration(ops['jobs.insert'], { identity: { external: { value: 'EXT-1' } }, if_: { exists: 'update' }, data: { repairer_site_id: owner.siteId, vehicle: car } }, integrationHeaders(app)), 'jobs.insert');
  ok(await svc.callIntegration(ops['jobs.insert'], { identity: { id: job.body.id }, if_: { exists: 'update' }, data: { job_number: { value: 'J-1' } } }, integrationHeaders(app)), 'jobs.insert update');
  ok(await svc.callIntegration(ops['jobs.insert'], { identity: { external: { value: 'EXT-2' } }, if_: { exists: 'replace' }, data: { repairer_site_id: owner.siteId, vehicle: car, claim_number: { value: 'C-2' } } }, integrationHeaders(app)), 'jobs.insert replace');
}

/**
 * Invoices (a draft, one paid in parts with a corrected payment, a voided payment and a credit note, one left unpaid),
 * credit note requests (issued, rejected), then the clock past the unpaid invoice's suspension date and a worker pass.
 */
async function writeInvoices(svc: TestService): Promise<void> {
  const staff = await billingStaff(svc);
  const acme = await billedOrg(svc, { payment_terms_days: 30 });
  await draft(svc, staff, acme.customerId, [700], { memo: 'Not yet sent' });
  const inv = await openInvoice(svc, staff, acme.customerId, [3000, 2000]);
  const p1 = ok(await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 2000), staff), 'payments.insert');
  ok(await svc.call(ops['billing.payments.update'], { id: p1.body.payment.id, amount: 2500, reason: 'Typo' }, staff), 'payments.update');
  const p2 = ok(await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 1000, { method: 'cheque', reference: 'CHQ 7' }), staff), 'payments.insert');
  ok(await svc.call(ops['billing.payments.update'], { id: p2.body.payment.id, void: true, reason: 'Bounced' }, staff), 'payments.update void');
  const request = { invoice_id: inv.id, currency: 'GBP', reason: 'order_change' as const, description: 'One panel not painted' };
  const cnr = ok(await svc.call(ops['billing.credit-note-requests.insert'], { ...request, amount: 500 }, acme.token), 'credit-note-requests.insert');
  ok(await svc.call(ops['billing.credit-note-requests.update'], { id: cnr.body.id, action: 'approve' }, staff), 'approve');
  ok(await svc.call(ops['billing.credit-note-requests.update'], { id: cnr.body.id, action: 'issue' }, staff), 'issue');
  const rejected = ok(await svc.call(ops['billing.credit-note-requests.insert'], { ...request, amount: 100 }, acme.token), 'credit-note-requests.insert');
  ok(await svc.call(ops['billing.credit-note-requests.update'], { id: rejected.body.id, action: 'reject' }, staff), 'reject');
  ok(await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 2000, { method: 'card', reference: 'CARD 9' }), staff), 'payments.insert');
  await openInvoice(svc, staff, acme.customerId, [10000]);
  // Past the unpaid invoice's due date and the grace period: the overdue worker suspends the organization's access.
  svc.clock.advance(50 * 86_400_000);
  await settle(svc);
  await svc.app.workers.runOnce();
  await settle(svc);
}

/** Card setups through the sandbox page (succeeded, declined, one left pending), resumed by get, a method removed, and an invoice collected from the other. */
async function writePaymentMethods(svc: TestService): Promise<void> {
  const o = await svc.signUp();
  const c = ok(await svc.call(ops['billing.customers.insert'], { name: 'Card payer', email: 'cards@example.com', currency: 'GBP' }, o.token), 'customers.insert');
  const ids: string[] = [];
  for (const number of [TEST_CARDS.succeeds, TEST_CARDS.declined, TEST_CARDS.succeeds, null]) {
    const setup = ok(await svc.call(ops['billing.payment-method-setups.insert'], { customer_id: c.body.id, return_url: 'https://app.example/back' }, o.token), 'payment-method-setups.insert');
    const next = setup.body.next_action;
    if (next?.type !== 'redirect') throw new Error('expected a redirect');
    if (number) await new WebClient(svc.url).post(new URL(next.url).pathname, { number });
    // Resumes in case the sandbox's notification did not reach this instance.
    const got = ok(await svc.call(ops['billing.payment-method-setups.get'], { id: setup.body.id }, o.token), 'payment-method-setups.get');
    if (got.body.payment_method_id) ids.push(got.body.payment_method_id);
  }
  ok(await svc.call(ops['billing.payment-methods.remove'], { customer_id: c.body.id, id: ids[0] ?? '' }, o.token), 'payment-methods.remove');
  // A customer whose first card becomes the default: automatic collection charges it (billing.collections).
  const payer = await billedOrg(svc);
  const setup = ok(await svc.call(ops['billing.payment-method-setups.insert'], { customer_id: payer.customerId, return_url: 'https://app.example/back' }, payer.token), 'payment-method-setups.insert');
  if (setup.body.next_action?.type !== 'redirect') throw new Error('expected a redirect');
  await new WebClient(svc.url).post(new URL(setup.body.next_action.url).pathname, { number: TEST_CARDS.succeeds });
  ok(await svc.call(ops['billing.payment-method-setups.get'], { id: setup.body.id }, payer.token), 'payment-method-setups.get');
  await openInvoice(svc, await billingStaff(svc), payer.customerId, [1500]);
  await settle(svc);
  await svc.app.workers.runOnce();
  await settle(svc);
}

/**
 * Charges due back (issue 26): two charges automatic collection could apply only in part (one refunded, one applied to another open
 * invoice, one left due), and one only the provider knew, found by reconciliation.
 */
async function writeRefundsDue(svc: TestService): Promise<void> {
  const staff = await billingStaff(svc);
  const org = await billedOrg(svc);
  const setup = ok(await svc.call(ops['billing.payment-method-setups.insert'], { customer_id: org.customerId, return_url: 'https://app.example/back' }, org.token), 'payment-method-setups.insert');
  if (setup.body.next_action?.type !== 'redirect') throw new Error('expected a redirect');
  await new WebClient(svc.url).post(new URL(setup.body.next_action.url).pathname, { number: TEST_CARDS.succeeds });
  ok(await svc.call(ops['billing.payment-method-setups.get'], { id: setup.body.id }, org.token), 'payment-method-setups.get');
  await settle(svc);
  const method = (await autoCollectedCustomers(svc.app.knex)).find((c) => c.customer_id === org.customerId)?.method;
  if (!method) throw new Error('expected automatic collection');
  const refs: string[] = [];
  for (const amount of [3000, 3100, 3200]) {
    const inv = await openInvoice(svc, staff, org.customerId, [amount]);
    const charge = await svc.app.payments.charge({ method_ref: method.provider_ref, amount, currency: 'GBP', idempotency_key: inv.id });
    if (charge.status === 'succeeded') refs.push(charge.charge_ref);
    ok(await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 1000, { received_on: svc.clock.now().toISOString().slice(0, 10) }), staff), 'payments.insert');
  }
  await settle(svc);
  await collectionWorker.runOnce(svc.app);
  await settle(svc);
  const next = await openInvoice(svc, staff, org.customerId, [9000]);
  ok(await svc.call(ops['billing.refunds-due.refund'], { charge_ref: refs[0] ?? '', reason: 'Sample refund' }, staff), 'refunds-due.refund');
  ok(await svc.call(ops['billing.refunds-due.apply'], { charge_ref: refs[1] ?? '', invoice_id: next.id, reason: 'Sample apply' }, staff), 'refunds-due.apply');
  const paid = await openInvoice(svc, staff, org.customerId, [700]);
  ok(await svc.call(ops['billing.payments.insert'], paymentBody(paid.id, 700, { received_on: svc.clock.now().toISOString().slice(0, 10) }), staff), 'payments.insert');
  await svc.app.payments.charge({ method_ref: method.provider_ref, amount: 700, currency: 'GBP', idempotency_key: paid.id, owner: { invoice_id: paid.id, customer_id: org.customerId, organization_id: org.orgId, attempt_id: null } });
  svc.clock.advance(RECONCILIATION_SETTLE_MS + 1000);
  await reconciliationWorker.runOnce(svc.app);
  await settle(svc);
}

/** Vehicle lookups (enriched, tree only, unknown vehicle, still queued) and completed searches of two organizations. */
async function writeAssemblies(svc: TestService): Promise<void> {
  const [a, b] = [await svc.signUp(), await svc.signUp()];
  const golf = { vrm: { plate: 'ab21 cde', location: { country: 'gb' } } };
  const vin = { chassis_number: 'WVWZZZCDZMW000001' };
  const unknown = { vrm: { plate: 'ZZ99ZZZ', location: { country: 'GB' } } };
  for (const vehicle of [golf, vin, unknown]) ok(await svc.call(ops['assemblies.v4.search'], { vehicle }, a.token), 'assemblies.v4.search');
  svc.clock.advance(5_000);
  await runLookupPass(svc.app);
  await settle(svc);
  svc.clock.advance(5_000);
  ok(await svc.call(ops['assemblies.v4.search'], { vehicle: vin, hca_ids: ['02'] }, b.token), 'assemblies.v4.search');
  // Enriches the first two; the last search below queues one more.
  await runLookupPass(svc.app);
  await settle(svc);
  ok(await svc.call(ops['assemblies.v4.search'], { vehicle: golf, hca_ids: ['01.01.01'] }, a.token), 'assemblies.v4.search');
  ok(await svc.call(ops['assemblies.v4.search'], { vehicle: { vrm: { plate: 'KS23HEV', location: { country: 'GB' } } } }, b.token), 'assemblies.v4.search');
}

/** Imports (completed with bad rows, re-imported with a change, failed, awaiting upload, through an integration) and analytics events over two days. */
async function writeIngestAndAnalytics(svc: TestService): Promise<void> {
  const supplier = await svc.signUp({ kind: 'supplier' });
  const me = { token: supplier.token };
  await importFile(svc, me, 'csv', itemsCsv(2_500, { 7: 'SKU-00007,,,1,GBP,1,,', 1_200: 'SKU-01200,Lamp,,1,GBP,x,,' }));
  svc.clock.advance(1000);
  await importFile(svc, me, 'csv', itemsCsv(10, {}, (i) => (i === 3 ? 'Changed title' : `Front wing panel ${i}`)));
  await importFile(svc, me, 'csv', 'not,a,header\n');
  await upload(svc, me, 'ndjson', '{}\n');
  const key = await installIntegration(svc, { token: supplier.token, scopes: ['supplier'] });
  await importFile(svc, { headers: integrationHeaders(key) }, 'ndjson', `${JSON.stringify({ sku: 'NDJ-1', title: 'Radiator', price: { amount: 8900, currency: 'GBP' }, stock_quantity: 2, hca_ids: ['HCA-COOL-1'] })}\n{"sku":1}\n`);
  const yesterday = new Date(svc.clock.now().getTime() - 86_400_000).toISOString();
  for (let i = 0; i < 6; i++) {
    const headers: Record<string, string> = i % 2 ? { origin: 'https://app.example', referer: `https://app.example/p/${i}` } : {};
    ok(await svc.call(ops['analytics.events.insert'], { name: i % 3 ? 'search.completed' : 'page_view', properties: { i }, ...(i < 2 ? { occurred_at: yesterday } : {}) }, supplier.token, headers), 'analytics.events.insert');
  }
}

/** Usage facts of a seller (one re-sent), priced, and the invoice generated from them (its orders fill billing_invoice_orders). */
async function writeUsage(svc: TestService): Promise<void> {
  const staff = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff', 'platform_staff'] });
  const seller = await sellerWithSubscription(svc, { platform: staff.token });
  const buyer = await svc.signUp();
  const rateCard = ok(await svc.call(ops['billing.configuration.pricing.insert'], {
    subscription_id: seller.subscriptionId, effective_from: '2026-01-01', currency: 'GBP', rates_bps: { platform_introduced: 250, pre_existing: 100 }, minimum_fee: 30, reason: 'Rate card',
  }, staff.token), 'pricing.insert').body;
  ok(await svc.call(ops['billing.configuration.relationships.insert'], { subscription_id: seller.subscriptionId, seller: seller.orgId, buyer: buyer.orgId }, staff.token), 'relationships.insert');
  const month = new Date(Date.UTC(svc.clock.now().getUTCFullYear(), svc.clock.now().getUTCMonth() - 1, 1));
  const at = (day: number) => new Date(month.getTime() + day * 86_400_000).toISOString();
  const orders = [order('S-1', seller.orgId, buyer.orgId, 12000, at(1)), order('S-2', seller.orgId, buyer.orgId, 800, at(2)), order('S-3', seller.orgId, buyer.orgId, 5000, at(3))];
  ok(await svc.call(ops['billing.usage.insert'], { orders }, staff.token), 'usage.insert');
  ok(await svc.call(ops['billing.usage.insert'], { orders: orders.slice(1) }, staff.token), 'usage.insert again');
  // An order in another currency is held (billing_usage_months), then replaced; a late order and a voided one: a supplementary invoice.
  ok(await svc.call(ops['billing.usage.insert'], { orders: [order('S-4', seller.orgId, buyer.orgId, 700, at(4), 'EUR')] }, staff.token), 'usage.insert EUR');
  const period = month.toISOString().slice(0, 7);
  const invoice = ok(await svc.call(ops['billing.invoices.generate'], { subscription_id: seller.subscriptionId, period, hold_unrateable: true }, staff.token), 'invoices.generate').body;
  ok(await svc.call(ops['billing.usage.replace'], { order_id: 'S-4', reason: 'Sent in EUR', amount: { amount: 700, currency: 'GBP' } }, staff.token), 'usage.replace');
  ok(await svc.call(ops['billing.usage.insert'], { orders: [order('S-5', seller.orgId, buyer.orgId, 900, at(5)), order('S-6', seller.orgId, buyer.orgId, 100, at(6))] }, staff.token), 'usage.insert late');
  ok(await svc.call(ops['billing.usage.void'], { order_id: 'S-6', reason: 'Test order' }, staff.token), 'usage.void');
  ok(await svc.call(ops['billing.invoices.generate'], { subscription_id: seller.subscriptionId, period }, staff.token), 'invoices.generate supplementary');
  // A back-dated rate, corrected on the month's regular invoice (billing_invoice_corrections and its orders).
  ok(await svc.call(ops['billing.invoices.update'], { id: invoice.id, action: 'finalize' }, staff.token), 'invoices.update finalize');
  ok(await svc.call(ops['billing.configuration.pricing.insert'], {
    subscription_id: seller.subscriptionId, effective_from: month.toISOString(), currency: 'GBP', rates_bps: { platform_introduced: 300, pre_existing: 100 }, minimum_fee: 30, reason: 'Rate card', supersedes: [rateCard.id],
  }, staff.token), 'pricing.insert back-dated');
  const diff = ok(await svc.call(ops['billing.invoices.rerate.preview'], { invoice_id: invoice.id }, staff.token), 'rerate.preview').body;
  ok(await svc.call(ops['billing.invoices.rerate.apply'], { invoice_id: invoice.id, diff_hash: diff.diff_hash, reason: 'Back-dated rate' }, staff.token), 'rerate.apply');
}

/** Billing configuration: relationships (one claim accepted with evidence, one rejected), a baseline, two pricing revisions (the second splits the first). */
async function writeConfiguration(svc: TestService): Promise<void> {
  const c = await configuredSeller(svc);
  const accepted = await relate(svc, c, await buyer(svc));
  const rejected = await relate(svc, c, await buyer(svc));
  await relate(svc, c, await buyer(svc));
  const pdf = Buffer.from('%PDF-1.7 evidence\n');
  const prep = ok(await svc.call(ops['billing.configuration.relationship-evidence.prepare'], { relationship_id: accepted.id, files: [{ filename: 'contract.pdf', content_type: 'application/pdf', size: pdf.length }] }, c.billingStaff), 'relationship-evidence.prepare');
  const item = prep.body.items[0];
  if (!item) throw new Error('relationship-evidence.prepare: one item expected');
  if ((await fetch(item.upload_url, { method: 'PUT', headers: item.upload_headers, body: pdf })).status !== 200) throw new Error('evidence upload failed');
  ok(await svc.call(ops['billing.configuration.relationship-evidence.insert'], { relationship_id: accepted.id, evidence: [{ id: item.id }] }, c.billingStaff), 'relationship-evidence.insert');
  for (const [rel, decision] of [[accepted, 'accept_claim'], [rejected, 'reject_claim']] as const) {
    ok(await svc.call(ops['billing.configuration.relationships.update'], { id: rel.id, action: 'claim_pre_existing', reason: 'pre-existing customer' }, c.billingStaff), 'claim');
    ok(await svc.call(ops['billing.configuration.relationships.update'], { id: rel.id, action: decision, reason: 'checked' }, c.billingStaff), decision);
  }
  await baseline(svc, c, { effective_from: '2026-01-01', monthly_exempt_amount: 20_000 });
  const p1 = await pricing(svc, c, { effective_from: '2026-01-01' });
  await pricing(svc, c, { effective_from: '2026-03-01', effective_to: '2026-04-01', rates_bps: { platform_introduced: 800, pre_existing: 100 }, supersedes: [p1.id], reason: 'spring offer' });
}
