// Usage facts and usage invoices, decided: an order is recorded once; a generated draft and its orders are one decision.
import { expect } from 'chai';
import { type UsageOrder, usageDecider } from '../../src/domain/billing/usage.ts';
import { type InvoiceEvent, type InvoiceLine, ORDERS_PER_EVENT, invoiceDecider } from '../../src/domain/billing/invoice.ts';
import type { RatedOrderRow } from '../../src/domain/billing/invoice-events.ts';
import { given } from './given.ts';
import { usageMonthDecider } from '../../src/domain/billing/usage-month.ts';
import { baselineKey, rateOrders } from '../../src/domain/billing/configuration/rating.ts';
import type { ConfigurationSnapshot } from '../../src/domain/billing/configuration/snapshot.ts';

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

describe('usage decider: corrections (issue 26)', () => {
  const recorded = [{ type: 'UsageRecorded' as const, data: { ...facts, currency: 'EUR', recorded_at: now } }];
  const later = '2026-03-02T00:00:00.000Z';

  it('voids an order once, with its reason, invoiced or not; an unknown one is not found', () => {
    given(usageDecider, recorded).when({ type: 'VoidUsage', data: { reason: 'Test order', now: later } })
      .then([{ type: 'UsageVoided', data: { order_id: 'O-1', subscription_id: 'sub-1', reason: 'Test order', voided_at: later } }]);
    const voided = [...recorded, { type: 'UsageVoided' as const, data: { order_id: 'O-1', subscription_id: 'sub-1', reason: 'Test order', voided_at: later } }];
    given(usageDecider, voided).when({ type: 'VoidUsage', data: { reason: 'again', now: later } }).thenNothing();
    given(usageDecider, []).when({ type: 'VoidUsage', data: { reason: 'x', now: later } }).thenError('usage_not_found');
    given(usageDecider, voided).when({ type: 'ReplaceUsage', data: { facts: { currency: 'GBP' }, reason: 'x', invoice_id: null, now: later } }).thenError('usage_voided');
  });

  it('replaces the facts with a new revision; the original facts recorded again stay already recorded, the corrected ones too', () => {
    const replaced = { type: 'UsageReplaced' as const, data: { ...facts, currency: 'GBP', revision: 1, reason: 'Sent in EUR', replaced_at: later } };
    given(usageDecider, recorded).when({ type: 'ReplaceUsage', data: { facts: { currency: 'GBP' }, reason: 'Sent in EUR', invoice_id: null, now: later } }).then([replaced]);
    const state = given(usageDecider, [...recorded, replaced]);
    expect(state.state).to.deep.include({ revision: 1, voided: false });
    expect(state.state.order?.currency).to.equal('GBP');
    given(usageDecider, [...recorded, replaced]).when({ type: 'RecordUsage', data: { ...facts, currency: 'EUR', now: later } }).thenNothing();
    given(usageDecider, [...recorded, replaced]).when({ type: 'RecordUsage', data: { ...facts, now: later } }).thenNothing();
    given(usageDecider, [...recorded, replaced]).when({ type: 'RecordUsage', data: { ...facts, amount: 7, now: later } }).thenError('usage_conflict');
    given(usageDecider, [...recorded, replaced]).when({ type: 'ReplaceUsage', data: { facts: { currency: 'GBP' }, reason: 'same', invoice_id: null, now: later } }).thenNothing();
    given(usageDecider, recorded).when({ type: 'ReplaceUsage', data: { facts: { buyer: 'org-s' }, reason: 'x', invoice_id: null, now: later } }).thenError('invalid_order');
    given(usageDecider, recorded).when({ type: 'ReplaceUsage', data: { facts: { currency: 'GBP' }, reason: 'x', invoice_id: 'inv-1', now: later } }).thenError('usage_invoiced');
    // An invoiced order is replaced within its month and currency (re-rating bills the difference), not out of them.
    given(usageDecider, recorded).when({ type: 'ReplaceUsage', data: { facts: { amount: 7 }, reason: 'x', invoice_id: 'inv-1', now: later } })
      .then([{ type: 'UsageReplaced', data: { ...facts, currency: 'EUR', amount: 7, revision: 1, reason: 'x', replaced_at: later } }]);
    given(usageDecider, recorded).when({ type: 'ReplaceUsage', data: { facts: { occurred_at: '2026-01-31T23:00:00.000Z' }, reason: 'x', invoice_id: 'inv-1', now: later } }).thenError('usage_invoiced');
  });
});

