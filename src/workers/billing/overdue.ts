// Overdue worker: finds every customer whose access may change (unpaid invoices past their grace period, or access currently
// suspended) and invokes billing.customer-access.review for each as the system (job `overdue-worker`), caused by the last event of
// its oldest unpaid invoice (the debt) when it has one. A repeated pass is a no-op.
import { type Services, systemAuth } from '../../context.ts';
import type { Worker } from '../worker.ts';
import { isoDate } from '../../clock.ts';
import { customerAccessReview, overdueDueBy } from '../../commands/billing/access-review.ts';
import { invoices } from '../../commands/billing/handlers.ts';
import { newId } from '../../ids.ts';
import { causedBy } from '../../pipeline/causation.ts';
import { suspendedCustomers } from '../../queries/billing/access.ts';
import { customersOwingSince, unpaidInvoices } from '../../queries/billing/statements.ts';

/** What one pass did. */
export interface OverduePassResult {
  reviewed: number;
  suspended: string[];
  restored: string[];
}

/** Reviews every customer that may need a change: unpaid invoices past their grace period, or access currently suspended. */
export async function runOverduePass(services: Services): Promise<OverduePassResult> {
  const { knex, clock, config } = services;
  const overdue = await customersOwingSince(knex, overdueDueBy(isoDate(clock.now()), config.overdueGraceDays));
  const suspended = await suspendedCustomers(knex);
  const candidates = new Map<string, string>();
  for (const c of [...overdue, ...suspended]) candidates.set(c.customer_id, c.organization_id);
  const result: OverduePassResult = { reviewed: candidates.size, suspended: [], restored: [] };
  const pass = newId();
  for (const [customerId, organizationId] of candidates) {
    const debt = (await unpaidInvoices(knex, customerId))[0];
    const causation = debt ? await causedBy(services.store, invoices.stream(debt.invoice_id)) : null;
    const { body } = await services.invoke(customerAccessReview, { customer_id: customerId }, { auth: systemAuth('overdue-worker', organizationId), requestId: pass, causation });
    if (body.changed) result[body.changed].push(customerId);
  }
  if (result.suspended.length || result.restored.length) services.logger.info({ ...result }, 'overdue pass changed access');
  return result;
}

/** The overdue worker as the composition root runs it. */
export const overdueWorker: Worker<OverduePassResult> = { name: 'overdue', runOnce: runOverduePass };
