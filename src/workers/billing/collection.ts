// Automatic collection worker: for each open invoice of a customer with auto_collection, invokes billing.invoices.collect
// (src/commands/billing/collection.ts) as the system (job `collection-worker`), caused by the invoice's last event. The operation
// charges when a charge is due, retrying declines on a schedule; a pass with nothing due appends nothing.
import { type Services, systemAuth } from '../../context.ts';
import type { Worker } from '../worker.ts';
import { invoicesCollect } from '../../commands/billing/collection.ts';
import { invoices } from '../../commands/billing/handlers.ts';
import { newId } from '../../ids.ts';
import { causedBy } from '../../pipeline/causation.ts';
import { autoCollectedCustomers } from '../../queries/billing/payment-methods.ts';
import { unpaidInvoices } from '../../queries/billing/statements.ts';

/** What one pass did. */
export interface CollectionPassResult {
  charged: string[];
  declined: string[];
  /** Invoices another charge of which was in flight (a payment on the page): nothing charged, tried again on the next pass. */
  in_progress: string[];
}

/** One pass: every open invoice of an auto-collected customer gets one collect (which charges only when a charge is due). */
export async function runCollectionPass(services: Services): Promise<CollectionPassResult> {
  const result: CollectionPassResult = { charged: [], declined: [], in_progress: [] };
  const pass = newId();
  for (const customer of await autoCollectedCustomers(services.knex)) {
    const auth = systemAuth('collection-worker', customer.organization_id);
    for (const invoice of await unpaidInvoices(services.knex, customer.customer_id)) {
      const causation = await causedBy(services.store, invoices.stream(invoice.invoice_id));
      const method = { id: customer.method.id, type: customer.method.type, provider_ref: customer.method.provider_ref };
      const { body } = await services.invoke(invoicesCollect, { invoice_id: invoice.invoice_id, currency: invoice.currency, method }, { auth, requestId: pass, causation });
      if (body.outcome !== 'not_due') result[body.outcome].push(invoice.invoice_id);
    }
  }
  if (result.charged.length || result.declined.length || result.in_progress.length) services.logger.info({ ...result }, 'collection pass charged invoices');
  return result;
}

/** The collection worker as the composition root runs it. */
export const collectionWorker: Worker<CollectionPassResult> = { name: 'collection', runOnce: runCollectionPass };
