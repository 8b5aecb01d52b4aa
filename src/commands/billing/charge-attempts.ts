// Holding an invoice for one charge (issue 26, one charge per payment): every caller that moves money for an invoice (the payment
// page, automatic collection, a future API) appends ChargeAttemptStarted on the invoice's stream with its expected revision first and
// asks the provider only once that append is in; a second caller is refused with `payment_in_progress` and charges nothing.
import type { CommandContext } from '../../context.ts';
import type { ChargeAttemptState, ChargeStarter } from '../../domain/billing/invoice-events.ts';
import { openChargeAttempt } from '../../domain/billing/charge-attempt.ts';
import { DomainError } from '../../domain/errors.ts';
import { invoices } from './handlers.ts';

/** A charge its caller wants to make: `provider_key` is the idempotency key it will send the provider. */
export interface ChargeStart {
  attempt_id: string;
  provider_key: string;
  started_by: ChargeStarter;
}

/**
 * Asks the provider about an attempt in flight whose holder may be gone (a lost notification, a crash) and applies a final answer,
 * which ends it; true when it did. The rule's second way out, after the attempt's time (CHARGE_ATTEMPT_TTL_MS).
 */
export type SettleAttempt = (attempt: ChargeAttemptState) => Promise<boolean>;

/**
 * Holds the invoice for `start` and answers the caller's attempt: just started, the open one it continues (same holder and
 * provider key), or its own attempt already ended (`status` is not `open`: its outcome stands, charge nothing). Refused with
 * `payment_in_progress` (409) while another attempt is in flight, after `settle` was given one chance to end it from the
 * provider's record; `invoice_not_payable` when nothing is owed.
 */
export async function holdInvoiceForCharge(ctx: CommandContext, invoiceId: string, start: ChargeStart, opts: { orgId: string; reason: string }, settle?: SettleAttempt): Promise<ChargeAttemptState> {
  for (let round = 1; ; round++) {
    try {
      const res = await invoices.run(ctx, invoiceId, { type: 'StartChargeAttempt', data: start }, opts);
      const mine = res.state.charge_attempts[start.attempt_id] ?? openChargeAttempt(res.state);
      if (!mine) throw new Error(`invariant broken: invoice ${invoiceId} decided a charge start without an attempt`);
      return mine;
    } catch (err) {
      if (round > 1 || !settle || !(err instanceof DomainError) || err.code !== 'payment_in_progress') throw err;
      const open = openChargeAttempt((await invoices.read(ctx, invoiceId, { fresh: true })).state);
      if (!open || !(await settle(open))) throw err;
    }
  }
}

/** Whether `attemptId` is the charge in flight on the invoice now (only that one may ask the provider for money). */
export async function holdsInvoice(ctx: Pick<CommandContext, 'store'>, invoiceId: string, attemptId: string): Promise<boolean> {
  return (await invoices.read(ctx, invoiceId, { fresh: true })).state.open_charge_attempt === attemptId;
}
