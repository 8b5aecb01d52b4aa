// Automatic collection worker: charges the default method of customers with auto_collection for their open invoices, retrying declines on a schedule.
// A success records a payment on the invoice stream (like a manual one); each attempt is an event on `collection-<invoice id>`.
import type { CommandContext, Services } from '../../context.ts';
import type { Worker } from '../worker.ts';
import { isoDate } from '../../clock.ts';
import { collections, invoices } from '../../commands/billing/handlers.ts';
import { chargeDue, chargeToApply, collectable } from '../../domain/billing/collection.ts';
import type { InvoiceState, PaymentDetails } from '../../domain/billing/invoice-events.ts';
import type { LoadedAggregate } from '../../commands/run.ts';
import { DomainError } from '../../domain/errors.ts';
import { IdSource, nameId } from '../../ids.ts';
import { paymentProvider } from '../../payments/sandbox.ts';
import { autoCollectedCustomers } from '../../queries/billing/payment-methods.ts';
import { unpaidInvoices } from '../../queries/billing/statements.ts';
import { systemMetadata } from '../../pipeline/invoke.ts';

/** What one pass did. */
export interface CollectionPassResult {
  charged: string[];
  declined: string[];
}

/** One pass: every open invoice of an auto-collected customer whose charge is due gets one attempt. */
export async function runCollectionPass(services: Services): Promise<CollectionPassResult> {
  const { knex, clock } = services;
  const now = clock.now();
  const result: CollectionPassResult = { charged: [], declined: [] };
  const provider = paymentProvider(services);
  for (const customer of await autoCollectedCustomers(knex)) {
    const ctx = {
      store: services.store,
      ids: IdSource.random(now),
      now,
      metadata: systemMetadata({ job: 'collection-worker', orgId: customer.organization_id }),
    };
    for (const invoice of await unpaidInvoices(knex, customer.customer_id)) {
      const state = await collections.load(ctx, invoice.invoice_id);
      if (!chargeDue(state, now)) continue;
      // The read model may be behind the invoice's stream (a payment just recorded): charge what the stream says is owed.
      const read = await invoices.read(ctx, invoice.invoice_id, { fresh: true });
      const owed = collectable(read.state);
      if (owed === 0) continue;
      const attempt = state.attempts + 1;
      // The first attempt's key is the invoice id; a retry is a new charge with its own key.
      const key = attempt === 1 ? invoice.invoice_id : `${invoice.invoice_id}:${attempt}`;
      const charge = await provider.charge({ method_ref: customer.method.provider_ref, amount: owed, currency: invoice.currency, idempotency_key: key });
      let applied = 0;
      if (charge.status === 'succeeded') {
        const payment = { payment_id: nameId('billing-auto-collection', key), currency: invoice.currency, method: customer.method.type, reference: charge.charge_ref, received_on: isoDate(now) };
        applied = await applyCharge(ctx, invoice.invoice_id, charge.amount, payment, customer.organization_id, read);
        if (applied < charge.amount) {
          services.logger.warn({ invoice_id: invoice.invoice_id, charge_ref: charge.charge_ref, charged: charge.amount, applied, refund_due: charge.amount - applied }, 'automatic collection charged more than the invoice still owed: the rest is to be refunded');
        }
        result.charged.push(invoice.invoice_id);
      } else result.declined.push(invoice.invoice_id);
      await collections.run(ctx, invoice.invoice_id, {
        type: 'RecordCharge',
        data: {
          invoice_id: invoice.invoice_id, attempt, payment_method_id: customer.method.id, charge_ref: charge.charge_ref, amount: charge.status === 'succeeded' ? charge.amount : owed,
          outcome: charge.status === 'succeeded' ? { status: 'succeeded', applied } : { status: 'failed', code: charge.code },
        },
      }, { orgId: customer.organization_id });
    }
  }
  if (result.charged.length || result.declined.length) services.logger.info({ ...result }, 'collection pass charged invoices');
  return result;
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
  payment: Omit<PaymentDetails, 'amount'> & { payment_id: string; currency: string },
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
