// Issue 12's usage phases: billing.invoices.generate over a month of 100,000 usage facts, and billing.invoices.orders.list
// pages over the invoice it made. The service runs in process over the bench database; usage facts are written in bulk
// straight into the log (set-up, not measured) and projected by the service's own runner.
import pino from 'pino';
import { TestClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { createApp } from '../src/app.ts';
import { systemContext } from '../test/support/system.ts';
import { createOrganization, createSession, createUser } from '../src/commands/identity/identity.ts';
import { identityProjection } from '../src/projections/identity/identity.ts';
import { billingUsageProjection } from '../src/projections/billing/usage.ts';
import { usageKey } from '../src/domain/billing/usage.ts';
import { nameId } from '../src/ids.ts';
import { type BenchBackend, openBenchDb, percentile } from './support.ts';

/** Figures of the usage phases. */
export interface UsageFigures {
  orders: number;
  /** Same run: one plain SELECT of the month's usage rows (the rating read), and of them with their documents. */
  select_rows_seconds: number;
  generate_seconds: number;
  invoice_total: number;
  lines: number;
  list_requests: number;
  list_p50_ms: number;
  list_p99_ms: number;
  list_max_ms: number;
}

const CHUNK = 10_000;

/** Sets up a priced seller, writes `orders` usage facts of February 2026, times generate, then pages orders.list `pages` times. */
export async function benchUsage(backend: BenchBackend, orders: number, pages: number): Promise<UsageFigures> {
  const db = await openBenchDb(backend);
  const clock = new TestClock('2026-03-01T01:00:00Z');
  const app = await createApp(loadConfig({ ...process.env, DATABASE_URL: undefined, LOG_LEVEL: 'silent', PROJECTION_WAIT_MS: '60000' }), { db, clock, logger: pino({ level: 'silent' }) });
  try {
    const url = await app.listen(0, '127.0.0.1');
    const ctx = systemContext(app, 'bench set-up');
    const platform = await createOrganization(ctx, { name: 'Bench platform', kind: 'platform' });
    const seller = await createOrganization(ctx, { name: 'Bench seller', kind: 'supplier' });
    const staff = await createUser(ctx, { email: 'bench-usage@example.com', password: 'bench-password', organizationId: platform.id, role: 'member', staff: ['billing_staff', 'platform_staff'] });
    await app.runner.waitFor(staff.position, [identityProjection], 60_000);
    const token = (await createSession(app.knex, { userId: staff.id, organizationId: platform.id, now: clock.now(), ttlHours: 24 })).token;
    const post = async (op: string, body: unknown): Promise<Record<string, unknown>> => {
      const res = await fetch(`${url}/api/v1/${op}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${op}: ${res.status} ${text.slice(0, 500)}`);
      return JSON.parse(text) as Record<string, unknown>;
    };
    await post('billing.currencies.update', { code: 'GBP', enabled_for_billing: true });
    const product = await post('billing.products.insert', { name: 'Marketplace' });
    const price = await post('billing.prices.insert', { product_id: product.id, currency: 'GBP', unit_amount: 0, type: 'recurring', recurring: { interval: 'month' } });
    const sub = await post('billing.subscriptions.insert', { organization_id: seller.id, items: [{ price_id: price.id, quantity: 1 }], current_period_start: '2026-01-01T00:00:00Z', current_period_end: '2027-01-01T00:00:00Z' });
    await post('billing.customers.insert', { organization_id: seller.id, name: 'Bench seller Ltd', email: 'ap@seller.example', currency: 'GBP' });
    const subscriptionId = String(sub.id);
    const p1 = await post('billing.configuration.pricing.insert', { subscription_id: subscriptionId, effective_from: '2026-01-01', currency: 'GBP', rates_bps: { platform_introduced: 250, pre_existing: 100 }, minimum_fee: 30, reason: 'Rate card' });
    await post('billing.configuration.pricing.insert', { subscription_id: subscriptionId, effective_from: '2026-02-15', currency: 'GBP', rates_bps: { platform_introduced: 300, pre_existing: 100 }, minimum_fee: 30, reason: 'New rate card', supersedes: [p1.id] });
    await writeUsage(app.knex, subscriptionId, seller.id, orders);
    await app.runner.waitFor(await app.store.headPosition(), [billingUsageProjection], 600_000);

    const s0 = performance.now();
    const rows = await app.knex.raw(
      `select order_id, seller_id, buyer_id, amount, currency, occurred_at from billing_usage
       where subscription_id = ? and occurred_at >= '2026-02-01T00:00:00Z' and occurred_at < '2026-03-01T00:00:00Z' order by occurred_at, order_id`,
      [subscriptionId],
    );
    const selectSeconds = (performance.now() - s0) / 1000;
    if (rows.rows.length !== orders) throw new Error(`read ${rows.rows.length} usage rows, expected ${orders}`);

    const g0 = performance.now();
    const invoice = await post('billing.invoices.generate', { subscription_id: subscriptionId, period: '2026-02' });
    const generateSeconds = (performance.now() - g0) / 1000;
    const lines = invoice.lines as { amount: number }[];

    const lat: number[] = [];
    let body: Record<string, unknown> = { invoice_id: invoice.id, limit: 50 };
    for (let i = 0; i < 20; i++) await post('billing.invoices.orders.list', body); // warm-up
    while (lat.length < pages) {
      const t0 = performance.now();
      const page = (await post('billing.invoices.orders.list', body)) as { pagination: { cursor: string } | null };
      lat.push(performance.now() - t0);
      body = page.pagination ? { ...body, cursor: page.pagination.cursor } : { invoice_id: invoice.id, limit: 50 };
    }
    return {
      orders, select_rows_seconds: selectSeconds, generate_seconds: generateSeconds, invoice_total: Number(invoice.total), lines: lines.length,
      list_requests: lat.length, list_p50_ms: percentile(lat, 50), list_p99_ms: percentile(lat, 99), list_max_ms: Math.max(...lat),
    };
  } finally {
    await app.close();
    await db.close();
  }
}

/** `n` UsageRecorded events of February 2026 (50 buyers, amounts 1.00-1,000.00), each on its order's stream, in chunks. */
async function writeUsage(knex: import('knex').Knex, subscriptionId: string, seller: string, n: number): Promise<void> {
  const buyers = Array.from({ length: 50 }, (_, i) => nameId('bench-buyer', String(i)));
  const start = Date.UTC(2026, 1, 1);
  const span = 28 * 86_400_000;
  const meta = { org_id: seller, actor: { type: 'system', id: 'bench' }, request_id: null, correlation_id: null, causation_id: null };
  for (let from = 0; from < n; from += CHUNK) {
    const events = [];
    for (let i = from; i < Math.min(n, from + CHUNK); i++) {
      const order_id = `B-${String(i).padStart(7, '0')}`;
      const data = {
        order_id, subscription_id: subscriptionId, seller, buyer: buyers[i % buyers.length], amount: 100 + ((i * 7919) % 99_901), currency: 'GBP',
        occurred_at: new Date(start + Math.floor((i / n) * span)).toISOString(), recorded_at: '2026-03-01T00:30:00.000Z',
      };
      events.push({ stream_id: `usage-${usageKey(order_id)}`, event_id: nameId('billing-usage-event', `${order_id}/0`), data });
    }
    await knex.raw(
      `insert into es_events (stream_id, revision, event_id, type, data, metadata, created_at)
       select e.stream_id, 0, e.event_id, 'UsageRecorded', e.data, ?::jsonb, '2026-03-01T00:30:00Z' from jsonb_to_recordset(?::jsonb) as e(stream_id text, event_id uuid, data jsonb)`,
      [JSON.stringify(meta), JSON.stringify(events)],
    );
  }
  await knex.raw('analyze es_events');
}
