// Usage invoice worker: once a calendar month has ended, invokes billing.invoices.generate-due as the system (job
// `usage-invoices-worker`) for every subscription month with orders no document bills: the month's draft, then the
// supplementary invoice of orders recorded late or fixed after being held (issue 26). Generation is idempotent (document ids
// are derived from subscription, month and sequence), so a repeated pass is a no-op. A month it cannot invoice is recorded
// (billing.usage.refusals.record: listed by billing.usage.refusals.list, counted by the gauge usage_months_refused), not
// only logged. A month ending causes the work, not an event: the events of one pass share its correlation id.
import { type Services, systemAuth } from '../../context.ts';
import type { Worker } from '../worker.ts';
import { DomainError } from '../../domain/errors.ts';
import { newId } from '../../ids.ts';
import { monthRange } from '../../commands/billing/usage-invoices.ts';
import { monthDocuments } from '../../queries/billing/month-documents.ts';
import { invoicesGenerateDue, usageRefusalsRecord } from '../../commands/billing/usage-invoices-due.ts';
import { orderCountOfInvoices } from '../../queries/billing/invoice-orders.ts';
import { usageMonthDoc } from '../../queries/billing/usage-months.ts';
import { usageByOrderIds, usageCountOfPeriod, usageMonths } from '../../queries/billing/usage.ts';

/** How many ended months a pass looks back over: a worker down for a while still invoices them. */
export const LOOKBACK_MONTHS = 3;

/** What one pass did. */
export interface UsageInvoicesPassResult {
  generated: { subscription_id: string; period: string; invoice_id: string; kind: 'regular' | 'supplementary' }[];
  /** Months that could not be invoiced yet (unrateable orders, no customer): recorded, and retried on every pass. */
  refused: { subscription_id: string; period: string; code: string }[];
}

/**
 * Whether a month has orders no document bills: no invoice yet, or orders beyond those its documents bill and those
 * held at their current facts (counted, not listed: a month may hold hundreds of thousands of orders).
 */
async function waiting(services: Services, subscriptionId: string, period: string): Promise<boolean> {
  const docs = await monthDocuments(services.knex, subscriptionId, period);
  if (docs.length === 0) return true;
  const { from, to } = monthRange(period);
  const open = (await usageCountOfPeriod(services.knex, subscriptionId, from, to)) - (await orderCountOfInvoices(services.knex, docs));
  if (open <= 0) return false;
  const held = Object.entries((await usageMonthDoc(services.knex, subscriptionId, period))?.held ?? {});
  const facts = await usageByOrderIds(services.knex, held.map(([id]) => id));
  const stillHeld = held.filter(([id, h]) => {
    const f = facts.get(id);
    return f && f.correction?.kind !== 'voided' && (f.revision ?? 0) === h.revision && f.occurred_at >= from && f.occurred_at < to;
  }).length;
  return open > stillHeld;
}

/** Generates the missing drafts and supplementary invoices of the last LOOKBACK_MONTHS ended months. */
export async function runUsageInvoicesPass(services: Services): Promise<UsageInvoicesPassResult> {
  const now = services.clock.now();
  const current = now.toISOString().slice(0, 7);
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - LOOKBACK_MONTHS, 1)).toISOString();
  const result: UsageInvoicesPassResult = { generated: [], refused: [] };
  const pass = newId();
  for (const { subscription_id, month } of await usageMonths(services.knex, first, monthRange(current).from)) {
    if (!(await waiting(services, subscription_id, month))) continue;
    const caller = { auth: systemAuth('usage-invoices-worker'), correlationId: pass, reason: `usage of ${month}` };
    try {
      const { body } = await services.invoke(invoicesGenerateDue, { subscription_id, period: month }, caller);
      if (body.kind !== 'unchanged') result.generated.push({ subscription_id, period: month, invoice_id: body.invoice_id, kind: body.kind });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      result.refused.push({ subscription_id, period: month, code: err.code });
      const issues = (err.issues ?? []).map((i) => ({ path: i.path, message: i.message }));
      await services.invoke(usageRefusalsRecord, { subscription_id, period: month, code: err.code, message: err.message, issues }, caller);
    }
  }
  if (result.generated.length || result.refused.length) services.logger.info({ ...result }, 'usage invoices pass');
  return result;
}

/** The usage invoice worker as the composition root runs it. */
export const usageInvoicesWorker: Worker<UsageInvoicesPassResult> = { name: 'usage-invoices', runOnce: runUsageInvoicesPass };
