// Automatic collection worker: charges the default method of customers with auto_collection for their open invoices, retrying declines on a schedule.
// Each charge holds its invoice first (a charge attempt on the invoice stream: one charge in flight per invoice, issue 26); a success
// records a payment on the invoice stream (like a manual one); each attempt's outcome is also an event on `collection-<invoice id>`.
import type { CommandContext, Services } from '../../context.ts';
import type { Worker } from '../worker.ts';
import { isoDate } from '../../clock.ts';
import { collections, invoices } from '../../commands/billing/handlers.ts';
import { chargeDue, chargeToApply, collectable } from '../../domain/billing/collection.ts';
import type { ChargeAttemptState, InvoiceCommand, InvoiceState } from '../../domain/billing/invoice-events.ts';
import type { LoadedAggregate } from '../../commands/run.ts';
import { DomainError } from '../../domain/errors.ts';
import { IdSource, nameId, newId } from '../../ids.ts';
import { holdInvoiceForCharge } from '../../commands/billing/charge-attempts.ts';
import { settlePageAttempt } from '../../commands/billing/payment-attempts.ts';
import { autoCollectedCustomers } from '../../queries/billing/payment-methods.ts';
import { unpaidInvoices } from '../../queries/billing/statements.ts';
import { systemMetadata } from '../../pipeline/invoke.ts';

/** What one pass did. */
export interface CollectionPassResult {
  charged: string[];
  declined: string[];
  /** Invoices another charge of which was in flight (a payment on the page): nothing charged, tried again on the next pass. */
  in_progress: string[];
}

/**
 * One pass: every open invoice of an auto-collected customer whose charge is due gets one attempt. The attempt holds the invoice
 * (ChargeAttemptStarted on its stream) before the provider is asked, so it never meets a payment page charge of the same invoice.
 */
export async function runCollectionPass(services: Services): Promise<CollectionPassResult> {
  const { knex, clock } = services;
  const now = clock.now();
  const result: CollectionPassResult = { charged: [], declined: [], in_progress: [] };
  const provider = services.payments;
  for (const customer of await autoCollectedCustomers(knex)) {
    const ctx = {
      store: services.store,
      ids: IdSource.random(now),
      now,
      metadata: systemMetadata({ job: 'collection-worker', orgId: customer.organization_id }),
    };
    const opts = { orgId: customer.organization_id, reason: 'automatic collection' };
    for (const invoice of await unpaidInvoices(knex, customer.customer_id)) {
      const state = await collections.load(ctx, invoice.invoice_id);
      if (!chargeDue(state, now)) continue;
      // The read model may be behind the invoice's stream (a payment just recorded): charge what the stream says is owed.
      if (collectable((await invoices.read(ctx, invoice.invoice_id, { fresh: true })).state) === 0) continue;
      const attempt = state.attempts + 1;
      // The first attempt's key is the invoice id; a retry is a new charge with its own key.
      const key = attempt === 1 ? invoice.invoice_id : `${invoice.invoice_id}:${attempt}`;
      const held = await hold(services, ctx, invoice.invoice_id, key, opts);
      if (held === 'in_progress') {
        result.in_progress.push(invoice.invoice_id);
        continue;
      }
      // Nothing owed any more: paid (or voided) since the read above.
      if (held === null) continue;
      const owner = { invoice_id: invoice.invoice_id, customer_id: customer.customer_id, organization_id: customer.organization_id, attempt_id: held.attempt_id };
      const charge = await provider.charge({ method_ref: customer.method.provider_ref, amount: held.amount, currency: invoice.currency, idempotency_key: key, owner });
      let applied = 0;
      if (charge.status === 'succeeded') {
        const payment = { payment_id: nameId('billing-auto-collection', key), currency: invoice.currency, method: customer.method.type, reference: charge.charge_ref, received_on: isoDate(now) };
        const read = await invoices.read(ctx, invoice.invoice_id, { fresh: true });
        applied = await applyCharge(ctx, invoice.invoice_id, charge.amount, { ...payment, charge_attempt: { attempt_id: held.attempt_id, charged: charge.amount } }, customer.organization_id, read);
        if (applied < charge.amount) {
          services.logger.warn({ invoice_id: invoice.invoice_id, charge_ref: charge.charge_ref, charged: charge.amount, applied, refund_due: charge.amount - applied }, 'automatic collection charged more than the invoice still owed: the rest is to be refunded');
        }
        result.charged.push(invoice.invoice_id);
      } else result.declined.push(invoice.invoice_id);
      // A payment that ended the attempt already makes this decide nothing.
      const outcome = charge.status === 'succeeded' ? { status: 'succeeded' as const, charge_ref: charge.charge_ref, charged: charge.amount, applied } : { status: 'failed' as const, charge_ref: charge.charge_ref, code: charge.code };
      await invoices.run(ctx, invoice.invoice_id, { type: 'EndChargeAttempt', data: { attempt_id: held.attempt_id, outcome } }, opts);
      await collections.run(ctx, invoice.invoice_id, {
        type: 'RecordCharge',
        data: {
          invoice_id: invoice.invoice_id, attempt, payment_method_id: customer.method.id, charge_ref: charge.charge_ref, amount: charge.status === 'succeeded' ? charge.amount : held.amount,
          outcome: charge.status === 'succeeded' ? { status: 'succeeded', applied } : { status: 'failed', code: charge.code },
        },
      }, { orgId: customer.organization_id });
    }
  }
  if (result.charged.length || result.declined.length || result.in_progress.length) services.logger.info({ ...result }, 'collection pass charged invoices');
  return result;
}

