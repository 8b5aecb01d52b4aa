// Usage facts and the orders behind usage invoices, given their events: what rating and billing.invoices.orders.list read.
import { backends } from '../../support/db.ts';
import { type UsageEvent, usageKey } from '../../../src/domain/billing/usage.ts';
import type { InvoiceEvent } from '../../../src/domain/billing/invoice.ts';
import { billingUsageProjection } from '../../../src/projections/billing/usage.ts';
import { billingInvoiceOrdersProjection } from '../../../src/projections/billing/invoice-orders.ts';
import { on, projectionSpec } from '../spec.ts';
import { CUS, INV, ORG, ORG2 } from './fixtures.ts';

const SUB = '0190c6a2-0000-7000-8000-0000000000f1';
const REL = '0190c6a2-0000-7000-8000-0000000000f2';
const facts = (order_id: string, amount: number, occurred_at: string) => ({ order_id, subscription_id: SUB, seller: ORG, buyer: ORG2, amount, currency: 'GBP', occurred_at });

for (const backend of backends()) {
  describe(`usage projection specs (${backend})`, function () {
    this.timeout(60_000);
    const spec = projectionSpec(backend);

    it('billing.usage: one row per order, as first recorded', async () => {
      const recorded = (order_id: string, amount: number, occurred_at: string): UsageEvent => ({ type: 'UsageRecorded', data: { ...facts(order_id, amount, occurred_at), recorded_at: '2026-03-01T09:00:00.000Z' } });
      await spec.given(billingUsageProjection, [
        ...on<UsageEvent>(`usage-${usageKey('A-1')}`, [recorded('A-1', 1200, '2026-02-01T10:00:00.000Z')]),
        ...on<UsageEvent>(`usage-${usageKey('A-2')}`, [recorded('A-2', 800, '2026-02-02T10:00:00.000Z')]),
      ]).then({
        billing_usage: [
          { id: usageKey('A-1'), ...facts('A-1', 1200, '2026-02-01T10:00:00.000Z'), recorded_at: '2026-03-01T09:00:00.000Z' },
          { id: usageKey('A-2'), ...facts('A-2', 800, '2026-02-02T10:00:00.000Z'), recorded_at: '2026-03-01T09:00:00.000Z' },
        ].sort((a, b) => (a.id < b.id ? -1 : 1)),
      });
    });

    it('billing.invoice-orders: every order of every part, numbered in rating order across parts', async () => {
      const ref = { invoice_id: INV, organization_id: ORG, customer_id: CUS, currency: 'GBP' };
      const row = (order_id: string, line: number, fee: number, exempt_amount = 0) => ({ order_id, line, relationship_id: line === 1 ? REL : null, exempt_amount, fee });
      await spec.given(billingInvoiceOrdersProjection, on<InvoiceEvent>(`invoice-${INV}`, [
        { type: 'InvoiceUsageRated', data: { ...ref, first: 0, orders: [row('A-1', 0, 30), row('A-2', 1, 0, 800)] } },
        { type: 'InvoiceUsageRated', data: { ...ref, first: 2, orders: [row('A-3', 0, 50)] } },
      ])).then({
        billing_invoice_orders: [
          { invoice_id: INV, line_index: 0, seq: 0, order_id: 'A-1', relationship_id: null, exempt_amount: 0, fee: 30 },
          { invoice_id: INV, line_index: 1, seq: 1, order_id: 'A-2', relationship_id: REL, exempt_amount: 800, fee: 0 },
          { invoice_id: INV, line_index: 0, seq: 2, order_id: 'A-3', relationship_id: null, exempt_amount: 0, fee: 50 },
        ],
      });
    });
  });
}
