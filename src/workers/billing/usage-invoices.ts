// Usage invoice worker: once a calendar month has ended, invokes billing.invoices.generate-due as the system (job
// `usage-invoices-worker`) for every subscription with usage in it. Generation is idempotent (the invoice id is derived from
// subscription and month), so a repeated pass is a no-op. A month ending causes the work, not an event: the events of one pass
// share its correlation id.
import { type Services, systemAuth } from '../../context.ts';
import type { Worker } from '../worker.ts';
import { DomainError } from '../../domain/errors.ts';
import { newId } from '../../ids.ts';
import { monthRange, usageInvoiceId } from '../../commands/billing/usage-invoices.ts';
import { invoicesGenerateDue } from '../../commands/billing/usage-invoices-due.ts';
import { getInvoiceDoc } from '../../queries/billing/invoices.ts';
import { usageMonths } from '../../queries/billing/usage.ts';

/** How many ended months a pass looks back over: a worker down for a while still invoices them. */
export const LOOKBACK_MONTHS = 3;

/** What one pass did. */
export interface UsageInvoicesPassResult {
  generated: { subscription_id: string; period: string; invoice_id: string }[];
  /** Months that could not be invoiced yet (unrateable orders, no customer): retried on every pass. */
  refused: { subscription_id: string; period: string; code: string }[];
}

/** Generates the missing drafts of the last LOOKBACK_MONTHS ended months. */
export async function runUsageInvoicesPass(services: Services): Promise<UsageInvoicesPassResult> {
  const now = services.clock.now();
  const current = now.toISOString().slice(0, 7);
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - LOOKBACK_MONTHS, 1)).toISOString();
  const result: UsageInvoicesPassResult = { generated: [], refused: [] };
  const pass = newId();
  for (const { subscription_id, month } of await usageMonths(services.knex, first, monthRange(current).from)) {
    if (await getInvoiceDoc(services.db, usageInvoiceId(subscription_id, month))) continue;
    try {
      const { body } = await services.invoke(invoicesGenerateDue, { subscription_id, period: month }, { auth: systemAuth('usage-invoices-worker'), correlationId: pass, reason: `usage of ${month}` });
      result.generated.push({ subscription_id, period: month, invoice_id: body.invoice_id });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      result.refused.push({ subscription_id, period: month, code: err.code });
    }
  }
  if (result.generated.length || result.refused.length) services.logger.info({ ...result }, 'usage invoices pass');
  return result;
}

/** The usage invoice worker as the composition root runs it. */
export const usageInvoicesWorker: Worker<UsageInvoicesPassResult> = { name: 'usage-invoices', runOnce: runUsageInvoicesPass };
