// Charge attempts on the invoice stream (issue 26): at most one in flight per invoice, whoever starts it; it ends with its outcome
// or, when its holder never comes back, after CHARGE_ATTEMPT_TTL_MS, when the next start abandons it.
import { expect } from 'chai';
import { type InvoiceCommand, type InvoiceEvent, invoiceCodec, invoiceDecider } from '../../src/domain/billing/invoice.ts';
import { CHARGE_ATTEMPT_TTL_MS, openChargeAttempt } from '../../src/domain/billing/charge-attempt.ts';
import { readEvent } from '../../src/domain/decider.ts';
import { given as givenDecider } from './given.ts';

const ref = { invoice_id: '01900000-0000-7000-8000-000000000001', organization_id: '01900000-0000-7000-8000-000000000002', customer_id: '01900000-0000-7000-8000-000000000003', currency: 'GBP' };
const t0 = '2026-03-10T09:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(t0) + ms).toISOString();
const expiry = at(CHARGE_ATTEMPT_TTL_MS);

const drafted: InvoiceEvent = { type: 'InvoiceDrafted', data: { ...ref, lines: [{ kind: 'manual', description: 'Work', quantity: 1, unit_amount: 4200, amount: 4200 }], subtotal: 4200, total: 4200, memo: null, metadata: {}, created_at: t0 } };
const finalized: InvoiceEvent = { type: 'InvoiceFinalized', data: { ...ref, number: 'INV-2026-000001', issue_date: '2026-03-10', due_date: '2026-04-09', payment_terms_days: 30, subtotal: 4200, total: 4200, finalized_at: t0 } };
const open = [drafted, finalized];

const start = (attempt_id: string, now = t0, started_by: 'payment_page' | 'automatic_collection' = 'payment_page', provider_key = attempt_id): InvoiceCommand => ({
  type: 'StartChargeAttempt', data: { attempt_id, provider_key, started_by, now },
});
const started = (attempt_id: string, now = t0, started_by: 'payment_page' | 'automatic_collection' = 'payment_page', amount = 4200, provider_key = attempt_id): InvoiceEvent => ({
  type: 'ChargeAttemptStarted', data: { ...ref, attempt_id, provider_key, amount, started_by, started_at: now, expires_at: at(Date.parse(now) - Date.parse(t0) + CHARGE_ATTEMPT_TTL_MS) },
});
const endedAs = (attempt_id: string, outcome: 'succeeded' | 'failed' | 'abandoned', rest: { charge_ref?: string | null; charged?: number; applied?: number; code?: string | null } = {}, now = t0): InvoiceEvent => ({
  type: 'ChargeAttemptEnded', data: { ...ref, attempt_id, outcome, charge_ref: rest.charge_ref ?? null, charged: rest.charged ?? 0, applied: rest.applied ?? 0, code: rest.code ?? null, ended_at: now },
});
const end = (attempt_id: string, outcome: Extract<InvoiceCommand, { type: 'EndChargeAttempt' }>['data']['outcome'], now = t0): InvoiceCommand => ({ type: 'EndChargeAttempt', data: { attempt_id, outcome, now } });
const pay = (payment_id: string, amount: number, charge_attempt?: { attempt_id: string; charged: number }): InvoiceCommand => ({
  type: 'RecordPayment', data: { payment_id, amount, currency: 'GBP', method: 'card', reference: 'ch-1', received_on: '2026-03-10', ...(charge_attempt ? { charge_attempt } : {}), now: t0 },
});
const given = (events: InvoiceEvent[]) => givenDecider(invoiceDecider, events);
const types = (...expected: InvoiceEvent['type'][]) => (events: InvoiceEvent[]) => expect(events.map((e) => e.type)).to.deep.equal(expected);

