// Charge attempts on the invoice stream (issue 26, one charge per payment): whoever charges an invoice (the payment page,
// automatic collection, a future API) first appends ChargeAttemptStarted with the stream's expected revision, and only then asks
// the provider. A second start while one is in flight is refused (`payment_in_progress`), so the race is decided before money moves.
import { billingErrors } from './errors.ts';
import { type ChargeAttemptOutcome, type ChargeAttemptState, type InvoiceCommand, type InvoiceEvent, type InvoiceRef, type InvoiceState, amountRemaining } from './invoice-events.ts';

/** How long an attempt holds its invoice without an outcome (a crash, a payer who left the provider's page): 15 minutes. */
export const CHARGE_ATTEMPT_TTL_MS = 15 * 60_000;

/** The attempt in flight on the invoice, or null. */
export function openChargeAttempt(s: Pick<InvoiceState, 'charge_attempts' | 'open_charge_attempt'>): ChargeAttemptState | null {
  return s.open_charge_attempt === null ? null : (s.charge_attempts[s.open_charge_attempt] ?? null);
}

/** Whether the attempt no longer holds the invoice at `now` (its time is up: the next start abandons it). */
export function chargeAttemptExpired(a: Pick<ChargeAttemptState, 'expires_at'>, now: string | Date): boolean {
  return new Date(now).getTime() >= Date.parse(a.expires_at);
}

/**
 * Starts a charge attempt: the whole amount still owed, held for CHARGE_ATTEMPT_TTL_MS. The same attempt again decides nothing
 * (open: its holder continues it; ended: its outcome stands), and so does a start by the holder of the open attempt with the same
 * provider key (a worker that stopped mid-charge continues its charge: the provider answers the first one for that key). Another
 * attempt in flight refuses with `payment_in_progress`, unless its time is up: then it is ended as `abandoned` in the same append.
 */
export function startChargeAttempt(c: Extract<InvoiceCommand, { type: 'StartChargeAttempt' }>['data'], s: InvoiceState, ref: InvoiceRef): InvoiceEvent[] {
  const { attempt_id, provider_key, started_by, now } = c;
  if (s.charge_attempts[attempt_id]) return [];
  const open = openChargeAttempt(s);
  if (open && open.provider_key === provider_key && open.started_by === started_by) return [];
  if (s.status !== 'open' && s.status !== 'uncollectible') throw billingErrors.error('invoice_not_payable', `Nothing can be charged: the invoice is ${s.status}.`);
  const amount = amountRemaining(s);
  if (amount <= 0) throw billingErrors.error('invoice_not_payable', 'Nothing can be charged: the invoice owes nothing.');
  const events: InvoiceEvent[] = [];
  if (open) {
    if (!chargeAttemptExpired(open, now)) {
      throw billingErrors.error('payment_in_progress', 'A payment of this invoice is already in progress; nothing was charged.', {
        details: { attempt_id: open.attempt_id, started_by: open.started_by, amount: open.amount, expires_at: open.expires_at },
      });
    }
    events.push(ended(ref, open.attempt_id, { status: 'abandoned', code: 'expired' }, now));
  }
  const expires_at = new Date(Date.parse(now) + CHARGE_ATTEMPT_TTL_MS).toISOString();
  events.push({ type: 'ChargeAttemptStarted', data: { ...ref, attempt_id, provider_key, amount, started_by, started_at: now, expires_at } });
  return events;
}

/**
 * Ends the attempt in flight with its outcome. An attempt that is not the one in flight (ended already, abandoned after its time,
 * or started before attempts were recorded on invoices) decides nothing: the first outcome stands.
 */
export function endChargeAttempt(c: Extract<InvoiceCommand, { type: 'EndChargeAttempt' }>['data'], s: InvoiceState, ref: InvoiceRef): InvoiceEvent[] {
  if (s.open_charge_attempt !== c.attempt_id) return [];
  return [ended(ref, c.attempt_id, c.outcome, c.now)];
}

/** The ChargeAttemptEnded of an outcome. */
export function ended(ref: InvoiceRef, attempt_id: string, o: ChargeAttemptOutcome, now: string): InvoiceEvent {
  const charge = o.status === 'succeeded' ? { charge_ref: o.charge_ref, charged: o.charged, applied: o.applied, code: null } : { charge_ref: o.status === 'failed' ? o.charge_ref : null, charged: 0, applied: 0, code: o.code };
  return { type: 'ChargeAttemptEnded', data: { ...ref, attempt_id, outcome: o.status, ...charge, ended_at: now } };
}

/** The state after a charge attempt event. */
export function evolveChargeAttempt(s: InvoiceState, e: Extract<InvoiceEvent, { type: 'ChargeAttemptStarted' | 'ChargeAttemptEnded' }>): InvoiceState {
  if (e.type === 'ChargeAttemptStarted') {
    const { attempt_id, provider_key, amount, started_by, started_at, expires_at } = e.data;
    return { ...s, open_charge_attempt: attempt_id, charge_attempts: { ...s.charge_attempts, [attempt_id]: { attempt_id, provider_key, amount, started_by, started_at, expires_at, status: 'open' } } };
  }
  const a = s.charge_attempts[e.data.attempt_id];
  return {
    ...s,
    open_charge_attempt: s.open_charge_attempt === e.data.attempt_id ? null : s.open_charge_attempt,
    charge_attempts: a ? { ...s.charge_attempts, [a.attempt_id]: { ...a, status: e.data.outcome } } : s.charge_attempts,
  };
}
