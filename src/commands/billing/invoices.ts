// billing.invoices.insert and .update: drafts, line and detail edits, and the status machine (finalize, void, mark uncollectible).
import { operation } from '../../contract/operation.ts';
import { hasRole, type RequestContext } from '../../context.ts';
import { InvoiceCreateRequest, InvoiceDetail, InvoiceUpdateRequest } from '../../contract/schemas/billing-invoices.ts';
import { addDays, isoDate } from '../../clock.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import type { InvoiceAction, InvoiceCommand, InvoiceLine } from '../../domain/billing/invoice.ts';
import type { InvoiceRef, InvoiceState } from '../../domain/billing/invoice-events.ts';
import { allocationEventId, formatInvoiceNumber, invoiceNumberStream } from '../../domain/billing/invoice-number.ts';
import { billingInvoicesProjection } from '../../projections/billing/invoices.ts';
import { canSeeOrganization, getCustomerDoc, visibleCustomer } from '../../queries/billing/customers.ts';
import { recentInvoice, visibleInvoice } from '../../queries/billing/invoices.ts';
import type { LoadedAggregate, Unstamped } from '../run.ts';
import { invoices } from './handlers.ts';

/** The edits and action of billing.invoices.update, as the decider takes them. */
type InvoiceUpdate = Unstamped<Extract<InvoiceCommand, { type: 'UpdateInvoice' }>>['data'];

/** Request lines -> stored lines: the amount is always quantity x unit_amount. */
function toLines(lines: { kind: 'manual'; description: string; quantity: number; unit_amount: number }[]): InvoiceLine[] {
  return lines.map((l) => ({ kind: l.kind, description: l.description, quantity: l.quantity, unit_amount: l.unit_amount, amount: l.quantity * l.unit_amount }));
}

/**
 * The invoice as its stream says now, when the caller may see it (visibleInvoice's rule applied to the
 * stream's state), for a command that then runs on it with `loaded`: one read serves the 404 and the
 * decision. The stream, not the read model, so an invoice is found as soon as it is written.
 */
export async function readVisibleInvoice(ctx: RequestContext, id: string, opts: { fresh?: boolean } = {}): Promise<{ loaded: LoadedAggregate<InvoiceState>; ref: InvoiceRef }> {
  const visible = (s: InvoiceState) => s.ref && canSeeOrganization(ctx, s.ref.organization_id) && (hasRole(ctx.auth, 'billing_staff') || s.status !== 'draft');
  // An invoice's organization never changes and it never returns to draft: what a remembered state shows
  // visible still is; one it does not show (not yet seen here, or still a draft) is read from the stream.
  let loaded = await invoices.read(ctx, id, opts);
  if (!visible(loaded.state) && loaded.remembered) loaded = await invoices.read(ctx, id, { fresh: true });
  const { ref } = loaded.state;
  if (!ref || !visible(loaded.state)) throw billingErrors.error('invoice_not_found', `No invoice ${id} in this organization.`);
  return { loaded, ref };
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
  ctx.reached(res.position);
  return formatInvoiceNumber(year, Number(res.nextExpectedRevision) + 1);
}

/**
 * The finalize action of an update. Order matters: the whole decision (edits and finalize) is tried on the
 * current state first, so a refusal reserves no number; the reservation is bound to this invoice, so the one
 * write after it can only be retried, never leave a number unused by another invoice.
 */
async function finalizeAction(ctx: RequestContext, id: string, state: InvoiceState, ref: InvoiceRef, edits: Omit<InvoiceUpdate, 'action'>): Promise<InvoiceAction> {
  const customer = await getCustomerDoc(ctx.services.db, ref.customer_id);
  if (!customer) throw billingErrors.error('customer_not_found', 'The invoice\'s customer does not exist.');
  if (customer.status === 'removed') throw billingErrors.error('customer_removed', 'The customer was removed; its drafts cannot be finalized.');
  const issueDate = isoDate(ctx.now);
  const terms = { issue_date: issueDate, due_date: addDays(issueDate, customer.payment_terms_days), payment_terms_days: customer.payment_terms_days };
  invoices.decide(ctx, { type: 'UpdateInvoice', data: { ...edits, action: { type: 'FinalizeInvoice', data: { number: 'provisional', ...terms } } } }, state);
  const number = await allocateInvoiceNumber(ctx, id, ctx.now.getUTCFullYear());
  return { type: 'FinalizeInvoice', data: { number, ...terms } };
}

