// Usage facts and the orders behind usage invoices, given their events: what rating and billing.invoices.orders.list read.
import { backends } from '../../support/db.ts';
import { type UsageEvent, usageKey } from '../../../src/domain/billing/usage.ts';
import type { InvoiceEvent } from '../../../src/domain/billing/invoice.ts';
import { billingUsageProjection } from '../../../src/projections/billing/usage.ts';
import { billingInvoiceOrdersProjection } from '../../../src/projections/billing/invoice-orders.ts';
import { billingUsageMonthsProjection } from '../../../src/projections/billing/usage-months.ts';
import { type UsageMonthEvent, usageMonthKey } from '../../../src/domain/billing/usage-month.ts';
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
          { id: usageKey('A-1'), ...facts('A-1', 1200, '2026-02-01T10:00:00.000Z'), recorded_at: '2026-03-01T09:00:00.000Z', revision: 0, correction: null },
          { id: usageKey('A-2'), ...facts('A-2', 800, '2026-02-02T10:00:00.000Z'), recorded_at: '2026-03-01T09:00:00.000Z', revision: 0, correction: null },
        ].sort((a, b) => (a.id < b.id ? -1 : 1)),
      });
    });

    it('billing.usage: a replacement takes the order\'s place (facts, revision), a void marks it; the columns rating reads follow', async () => {
      const recorded = (order_id: string): UsageEvent => ({ type: 'UsageRecorded', data: { ...facts(order_id, 1000, '2026-02-01T10:00:00.000Z'), currency: 'EUR', recorded_at: '2026-03-01T09:00:00.000Z' } });
      await spec.given(billingUsageProjection, [
        ...on<UsageEvent>(`usage-${usageKey('B-1')}`, [
          recorded('B-1'),
          { type: 'UsageReplaced', data: { ...facts('B-1', 900, '2026-02-03T10:00:00.000Z'), revision: 1, reason: 'Sent in EUR', replaced_at: '2026-03-02T09:00:00.000Z' } },
        ]),
        ...on<UsageEvent>(`usage-${usageKey('B-2')}`, [recorded('B-2'), { type: 'UsageVoided', data: { order_id: 'B-2', subscription_id: SUB, reason: 'Test order', voided_at: '2026-03-02T10:00:00.000Z' } }]),
        // A correction of an order this read model never saw changes nothing.
        ...on<UsageEvent>(`usage-${usageKey('B-3')}`, [{ type: 'UsageVoided', data: { order_id: 'B-3', subscription_id: SUB, reason: 'x', voided_at: '2026-03-02T10:00:00.000Z' } }]),
      ]).then({
        billing_usage: [
          { order_id: 'B-1', currency: 'GBP', voided: false, revision: 1, doc: { id: usageKey('B-1'), ...facts('B-1', 900, '2026-02-03T10:00:00.000Z'), recorded_at: '2026-03-01T09:00:00.000Z', revision: 1, correction: { kind: 'replaced', reason: 'Sent in EUR', at: '2026-03-02T09:00:00.000Z' } } },
          { order_id: 'B-2', currency: 'EUR', voided: true, revision: 0, doc: { id: usageKey('B-2'), ...facts('B-2', 1000, '2026-02-01T10:00:00.000Z'), currency: 'EUR', recorded_at: '2026-03-01T09:00:00.000Z', revision: 0, correction: { kind: 'voided', reason: 'Test order', at: '2026-03-02T10:00:00.000Z' } } },
        ].sort((a, b) => (a.doc.id < b.doc.id ? -1 : 1)),
      }, { columns: ['order_id', 'currency', 'voided', 'revision'] });
    });

    it('billing.usage-months: held orders by id at their revision, and the refusal in force since its first pass until cleared', async () => {
      const ref = { subscription_id: SUB, period: '2026-02' };
      const refused = (at: string, message: string): UsageMonthEvent => ({ type: 'UsageMonthRefused', data: { ...ref, code: 'usage_unrateable', message, issues: [{ path: 'orders.B-1', message: 'currency_mismatch: EUR' }], refused_at: at } });
      const march = { ...ref, period: '2026-03' };
      await spec.given(billingUsageMonthsProjection, [
        ...on<UsageMonthEvent>(`usagemonth-${usageMonthKey(SUB, '2026-02')}`, [
          refused('2026-03-01T00:00:00.000Z', 'first'),
          refused('2026-03-02T00:00:00.000Z', 'second'),
          { type: 'UsageOrdersHeld', data: { ...ref, orders: [{ order_id: 'B-1', revision: 0, reasons: 'currency_mismatch: EUR' }], held_at: '2026-03-03T00:00:00.000Z' } },
          { type: 'UsageMonthRefusalCleared', data: { ...ref, cleared_at: '2026-03-03T00:00:00.000Z' } },
        ]),
        ...on<UsageMonthEvent>(`usagemonth-${usageMonthKey(SUB, '2026-03')}`, [{ type: 'UsageMonthRefused', data: { ...march, code: 'customer_not_found', message: 'no customer', issues: [], refused_at: '2026-04-01T00:00:00.000Z' } }]),
      ]).then({
        billing_usage_months: [
          { refused: false, period: '2026-02', doc: { id: usageMonthKey(SUB, '2026-02'), ...ref, held: { 'B-1': { revision: 0, reasons: 'currency_mismatch: EUR', held_at: '2026-03-03T00:00:00.000Z' } }, refusal: null } },
          { refused: true, period: '2026-03', doc: { id: usageMonthKey(SUB, '2026-03'), ...march, held: {}, refusal: { code: 'customer_not_found', message: 'no customer', issues: [], since: '2026-04-01T00:00:00.000Z', refused_at: '2026-04-01T00:00:00.000Z' } } },
        ].sort((a, b) => (a.doc.id < b.doc.id ? -1 : 1)),
      }, { columns: ['refused', 'period'] });
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
