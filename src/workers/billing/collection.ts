// Automatic collection worker: charges the default method of customers with auto_collection for their open invoices, retrying declines on a schedule.
// A success records a payment on the invoice stream (like a manual one); each attempt is an event on `collection-<invoice id>`.
import type { Services } from '../../context.ts';
import type { Worker } from '../worker.ts';
import { isoDate } from '../../clock.ts';
import { collections, invoices } from '../../commands/billing/handlers.ts';
import { chargeDue } from '../../domain/billing/collection.ts';
import { DomainError } from '../../domain/errors.ts';
import { IdSource, nameId } from '../../ids.ts';
import { paymentProvider } from '../../payments/sandbox.ts';
import { autoCollectedCustomers } from '../../queries/billing/payment-methods.ts';
import { unpaidInvoices } from '../../queries/billing/statements.ts';

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
      metadata: { org_id: customer.organization_id, actor: { type: 'system' as const, id: 'collection-worker' }, request_id: null, correlation_id: null, causation_id: null },
    };
    for (const invoice of await unpaidInvoices(knex, customer.customer_id)) {
      const state = await collections.load(ctx, invoice.invoice_id);
      if (!chargeDue(state, now)) continue;
      const attempt = state.attempts + 1;
      // The first attempt's key is the invoice id; a retry is a new charge with its own key.
      const key = attempt === 1 ? invoice.invoice_id : `${invoice.invoice_id}:${attempt}`;
      const charge = await provider.charge({ method_ref: customer.method.provider_ref, amount: invoice.amount_remaining, currency: invoice.currency, idempotency_key: key });
      if (charge.status === 'succeeded') {
        try {
          await invoices.run(ctx, invoice.invoice_id, {
            type: 'RecordPayment',
            data: { payment_id: nameId('billing-auto-collection', key), amount: invoice.amount_remaining, currency: invoice.currency, method: customer.method.type, reference: charge.charge_ref, received_on: isoDate(now) },
          }, { orgId: customer.organization_id, reason: 'automatic collection' });
        } catch (err) {
          // Recorded by an earlier pass that stopped before the attempt event.
          if (!(err instanceof DomainError && err.code === 'payment_exists')) throw err;
        }
        result.charged.push(invoice.invoice_id);
      } else result.declined.push(invoice.invoice_id);
      await collections.run(ctx, invoice.invoice_id, {
        type: 'RecordCharge',
        data: {
          invoice_id: invoice.invoice_id, attempt, payment_method_id: customer.method.id, charge_ref: charge.charge_ref, amount: invoice.amount_remaining,
          outcome: charge.status === 'succeeded' ? { status: 'succeeded' } : { status: 'failed', code: charge.code },
        },
      }, { orgId: customer.organization_id });
    }
  }
  if (result.charged.length || result.declined.length) services.logger.info({ ...result }, 'collection pass charged invoices');
  return result;
}

/** The collection worker as the composition root runs it. */
export const collectionWorker: Worker<CollectionPassResult> = { name: 'collection', runOnce: runCollectionPass };
