// Collection decider: charge attempts of one invoice, the retry schedule, and when a charge is due.
import { expect } from 'chai';
import { type CollectionCommand, type CollectionEvent, chargeDue, chargeToApply, collectable, collectionCodec, collectionDecider } from '../../src/domain/billing/collection.ts';
import { readEvent } from '../../src/domain/decider.ts';
import { given } from './given.ts';

const now = '2026-03-01T10:00:00.000Z';
const plus = (days: number) => new Date(new Date(now).getTime() + days * 86_400_000).toISOString();
const charge = (attempt: number, outcome: CollectionCommand['data']['outcome']): CollectionCommand => ({
  type: 'RecordCharge', data: { invoice_id: 'inv-1', attempt, payment_method_id: 'pm-1', charge_ref: `ch-${attempt}`, amount: 1500, outcome, now },
});
const failed = (attempt: number, next: string | null): CollectionEvent => ({
  type: 'ChargeFailed', data: { invoice_id: 'inv-1', attempt, payment_method_id: 'pm-1', charge_ref: `ch-${attempt}`, code: 'card_declined', next_attempt_at: next, at: now },
});

describe('collection decider', () => {
  it('a success is recorded once; a repeated attempt number decides nothing', () => {
    given(collectionDecider, []).when(charge(1, { status: 'succeeded', applied: 1500 })).then([
      { type: 'ChargeSucceeded', data: { invoice_id: 'inv-1', attempt: 1, payment_method_id: 'pm-1', charge_ref: 'ch-1', amount: 1500, applied: 1500, at: now } },
    ]);
    given(collectionDecider, [failed(1, plus(3))]).when(charge(1, { status: 'failed', code: 'card_declined' })).thenNothing();
  });

  it('declines schedule retries 3, 5 and 7 days later; the fourth decline schedules nothing', () => {
    given(collectionDecider, []).when(charge(1, { status: 'failed', code: 'card_declined' })).then([failed(1, plus(3))]);
    given(collectionDecider, [failed(1, null), failed(2, null)]).when(charge(3, { status: 'failed', code: 'card_declined' })).then([failed(3, plus(7))]);
    given(collectionDecider, [failed(1, null), failed(2, null), failed(3, null)]).when(charge(4, { status: 'failed', code: 'card_declined' })).then([failed(4, null)]);
  });

  it('a charge is due first at once, then on its retry date, never after success or the last retry', () => {
    const initial = collectionDecider.initialState();
    expect(chargeDue(initial, new Date(now))).to.equal(true);
    const afterOne = given(collectionDecider, [failed(1, plus(3))]).state;
    expect(chargeDue(afterOne, new Date(plus(2)))).to.equal(false);
    expect(chargeDue(afterOne, new Date(plus(3)))).to.equal(true);
    expect(chargeDue(given(collectionDecider, [failed(1, null), failed(2, null), failed(3, null), failed(4, null)]).state, new Date(plus(90)))).to.equal(false);
  });

  it('applies a charge up to what the invoice still owes, and nothing to an invoice that no longer takes payments', () => {
    const invoice = { status: 'open' as const, total: 4200, amount_paid: 1000, amount_credited: 0, credited_to_balance: 0 };
    expect(collectable(invoice)).to.equal(3200);
    expect(chargeToApply(4200, invoice)).to.equal(3200);
    expect(chargeToApply(3200, invoice)).to.equal(3200);
    expect(chargeToApply(1500, { ...invoice, status: 'uncollectible' })).to.equal(1500);
    expect(chargeToApply(4200, { ...invoice, amount_credited: 700 })).to.equal(2500);
    for (const status of ['paid', 'void', 'draft'] as const) expect(chargeToApply(4200, { ...invoice, status }), status).to.equal(0);
  });

  it('reads a success recorded before `applied` existed as wholly applied', () => {
    const old = { invoice_id: 'inv-1', attempt: 1, payment_method_id: 'pm-1', charge_ref: 'ch-1', amount: 1500, at: now };
    expect(readEvent(collectionCodec, { type: 'ChargeSucceeded', data: old }).data).to.deep.equal({ ...old, applied: 1500 });
    const current = { ...old, applied: 900 };
    expect(readEvent(collectionCodec, { type: 'ChargeSucceeded', data: current }).data).to.deep.equal(current);
  });
});
