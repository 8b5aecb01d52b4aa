// Retention worker (issue 32): for each erased customer whose invoice retention period (INVOICE_RETENTION_YEARS after its
// last issued invoice) has ended, invokes billing.customers.end-retention as the system (job `retention-worker`), caused by
// the customer's last event. A repeated pass is a no-op.
import { type Services, systemAuth } from '../../context.ts';
import type { Worker } from '../worker.ts';
import { customers } from '../../commands/billing/handlers.ts';
import { customersEndRetention } from '../../commands/billing/retention-end.ts';
import { newId } from '../../ids.ts';
import { causedBy } from '../../pipeline/causation.ts';
import { retentionEnded } from '../../queries/billing/personal-subjects.ts';

/** Erases the kept invoice details of every customer whose retention ended; answers their ids. */
export async function runRetentionPass(services: Services): Promise<string[]> {
  const pass = newId();
  const done: string[] = [];
  for (const c of await retentionEnded(services.knex, services.clock.now().toISOString().slice(0, 10))) {
    const causation = await causedBy(services.store, customers.stream(c.customerId));
    const { body } = await services.invoke(customersEndRetention, { customer_id: c.customerId }, { auth: systemAuth('retention-worker', c.organizationId), requestId: pass, causation });
    if (body.changed) done.push(c.customerId);
  }
  if (done.length) services.logger.info({ customers: done.length }, 'retained invoice details erased');
  return done;
}

/** The retention worker as the composition root runs it. */
export const retentionWorker: Worker<string[]> = { name: 'billing.retention', runOnce: runRetentionPass };
