// billing.invoices.insert and .update: drafts, line and detail edits, and the status machine (finalize, void, mark uncollectible).
import { operation } from '../../api/operation.ts';
import { ApiError } from '../../api/errors.ts';
import type { RequestContext } from '../../context.ts';
import { InvoiceCreateRequest, InvoiceDetail, InvoiceUpdateRequest } from '../../api/schemas/billing-invoices.ts';
import { addDays, isoDate } from '../../clock.ts';
import { type InvoiceLine, assertFinalizable, invoiceDecider } from '../../domain/billing/invoice.ts';
import { allocationEventId, formatInvoiceNumber, invoiceNumberStream } from '../../domain/billing/invoice-number.ts';
import { type LogPosition, comparePositions } from '../../eventstore/port.ts';

import { getCustomerDoc, visibleCustomer } from '../../queries/billing/customers.ts';
import { visibleInvoice } from '../../queries/billing/invoices.ts';
import { loadAggregate, runCommand } from '../run.ts';
import { billingInvoicesProjection } from '../../projections/billing/invoices.ts';
import { billingErrors } from '../../domain/billing/errors.ts';

/** Writers racing on one invoice stream re-decide on fresh state this many times before giving up with 409. */
export const INVOICE_ATTEMPTS = 50;

/** Stream id of an invoice. */
export function invoiceStream(id: string): string {
  return `invoice-${id}`;
}

/** The later of two log positions (null when neither command appended). */
export function laterPosition(a: LogPosition | null, b: LogPosition | null): LogPosition | null {
  return comparePositions(a, b) >= 0 ? a : b;
}

/** Request lines -> stored lines: the amount is always quantity x unit_amount. */
function toLines(lines: { kind: 'manual'; description: string; quantity: number; unit_amount: number }[]): InvoiceLine[] {
  return lines.map((l) => ({ kind: l.kind, description: l.description, quantity: l.quantity, unit_amount: l.unit_amount, amount: l.quantity * l.unit_amount }));
}

/**
 * Reserves the next number of `year` for the invoice. The counter stream's n-th event is number n, so
 * numbers have no gaps; appends are serialized by the store's per-stream lock, so no retries are needed.
 * The event id is derived from the invoice, so a retried finalize gets its first number back.
 */
export async function allocateInvoiceNumber(ctx: RequestContext, invoiceId: string, year: number): Promise<string> {
  const res = await ctx.store.appendToStream(
    invoiceNumberStream(year),
    [{ id: allocationEventId(invoiceId, year), type: 'InvoiceNumberAllocated', data: { invoice_id: invoiceId, year, allocated_at: ctx.now.toISOString() }, metadata: { ...ctx.metadata, org_id: null } }],
    { expectedRevision: 'any', now: ctx.now },
  );
  return formatInvoiceNumber(year, Number(res.nextExpectedRevision) + 1);
}

/**
 * Finalizes a draft. Order matters: every check that can refuse runs before a number is reserved; the
 * reservation is bound to this invoice, so the one write after it (the finalize) can only be retried,
 * never leave a number unused by another invoice.
 */
async function finalize(ctx: RequestContext, invoiceId: string, orgId: string, reason: string | undefined) {
  const { state } = await loadAggregate(ctx.store, invoiceDecider, invoiceStream(invoiceId));
  assertFinalizable(state);
  const customer = await getCustomerDoc(ctx.services.knex, state.ref!.customer_id);
  if (!customer) throw billingErrors.error('customer_not_found', 'The invoice\'s customer does not exist.');
  if (customer.status === 'removed') throw billingErrors.error('customer_removed', 'The customer was removed; its drafts cannot be finalized.');
  const issueDate = isoDate(ctx.now);
  const number = await allocateInvoiceNumber(ctx, invoiceId, ctx.now.getUTCFullYear());
  return runCommand(ctx, invoiceDecider, invoiceStream(invoiceId), {
    type: 'FinalizeInvoice',
    data: { number, issue_date: issueDate, due_date: addDays(issueDate, customer.payment_terms_days), payment_terms_days: customer.payment_terms_days, now: ctx.now.toISOString() },
  }, { orgId, reason, maxAttempts: INVOICE_ATTEMPTS });
}