/** billing.invoices.insert */
export const invoicesInsert = operation({
  id: 'billing.invoices.insert',
  examples: {
    request: { customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329', lines: [{ description: 'Monthly platform fee', unit_amount: 12000 }], memo: 'Thank you for your business.' },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      number: 'INV-2026-0042',
      organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
      customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329',
      status: 'draft',
      currency: 'GBP',
      lines: [
        {
          kind: 'manual',
          description: 'Monthly platform fee',
          quantity: 1,
          unit_amount: 12000,
          amount: 12000,
        },
      ],
      subtotal: 12000,
      total: 12000,
      amount_paid: 0,
      amount_credited: 0,
      amount_credited_to_balance: 0,
      amount_remaining: 12000,
      memo: 'Thank you for your business.',
      metadata: {},
      issue_date: null,
      due_date: null,
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
      finalized_at: null,
      paid_at: null,
      voided_at: null,
      marked_uncollectible_at: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Creates a draft invoice with manual lines, in the customer\'s currency unless another is given.',
  request: InvoiceCreateRequest,
  response: InvoiceDetail,
  error: 'billing.InvoiceInsertError',
  errors: billingErrors.list('invalid_request', 'customer_not_found', 'customer_removed', 'invalid_line', 'amount_too_large'),
  access: 'billing_staff',
  write: true,
  readModels: [billingInvoicesProjection],
  async handle(ctx, req) {
    const customer = await visibleCustomer(ctx, req.customer_id);
    if (customer.status === 'removed') throw ctx.errors.error('customer_removed', 'The customer was removed; it cannot be invoiced.');
    const id = ctx.ids.next();
    const res = await invoices.run(ctx, id, {
      type: 'DraftInvoice',
      data: {
        invoice_id: id, organization_id: customer.organization_id, customer_id: customer.id, currency: req.currency ?? customer.currency,
        lines: toLines(req.lines), memo: req.memo ?? null, metadata: req.metadata,
      },
    }, { orgId: customer.organization_id, expectNew: true });
    await ctx.readYourWrites();
    // The document the projection committed for this write is the answer (the customer's visibility was checked above).
    return recentInvoice(ctx.services.knex, id, res.position) ?? visibleInvoice(ctx, id);
  },
});

/** billing.invoices.update */
export const invoicesUpdate = operation({
  id: 'billing.invoices.update',
  examples: {
    request: { id: '019387ea-5dfc-7b8e-884d-848979496e70' },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      number: 'INV-2026-0042',
      organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
      customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329',
      status: 'draft',
      currency: 'GBP',
      lines: [
        {
          kind: 'manual',
          description: 'Monthly platform fee',
          quantity: 1,
          unit_amount: 12000,
          amount: 12000,
        },
      ],
      subtotal: 12000,
      total: 12000,
      amount_paid: 0,
      amount_credited: 0,
      amount_credited_to_balance: 0,
      amount_remaining: 12000,
      memo: 'Thank you for your business.',
      metadata: {},
      issue_date: null,
      due_date: null,
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
      finalized_at: null,
      paid_at: null,
      voided_at: null,
      marked_uncollectible_at: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Changes a draft\'s lines, an invoice\'s memo or metadata, and moves its status (finalize, void, mark_uncollectible).',
  description: 'Only drafts change lines; open and uncollectible invoices change memo and metadata; paid and void invoices do not change. A transition the machine does not allow is 409 naming the current status.',
  request: InvoiceUpdateRequest,
  response: InvoiceDetail,
  error: 'billing.InvoiceUpdateError',
  errors: billingErrors.list('invoice_not_found', 'invoice_not_draft', 'invoice_has_metered_lines', 'invoice_final', 'invalid_status_transition', 'invoice_has_payments', 'customer_not_found', 'customer_removed', 'invalid_line', 'too_many_lines', 'negative_total', 'amount_too_large'),
  access: 'billing_staff',
  write: true,
  readModels: [billingInvoicesProjection],
  async handle(ctx, req) {
    // Finalize reserves a number before it appends: it decides on the stream as it is, never on a remembered state.
    const { loaded, ref } = await readVisibleInvoice(ctx, req.id, { fresh: req.action === 'finalize' });
    // Edits and status change are one decision: a refused action keeps none of the edits.
    const edits = { lines: req.lines === undefined ? undefined : toLines(req.lines), memo: req.memo, metadata: req.metadata };
    const action: InvoiceAction | undefined =
      req.action === 'finalize' ? await finalizeAction(ctx, req.id, loaded.state, ref, edits)
      : req.action === 'void' ? { type: 'VoidInvoice' }
      : req.action === 'mark_uncollectible' ? { type: 'MarkInvoiceUncollectible' }
      : undefined;
    const res = await invoices.run(ctx, req.id, { type: 'UpdateInvoice', data: { ...edits, action } }, { orgId: ref.organization_id, reason: req.reason, loaded });
    await ctx.readYourWrites();
    return recentInvoice(ctx.services.knex, req.id, res.position) ?? visibleInvoice(ctx, req.id);
  },
});

/** Write operations of invoices. */
export const billingInvoiceCommands = [invoicesInsert, invoicesUpdate];