describe('usage month decider (issue 26)', () => {
  const ref = { subscription_id: 'sub-1', period: '2026-02' };
  const refusal = { ...ref, code: 'usage_unrateable', message: '1 order', issues: [{ path: 'orders.O-1', message: 'currency_mismatch' }] };

  it('records a refusal once per reason, clears it once; holds an order once per revision', () => {
    const refused = { type: 'UsageMonthRefused' as const, data: { ...refusal, refused_at: now } };
    given(usageMonthDecider, []).when({ type: 'RecordRefusal', data: { ...refusal, now } }).then([refused]);
    given(usageMonthDecider, [refused]).when({ type: 'RecordRefusal', data: { ...refusal, now: '2026-03-02T00:00:00.000Z' } }).thenNothing();
    given(usageMonthDecider, [refused]).when({ type: 'RecordRefusal', data: { ...refusal, issues: [], now } }).then((events) => expect(events.map((e) => e.type)).to.deep.equal(['UsageMonthRefused']));
    given(usageMonthDecider, [refused]).when({ type: 'ClearRefusal', data: { ...ref, now } }).then([{ type: 'UsageMonthRefusalCleared', data: { ...ref, cleared_at: now } }]);
    given(usageMonthDecider, []).when({ type: 'ClearRefusal', data: { ...ref, now } }).thenNothing();
    const held = { type: 'UsageOrdersHeld' as const, data: { ...ref, orders: [{ order_id: 'O-1', revision: 0, reasons: 'currency_mismatch' }], held_at: now } };
    given(usageMonthDecider, [held]).when({ type: 'HoldOrders', data: { ...ref, orders: [{ order_id: 'O-1', revision: 0, reasons: 'again' }], now } }).thenNothing();
    given(usageMonthDecider, [held]).when({ type: 'HoldOrders', data: { ...ref, orders: [{ order_id: 'O-1', revision: 1, reasons: 'still' }], now } })
      .then([{ type: 'UsageOrdersHeld', data: { ...ref, orders: [{ order_id: 'O-1', revision: 1, reasons: 'still' }], held_at: now } }]);
  });
});

describe('rating after billed orders (late usage, issue 26)', () => {
  it('an order rated after the billed ones is exempt only by what they left of the baseline', () => {
    const actor = { type: 'staff' as const, id: 'staff-1' };
    const revision = { sequence: 1, effective_from: '2026-01-01T00:00:00.000Z', effective_to: null, actor, reason: 'r', recorded_at: '2026-01-01T00:00:00.000Z', supersedes: [] };
    const snapshot: ConfigurationSnapshot = {
      subscription_id: 'sub-1', organization_id: 'org-s',
      relationships: [{
        relationship_id: 'rel-1', seller: 'org-s', buyer: 'org-b', recorded_at: '2026-01-01T00:00:00.000Z',
        claims: [{ status: 'claimed', actor, reason: 'c', recorded_at: '2026-01-02T00:00:00.000Z' }, { status: 'accepted', actor, reason: 'ok', recorded_at: '2026-01-03T00:00:00.000Z' }],
        evidence: [{ evidence_id: 'ev-1', committed_at: '2026-01-02T12:00:00.000Z' }],
      }],
      baselines: [{ ...revision, revision_id: 'b-1', monthly_exempt_amount: 10_000, currency: 'GBP' }],
      pricing: [{ ...revision, revision_id: 'p-1', currency: 'GBP', rates_bps: { platform_introduced: 500, pre_existing: 200 }, minimum_fee: 0 }],
    };
    const late = [{ order_id: 'O-0', seller: 'org-s', buyer: 'org-b', amount: 5000, occurred_at: '2026-02-01T00:00:00.000Z' }];
    const before = new Map([[baselineKey('org-s', '2026-02'), 8000n]]);
    const [alone] = rateOrders(snapshot, late, now);
    const [after] = rateOrders(snapshot, late, now, before);
    expect(alone).to.deep.include({ status: 'rated', exempt_amount: 5000, fee: 0 });
    expect(after).to.deep.include({ status: 'rated', exempt_amount: 2000, chargeable_amount: 3000, fee: 60 });
    expect([...before]).to.deep.equal([[baselineKey('org-s', '2026-02'), 8000n]]); // the caller's map is not changed
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
