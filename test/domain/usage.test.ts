// Usage facts and usage invoices, decided: an order is recorded once; a generated draft and its orders are one decision.
import { expect } from 'chai';
import { type UsageOrder, usageDecider } from '../../src/domain/billing/usage.ts';
import { type InvoiceEvent, type InvoiceLine, ORDERS_PER_EVENT, invoiceDecider } from '../../src/domain/billing/invoice.ts';
import type { RatedOrderRow } from '../../src/domain/billing/invoice-events.ts';
import { given } from './given.ts';

const now = '2026-03-01T00:05:00.000Z';
const facts: UsageOrder = { order_id: 'O-1', subscription_id: 'sub-1', seller: 'org-s', buyer: 'org-b', amount: 1000, currency: 'GBP', occurred_at: '2026-02-01T10:00:00.000Z' };

describe('usage decider', () => {
  it('records an order once; the same facts again decide nothing; other facts are a conflict', () => {
    given(usageDecider, []).when({ type: 'RecordUsage', data: { ...facts, now } }).then([{ type: 'UsageRecorded', data: { ...facts, recorded_at: now } }]);
    const recorded = [{ type: 'UsageRecorded' as const, data: { ...facts, recorded_at: now } }];
    given(usageDecider, recorded).when({ type: 'RecordUsage', data: { ...facts, now: '2026-03-02T00:00:00.000Z' } }).thenNothing();
    given(usageDecider, recorded).when({ type: 'RecordUsage', data: { ...facts, amount: 1001, now } }).thenError('usage_conflict');
  });

  it('refuses an order of an organization with itself and negative or fractional amounts', () => {
    given(usageDecider, []).when({ type: 'RecordUsage', data: { ...facts, buyer: 'org-s', now } }).thenError('invalid_order');
    given(usageDecider, []).when({ type: 'RecordUsage', data: { ...facts, amount: -1, now } }).thenError('invalid_order');
    given(usageDecider, []).when({ type: 'RecordUsage', data: { ...facts, amount: 1.5, now } }).thenError('invalid_order');
  });
});

describe('invoice decider: drafts generated from usage', () => {
  const ref = { invoice_id: 'inv-u', organization_id: 'org-s', customer_id: 'cus-s', currency: 'GBP' };
  const metered = (amount: number, order_count: number): InvoiceLine => ({
    kind: 'metered', description: 'fees', quantity: 1, unit_amount: amount, amount,
    metered: {
      subscription_id: 'sub-1', period: '2026-02', classification: 'platform_introduced', rate_bps: 250, minimum_fee: 0, pricing_revision_id: 'p1', baseline_revision_id: null,
      order_count, order_amount: 0, exempt_amount: 0, chargeable_amount: 0,
    },
  });
  const rows = (n: number, line = 0, fee = 3): RatedOrderRow[] => Array.from({ length: n }, (_, i) => ({ order_id: `O-${i}`, line, relationship_id: null, exempt_amount: 0, fee }));
  const draft = (lines: InvoiceLine[], orders: RatedOrderRow[]) => ({ type: 'DraftUsageInvoice' as const, data: { ...ref, lines, orders, memo: null, now } });

  it('drafts the invoice and its orders in one decision, in parts of ORDERS_PER_EVENT', () => {
    const n = ORDERS_PER_EVENT + 5;
    given(invoiceDecider, []).when(draft([metered(3 * n, n)], rows(n))).then((events) => {
      expect(events.map((e) => e.type)).to.deep.equal(['InvoiceDrafted', 'InvoiceUsageRated', 'InvoiceUsageRated']);
      const parts = events.slice(1).map((e) => (e.type === 'InvoiceUsageRated' ? [e.data.first, e.data.orders.length] : []));
      expect(parts).to.deep.equal([[0, ORDERS_PER_EVENT], [ORDERS_PER_EVENT, 5]]);
      expect(events[0]?.data).to.include({ total: 3 * n });
    });
  });

  it('refuses a metered line whose amount is not the sum of its orders\' fees; a second generation decides nothing', () => {
    given(invoiceDecider, []).when(draft([metered(10, 3)], rows(3))).thenError('invalid_line');
    given(invoiceDecider, []).when(draft([metered(9, 3)], rows(3, 1))).thenError('invalid_line');
    const drafted: InvoiceEvent = { type: 'InvoiceDrafted', data: { ...ref, lines: [metered(9, 3)], subtotal: 9, total: 9, memo: null, metadata: {}, created_at: now } };
    given(invoiceDecider, [drafted]).when(draft([metered(12, 4)], rows(4))).thenNothing();
  });

  it('does not let hand edits replace metered lines', () => {
    const drafted: InvoiceEvent = { type: 'InvoiceDrafted', data: { ...ref, lines: [metered(9, 3)], subtotal: 9, total: 9, memo: null, metadata: {}, created_at: now } };
    given(invoiceDecider, [drafted]).when({ type: 'UpdateInvoice', data: { lines: [{ kind: 'manual', description: 'x', quantity: 1, unit_amount: 1, amount: 1 }], now } }).thenError('invoice_has_metered_lines');
    given(invoiceDecider, [drafted]).when({ type: 'UpdateInvoice', data: { memo: 'February', now } }).then((events) => expect(events.map((e) => e.type)).to.deep.equal(['InvoiceDetailsUpdated']));
  });
});
