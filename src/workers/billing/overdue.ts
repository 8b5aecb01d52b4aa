// Overdue worker: suspends an organization's access when its suspension date arrives and restores it once the debt is paid.
// It reads the receivables read model and lets the access decider apply the policy, so a repeated pass is a no-op.
import type { Services } from '../../context.ts';
import type { Worker } from '../worker.ts';
import { addDays, isoDate } from '../../clock.ts';
import { customerAccess } from '../../commands/billing/handlers.ts';
import { IdSource } from '../../ids.ts';
import { suspendedCustomers } from '../../queries/billing/access.ts';
import { customersOwingSince, unpaidInvoices } from '../../queries/billing/statements.ts';
import { systemMetadata } from '../../pipeline/invoke.ts';

/** What one pass did. */
export interface OverduePassResult {
  reviewed: number;
  suspended: string[];
  restored: string[];
}

/** Reviews every customer that may need a change: unpaid invoices past their grace period, or access currently suspended. */
export async function runOverduePass(services: Services): Promise<OverduePassResult> {
  const { knex, clock, config } = services;
  const now = clock.now();
  const today = isoDate(now);
  const grace = config.overdueGraceDays;
  // due_date + grace <= today  <=>  due_date <= today - grace
  const dueBy = addDays(today, -grace);
  const overdue = await customersOwingSince(knex, dueBy);
  const suspended = await suspendedCustomers(knex);
  const candidates = new Map<string, string>();
  for (const c of [...overdue, ...suspended]) candidates.set(c.customer_id, c.organization_id);
  const result: OverduePassResult = { reviewed: candidates.size, suspended: [], restored: [] };
  for (const [customerId, organizationId] of candidates) {
    const unpaid = await unpaidInvoices(knex, customerId);
    const ctx = {
      store: services.store,
      ids: IdSource.random(now),
      now,
      metadata: systemMetadata({ job: 'overdue-worker', orgId: organizationId }),
    };
    const res = await customerAccess.run(ctx, customerId, {
      type: 'ReviewAccess',
      data: { customer_id: customerId, organization_id: organizationId, today, grace_days: grace, unpaid },
    }, { orgId: organizationId, reason: 'overdue policy review' });
    for (const e of res.events) {
      if (e.type === 'AccessSuspended') result.suspended.push(customerId);
      else result.restored.push(customerId);
    }
  }
  if (result.suspended.length || result.restored.length) services.logger.info({ ...result }, 'overdue pass changed access');
  return result;
}

/** The overdue worker as the composition root runs it. */
export const overdueWorker: Worker<OverduePassResult> = { name: 'overdue', runOnce: runOverduePass };