/** billing.invoices.insert */
export const invoicesInsert = operation({
  id: 'billing.invoices.insert',
  surface: 'core',
  tags: ['Billing'],
  summary: 'Creates a draft invoice with manual lines, in the customer\'s currency unless another is given.',
  request: InvoiceCreateRequest,
  response: InvoiceDetail,
  error: 'billing.InvoiceInsertError',
  errors: billingErrors.list('invalid_request', 'customer_not_found', 'customer_removed', 'invalid_line', 'amount_too_large'),
  access: 'billing_staff',
  write: true,
  async handle(ctx, req) {
    const customer = await visibleCustomer(ctx, req.customer_id);
    if (customer.status === 'removed') throw billingErrors.error('customer_removed', 'The customer was removed; it cannot be invoiced.');
    const id = ctx.ids.next();
    const res = await runCommand(ctx, invoiceDecider, invoiceStream(id), {
      type: 'DraftInvoice',
      data: {
        invoice_id: id, organization_id: customer.organization_id, customer_id: customer.id, currency: req.currency ?? customer.currency,
        lines: toLines(req.lines), memo: req.memo ?? null, metadata: req.metadata, now: ctx.now.toISOString(),
      },
    }, { orgId: customer.organization_id });
    await ctx.waitFor(res.position, [billingInvoicesProjection]);
    return visibleInvoice(ctx, id);
  },
});

/** billing.invoices.update */
export const invoicesUpdate = operation({
  id: 'billing.invoices.update',
  surface: 'core',
  tags: ['Billing'],
  summary: 'Changes a draft\'s lines, an invoice\'s memo or metadata, and moves its status (finalize, void, mark_uncollectible).',
  description: 'Only drafts change lines; open and uncollectible invoices change memo and metadata; paid and void invoices do not change. A transition the machine does not allow is 409 naming the current status.',
  request: InvoiceUpdateRequest,
  response: InvoiceDetail,
  error: 'billing.InvoiceUpdateError',
  errors: billingErrors.list('invoice_not_found', 'invoice_not_draft', 'invoice_final', 'invalid_status_transition', 'invoice_has_payments', 'customer_removed', 'invalid_line', 'amount_too_large'),
  access: 'billing_staff',
  write: true,
  async handle(ctx, req) {
    const doc = await visibleInvoice(ctx, req.id);
    const opts = { orgId: doc.organization_id, reason: req.reason, maxAttempts: INVOICE_ATTEMPTS };
    const now = ctx.now.toISOString();
    let position: LogPosition | null = null;
    if (req.lines !== undefined || req.memo !== undefined || req.metadata !== undefined) {
      const lines = req.lines === undefined ? undefined : toLines(req.lines);
      const res = await runCommand(ctx, invoiceDecider, invoiceStream(req.id), { type: 'UpdateInvoice', data: { lines, memo: req.memo, metadata: req.metadata, now } }, opts);
      position = laterPosition(position, res.position);
    }
    if (req.action) {
      const stream = invoiceStream(req.id);
      const res =
        req.action === 'finalize'
          ? await finalize(ctx, req.id, doc.organization_id, req.reason)
          : await runCommand(ctx, invoiceDecider, stream, req.action === 'void' ? { type: 'VoidInvoice', data: { now } } : { type: 'MarkInvoiceUncollectible', data: { now } }, opts);
      position = laterPosition(position, res.position);
    }
    await ctx.waitFor(position, [billingInvoicesProjection]);
    return visibleInvoice(ctx, req.id);
  },
});

/** Write operations of invoices. */
export const billingInvoiceCommands = [invoicesInsert, invoicesUpdate];
