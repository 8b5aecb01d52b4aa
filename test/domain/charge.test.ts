// A charge due back (issue 26, section 2): found once by reconciliation, resolved once by billing staff (one resolution in flight, the
// first outcome stands, a failed one leaves it due); what is due and why; reconciliation's checkpoint only moves forward.
import { expect } from 'chai';
import { type ChargeCommand, type ChargeEvent, type ReconciliationEvent, chargeDecider, reconciliationDecider, refundDue } from '../../src/domain/billing/charge.ts';
import { given as givenDecider } from './given.ts';

const REF = 'ch_sbx_1';
const t0 = '2026-03-10T09:00:00.000Z';
const t1 = '2026-03-10T09:05:00.000Z';
const owner = { organization_id: '01900000-0000-7000-8000-000000000002', customer_id: '01900000-0000-7000-8000-000000000003', invoice_id: '01900000-0000-7000-8000-000000000001' };
const given = (events: ChargeEvent[]) => givenDecider(chargeDecider, events);

const record: ChargeCommand = { type: 'RecordProviderCharge', data: { charge_ref: REF, provider: 'sandbox', amount: 2500, currency: 'GBP', ...owner, charged_at: t0, now: t1 } };
const found: ChargeEvent = { type: 'ProviderChargeFound', data: { charge_ref: REF, provider: 'sandbox', amount: 2500, currency: 'GBP', ...owner, charged_at: t0, found_at: t1 } };
const due = { amount: 2500, currency: 'GBP', organization_id: owner.organization_id, customer_id: owner.customer_id };
const start = (resolution_id: string, kind: 'refund' | 'apply' = 'refund', amount = 2500): ChargeCommand => ({
  type: 'StartResolution',
  data: { charge_ref: REF, resolution_id, kind, due: { ...due, amount }, target_invoice_id: kind === 'apply' ? 'inv-2' : null, key: `refund-${resolution_id}`, reason: 'asked for it back', now: t1 },
});
const started = (resolution_id: string, kind: 'refund' | 'apply' = 'refund'): ChargeEvent => ({
  type: 'ChargeResolutionStarted',
  data: {
    charge_ref: REF, resolution_id, kind, amount: 2500, currency: 'GBP', organization_id: owner.organization_id, customer_id: owner.customer_id,
    target_invoice_id: kind === 'apply' ? 'inv-2' : null, key: `refund-${resolution_id}`, reason: 'asked for it back', started_at: t1,
  },
});
const complete = (resolution_id: string, outcome: Extract<ChargeCommand, { type: 'CompleteResolution' }>['data']['outcome']): ChargeCommand => ({ type: 'CompleteResolution', data: { resolution_id, outcome, now: t1 } });
const refunded = (resolution_id: string): ChargeEvent => ({ type: 'ChargeRefunded', data: { charge_ref: REF, resolution_id, refund_ref: 're_1', amount: 2500, currency: 'GBP', reason: 'asked for it back', refunded_at: t1 } });

describe('a charge due back', () => {
  it('reconciliation records a charge only the provider knew once; a rerun, or a charge already being resolved, records nothing', () => {
    given([]).when(record).then([found]);
    given([found]).when(record).thenNothing();
    given([started('r1')]).when(record).thenNothing();
  });

  it('staff start a resolution of the whole amount due; a second one while it is in flight or after it is refused, the same one again decides nothing', () => {
    given([found]).when(start('r1')).then([started('r1')]);
    given([found, started('r1')]).when(start('r1')).thenNothing();
    given([found, started('r1')]).when(start('r2', 'apply')).thenError('charge_resolution_in_progress', { resolution_id: 'r1', kind: 'refund' });
    given([found, started('r1'), refunded('r1')]).when(start('r2')).thenError('charge_not_due', { resolution_id: 'r1', kind: 'refund' });
    given([found]).when(start('r1', 'refund', 0)).thenError('charge_not_due');
  });

  it('the outcome ends the resolution in flight only: refunded, applied, or failed (still due, a new resolution may start)', () => {
    given([found, started('r1')]).when(complete('r1', { status: 'refunded', refund_ref: 're_1' })).then([refunded('r1')]);
    given([found, started('r1', 'apply')]).when(complete('r1', { status: 'applied', payment_id: 'pay-1' })).then([
      { type: 'ChargeAppliedToInvoice', data: { charge_ref: REF, resolution_id: 'r1', invoice_id: 'inv-2', payment_id: 'pay-1', amount: 2500, currency: 'GBP', reason: 'asked for it back', applied_at: t1 } },
    ]);
    const failed: ChargeEvent = { type: 'ChargeResolutionFailed', data: { charge_ref: REF, resolution_id: 'r1', code: 'amount_too_large', message: 'No.', failed_at: t1 } };
    given([found, started('r1')]).when(complete('r1', { status: 'failed', code: 'amount_too_large', message: 'No.' })).then([failed]);
    given([found, started('r1'), failed]).when(start('r2')).then([started('r2')]);
    // A repeated or late outcome (a concurrent request finished it first) changes nothing.
    given([found, started('r1'), refunded('r1')]).when(complete('r1', { status: 'refunded', refund_ref: 're_2' })).thenNothing();
    given([found]).when(complete('r1', { status: 'refunded', refund_ref: 're_1' })).thenNothing();
  });

  it('what is due back and why: not applied, partly applied, unknown at the service; nothing once applied in full or resolved', () => {
    const facts = { charged: 4200, applied: 0, recorded: true, found: false, resolved: null };
    expect(refundDue(facts)).to.deep.equal({ amount: 4200, code: 'not_applied' });
    expect(refundDue({ ...facts, applied: 3200 })).to.deep.equal({ amount: 1000, code: 'partly_applied' });
    expect(refundDue({ ...facts, recorded: false, found: true })).to.deep.equal({ amount: 4200, code: 'unknown_at_service' });
    // Found first, then the holder came back and applied it in full (each record reports the whole applied part).
    expect(refundDue({ ...facts, found: true, applied: 4200 })).to.equal(null);
    expect(refundDue({ ...facts, resolved: { amount: 4200 } })).to.equal(null);
    expect(refundDue({ ...facts, charged: null })).to.equal(null);
  });

  it('reconciliation\'s checkpoint only moves forward', () => {
    const passed = (until: string): ReconciliationEvent => ({ type: 'ProviderChargesReconciled', data: { provider: 'sandbox', since: null, until, listed: 1, found: 0, at: t1 } });
    const run = (until: string) => ({ type: 'RecordReconciliation' as const, data: { provider: 'sandbox', since: null, until, listed: 1, found: 0, now: t1 } });
    givenDecider(reconciliationDecider, []).when(run(t0)).then([passed(t0)]);
    givenDecider(reconciliationDecider, [passed(t1)]).when(run(t0)).thenNothing();
    givenDecider(reconciliationDecider, [passed(t1)]).when(run(t1)).thenNothing();
    expect(givenDecider(reconciliationDecider, [passed(t1), passed(t0)]).state.until).to.equal(t1);
  });
});