describe('charge attempts on the invoice (one charge per payment)', () => {
  it('an open invoice starts an attempt for the whole amount it owes, held for 15 minutes', () => {
    given(open).when(start('a1')).then([started('a1')]);
    expect(CHARGE_ATTEMPT_TTL_MS).to.equal(15 * 60_000);
    const partlyPaid: InvoiceEvent = { type: 'PaymentRecorded', data: { ...ref, payment_id: 'p0', amount: 1200, method: 'bank_transfer', reference: 'BACS', received_on: '2026-03-10', recorded_at: t0 } };
    given([...open, partlyPaid]).when(start('a1')).then([started('a1', t0, 'payment_page', 3000)]);
  });

  it('a second start while one is in flight is refused with payment_in_progress, whoever starts it, naming the attempt in flight', () => {
    given([...open, started('a1')]).when(start('a2')).thenError('payment_in_progress', { attempt_id: 'a1', started_by: 'payment_page', amount: 4200, expires_at: expiry });
    given([...open, started('a1')]).when(start('c1', t0, 'automatic_collection', 'inv-1')).thenError('payment_in_progress');
    given([...open, started('c1', t0, 'automatic_collection', 4200, 'inv-1')]).when(start('a2', at(CHARGE_ATTEMPT_TTL_MS - 1))).thenError('payment_in_progress');
  });

  it('the same attempt again decides nothing, open or ended; the holder of the open attempt continues it under the same provider key', () => {
    given([...open, started('a1')]).when(start('a1')).thenNothing();
    given([...open, started('a1'), endedAs('a1', 'failed', { code: 'card_declined' })]).when(start('a1')).thenNothing();
    // A collection pass that stopped mid-charge: the next pass (a new attempt id) continues the charge keyed by the invoice.
    given([...open, started('c1', t0, 'automatic_collection', 4200, 'inv-1')]).when(start('c2', at(CHARGE_ATTEMPT_TTL_MS * 4), 'automatic_collection', 'inv-1')).thenNothing();
  });

  it('an attempt whose time is up no longer blocks: the next start ends it as abandoned (expired) and starts, in one append', () => {
    given([...open, started('a1')]).when(start('a2', expiry)).then([endedAs('a1', 'abandoned', { code: 'expired' }, expiry), started('a2', expiry)]);
    const after = given([...open, started('a1'), endedAs('a1', 'abandoned', { code: 'expired' }, expiry), started('a2', expiry)]).state;
    expect(openChargeAttempt(after)?.attempt_id).to.equal('a2');
    expect(after.charge_attempts.a1?.status).to.equal('abandoned');
  });

  it('an ended attempt frees the invoice for the next one', () => {
    const failed = endedAs('a1', 'failed', { charge_ref: 'ch-1', code: 'card_declined' });
    given([...open, started('a1')]).when(end('a1', { status: 'failed', charge_ref: 'ch-1', code: 'card_declined' })).then([failed]);
    given([...open, started('a1'), failed]).when(start('a2')).then([started('a2')]);
  });

  it('a payment that is the attempt\'s outcome ends it in the same append; a later outcome of the same attempt decides nothing', () => {
    given([...open, started('a1')]).when(pay('p1', 4200, { attempt_id: 'a1', charged: 4200 })).then([
      ...given([...open]).when(pay('p1', 4200)).then(types('PaymentRecorded', 'InvoicePaid')),
      endedAs('a1', 'succeeded', { charge_ref: 'ch-1', charged: 4200, applied: 4200 }),
    ]);
    const paid = given([...open, started('a1')]).when(pay('p1', 4200, { attempt_id: 'a1', charged: 4200 })).then(types('PaymentRecorded', 'InvoicePaid', 'ChargeAttemptEnded'));
    given([...open, started('a1'), ...paid]).when(end('a1', { status: 'succeeded', charge_ref: 'ch-1', charged: 4200, applied: 0 })).thenNothing();
    // Paid in full: nothing more is charged, by anyone.
    given([...open, started('a1'), ...paid]).when(start('a2')).thenError('invoice_not_payable');
  });

  it('an outcome for an attempt the invoice does not hold (abandoned, or started before attempts were recorded) decides nothing', () => {
    given([...open, started('a1'), endedAs('a1', 'abandoned', { code: 'expired' }, expiry), started('a2', expiry)])
      .when(end('a1', { status: 'succeeded', charge_ref: 'ch-1', charged: 4200, applied: 0 }))
      .thenNothing();
    given(open).when(end('old', { status: 'failed', charge_ref: null, code: 'card_declined' })).thenNothing();
    // The payment itself is still recorded: only the attempt's end is left out.
    given([...open, started('a2', expiry)]).when(pay('p1', 4200, { attempt_id: 'a1', charged: 4200 })).then(types('PaymentRecorded', 'InvoicePaid'));
  });

  it('nothing is charged on a draft, void or paid invoice', () => {
    given([drafted]).when(start('a1')).thenError('invoice_not_payable');
    given([...open, { type: 'InvoiceVoided', data: { ...ref, number: 'INV-2026-000001', total: 4200, amount_remaining: 4200, voided_at: t0 } }]).when(start('a1')).thenError('invoice_not_payable');
    given([]).when(start('a1')).thenError('invoice_not_found');
  });

  it('the attempt events read through the invoice codec, and an invoice stored before attempts existed has none in flight', () => {
    for (const e of [started('a1'), endedAs('a1', 'succeeded', { charge_ref: 'ch-1', charged: 4200, applied: 4200 })]) expect(readEvent(invoiceCodec, e)).to.deep.equal(e);
    expect(openChargeAttempt(given(open).state)).to.equal(null);
  });
});
