// Access decider and overdue policy: given events, when a review, then suspension, restoration or nothing.
import { expect } from 'chai';
import { type AccessCommand, type AccessEvent, type UnpaidInvoice, accessDecider, daysBetween, suspensionDate } from '../../src/domain/billing/access.ts';
import { addDays } from '../../src/clock.ts';
import { ageingBucket } from '../../src/queries/billing/statements.ts';
import { given } from './given.ts';

const ids = { customer_id: 'cus-1', organization_id: 'org-1' };
const now = '2026-03-01T00:05:00.000Z';
const unpaid = (invoice_id: string, due_date: string, amount_remaining = 1000): UnpaidInvoice => ({ invoice_id, number: null, due_date, amount_remaining, currency: 'GBP' });
const suspended: AccessEvent = { type: 'AccessSuspended', data: { ...ids, suspension_date: '2026-02-15', oldest_due_date: '2026-02-01', grace_days: 14, invoice_ids: ['a'], suspended_at: now } };

const review = (today: string, invoices: UnpaidInvoice[], grace = 14): AccessCommand => ({ type: 'ReviewAccess', data: { ...ids, today, grace_days: grace, unpaid: invoices, now } });

describe('overdue policy and access decider', () => {
  it('anchors the suspension date to the oldest past-due due date plus grace days', () => {
    expect(suspensionDate([unpaid('b', '2026-02-10'), unpaid('a', '2026-02-01')], '2026-02-05', 14)).to.deep.equal({ date: '2026-02-15', oldestDueDate: '2026-02-01' });
    // Not yet past due (due today counts as not past due): no suspension date.
    expect(suspensionDate([unpaid('a', '2026-02-05')], '2026-02-05', 14)).to.equal(null);
    expect(suspensionDate([], '2026-02-05', 14)).to.equal(null);
  });

  it('does nothing before the suspension date', () => {
    given(accessDecider, []).when(review('2026-02-14', [unpaid('a', '2026-02-01')])).thenNothing();
  });

  it('suspends on the suspension date, naming the invoices that caused it', () => {
    given(accessDecider, []).when(review('2026-02-15', [unpaid('a', '2026-02-01'), unpaid('b', '2026-02-10')])).then([
      { type: 'AccessSuspended', data: { ...ids, suspension_date: '2026-02-15', oldest_due_date: '2026-02-01', grace_days: 14, invoice_ids: ['a'], suspended_at: now } },
    ]);
  });

  it('honours a configured grace period', () => {
    given(accessDecider, []).when(review('2026-02-04', [unpaid('a', '2026-02-01')], 3)).then([
      { type: 'AccessSuspended', data: { ...ids, suspension_date: '2026-02-04', oldest_due_date: '2026-02-01', grace_days: 3, invoice_ids: ['a'], suspended_at: now } },
    ]);
    given(accessDecider, []).when(review('2026-02-03', [unpaid('a', '2026-02-01')], 3)).thenNothing();
  });

  it('is a no-op when already suspended and still owed', () => {
    given(accessDecider, [suspended]).when(review('2026-03-01', [unpaid('a', '2026-02-01')])).thenNothing();
  });

  it('restores once the debt that caused it is paid, even while a newer invoice is within its grace period', () => {
    const restored: AccessEvent = { type: 'AccessRestored', data: { ...ids, restored_at: now } };
    given(accessDecider, [suspended]).when(review('2026-03-01', [unpaid('c', '2026-02-20')])).then([restored]);
    given(accessDecider, [suspended]).when(review('2026-03-01', [])).then([restored]);
  });

  it('does not restore access that is not suspended', () => {
    given(accessDecider, []).when(review('2026-03-01', [])).thenNothing();
  });

  it('counts calendar days across month ends and buckets ageing like an accountant', () => {
    expect(addDays('2026-01-25', 14)).to.equal('2026-02-08');
    expect(addDays('2024-02-20', 10)).to.equal('2024-03-01');
    expect(daysBetween('2026-02-04', '2026-03-31')).to.equal(55);
    expect([0, -5, 1, 30, 31, 60, 61, 90, 91].map(ageingBucket)).to.deep.equal(['current', 'current', 'days_1_30', 'days_1_30', 'days_31_60', 'days_31_60', 'days_61_90', 'days_61_90', 'days_over_90']);
  });
});