/**
 * Holds the invoice for this pass's charge under `key`: the attempt to charge (new, or the open one of a pass that stopped
 * mid-charge), 'in_progress' when another charge is in flight (a payment page attempt the provider has not finished), or null when
 * nothing is to be charged (the invoice owes nothing now).
 */
async function hold(services: Services, ctx: CommandContext, invoiceId: string, key: string, opts: { orgId: string; reason: string }): Promise<ChargeAttemptState | 'in_progress' | null> {
  try {
    const held = await holdInvoiceForCharge(ctx, invoiceId, { attempt_id: newId(), provider_key: key, started_by: 'automatic_collection' }, opts, (open) => settlePageAttempt(services, open));
    // A fresh attempt id is never an ended one; the check keeps an ended attempt from ever reaching the provider again.
    return held.status === 'open' ? held : null;
  } catch (err) {
    if (err instanceof DomainError && err.code === 'payment_in_progress') return 'in_progress';
    if (err instanceof DomainError && err.code === 'invoice_not_payable') return null;
    throw err;
  }
}

/** Refusals that mean the invoice changed since it was read: a payment or credit landed, or it was voided. */
const CHANGED_SINCE = new Set(['amount_exceeds_remaining', 'invoice_not_payable', 'payment_exists']);

/**
 * Records a successful charge as a payment of what the invoice still owes of it (normally all of it) and
 * returns the amount applied; 0 when it owes nothing any more. Decided on the invoice's stream as it is
 * at the append (`read`, from before the charge, is re-read after a refusal), so a payment that lands
 * between the charge and its recording is never paid twice over.
 */
async function applyCharge(
  ctx: CommandContext,
  invoiceId: string,
  charged: number,
  payment: Omit<Extract<InvoiceCommand, { type: 'RecordPayment' }>['data'], 'amount' | 'now'>,
  orgId: string,
  read: LoadedAggregate<InvoiceState>,
): Promise<number> {
  let loaded = read;
  for (let round = 1; ; round++) {
    // Recorded by an earlier pass that stopped before the attempt event.
    const recorded = loaded.state.payments[payment.payment_id];
    if (recorded) return recorded.amount;
    const amount = chargeToApply(charged, loaded.state);
    if (amount === 0) return 0;
    try {
      // A stale `loaded` loses the append race and is decided again on the stream (the same amount).
      // The payment ends the charge attempt in the same append.
      await invoices.run(ctx, invoiceId, { type: 'RecordPayment', data: { ...payment, amount } }, { orgId, reason: 'automatic collection', loaded });
      return amount;
    } catch (err) {
      if (!(err instanceof DomainError && CHANGED_SINCE.has(err.code)) || round >= 5) throw err;
      loaded = await invoices.read(ctx, invoiceId, { fresh: true });
    }
  }
}

/** The collection worker as the composition root runs it. */
export const collectionWorker: Worker<CollectionPassResult> = { name: 'collection', runOnce: runCollectionPass };
