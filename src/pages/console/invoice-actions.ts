// Every write on an invoice page: a form becomes one API call (with the form's idempotency key and the clerk's
// reason as Svc-Reason); success redirects back (PRG), a refusal re-renders the page with the API's answer.
import type express from 'express';
import { z } from 'zod';
import type { Services } from '../../context.ts';
import { InvoiceDetail, PaymentInsertResponse, PaymentUpdateResponse } from '../../contract/schemas/billing-invoices.ts';
import { CreditNoteReason, CreditNoteRequestDetail } from '../../contract/schemas/billing-credit-notes.ts';
import type { ApiProblem } from './api.ts';
import { parseMoney } from './layout.ts';
import { type ConsolePage, consoleRoute } from './route.ts';
import { formProblem, readLines } from './invoice-forms.ts';
import { invoicePage } from './invoice-page.ts';

/** What one submitted form asks of the API, or a problem found before calling it. */
type Call = { op: string; body: unknown; schema: z.ZodType; done: string; reason?: boolean } | { problem: ApiProblem };

const CREDIT_ACTIONS = ['approve', 'reject', 'cancel', 'issue'] as const;

/** Mounts the invoice actions: lines, finalize, void, uncollectible, payments (record, change, void) and credits (raise, approve, reject, cancel, issue). */
export function mountInvoiceActions(app: express.Express, services: Services): void {
  const action = (path: string, build: (p: ConsolePage, invoice: z.output<typeof InvoiceDetail>) => Call) =>
    app.post(path, ...consoleRoute(services, async (p) => {
      const id = String(p.req.params.id);
      const inv = await p.api.call('billing.invoices.get', id, InvoiceDetail);
      if (!inv.ok) return invoicePage(p, id, { status: inv.problem.status, problem: inv.problem });
      const call = build(p, inv.body);
      if ('problem' in call) return invoicePage(p, id, { status: call.problem.status, problem: call.problem });
      const reason = (p.form.reason ?? '').trim();
      // Destructive steps always ask why; the API keeps the answer in the events' metadata.
      if (call.reason && !reason) return invoicePage(p, id, { status: 400, problem: formProblem('Say why: the reason is kept in the audit trail.', [{ path: 'reason', message: 'required' }]) });
      const r = await p.api.call(call.op, call.body, call.schema, { idempotencyKey: p.form.idem, reason: reason || undefined });
      if (!r.ok) return invoicePage(p, id, { status: r.problem.status, problem: r.problem });
      p.res.redirect(303, `/console/invoices/${encodeURIComponent(id)}?done=${call.done}`);
    }));

  action('/console/invoices/:id/lines', (p, i) => {
    const memo = (p.form.memo ?? '').trim();
    // Lines generated from usage are not the clerk's to edit: only the memo is sent.
    if (i.lines.some((l) => l.kind === 'metered')) return { op: 'billing.invoices.update', body: { id: i.id, memo: memo || null }, schema: InvoiceDetail, done: 'lines_saved' };
    const read = readLines(p.form, i.currency);
    if ('problem' in read) return read;
    return { op: 'billing.invoices.update', body: { id: i.id, lines: read.lines, memo: memo || null }, schema: InvoiceDetail, done: 'lines_saved' };
  });
  action('/console/invoices/:id/finalize', (_p, i) => ({ op: 'billing.invoices.update', body: { id: i.id, action: 'finalize' }, schema: InvoiceDetail, done: 'finalized' }));
  action('/console/invoices/:id/void', (p, i) => ({ op: 'billing.invoices.update', body: { id: i.id, action: 'void', ...why(p) }, schema: InvoiceDetail, done: 'voided', reason: true }));
  action('/console/invoices/:id/uncollectible', (p, i) => ({ op: 'billing.invoices.update', body: { id: i.id, action: 'mark_uncollectible', ...why(p) }, schema: InvoiceDetail, done: 'uncollectible', reason: true }));
  action('/console/invoices/:id/payments', (p, i) => {
    const amount = amountOf(p, i.currency);
    if (typeof amount !== 'number') return amount;
    const body = { invoice_id: i.id, amount, currency: i.currency, method: p.form.method, reference: p.form.reference ?? '', received_on: p.form.received_on ?? '' };
    return { op: 'billing.payments.insert', body, schema: PaymentInsertResponse, done: 'payment_recorded' };
  });
  action('/console/invoices/:id/payments/:payment', (p, i) => {
    const amount = amountOf(p, i.currency);
    if (typeof amount !== 'number') return amount;
    const body = { id: String(p.req.params.payment), amount, method: p.form.method, reference: p.form.reference ?? '', received_on: p.form.received_on ?? '', reason: p.form.reason?.trim() ?? '' };
    return { op: 'billing.payments.update', body, schema: PaymentUpdateResponse, done: 'payment_saved', reason: true };
  });
  action('/console/invoices/:id/payments/:payment/void', (p) => ({
    op: 'billing.payments.update', body: { id: String(p.req.params.payment), void: true, reason: p.form.reason?.trim() ?? '' }, schema: PaymentUpdateResponse, done: 'payment_voided', reason: true,
  }));
  action('/console/invoices/:id/credits', (p, i) => {
    const amount = amountOf(p, i.currency);
    if (typeof amount !== 'number') return amount;
    const reason = CreditNoteReason.safeParse(p.form.credit_reason);
    const body = { invoice_id: i.id, amount, currency: i.currency, reason: reason.success ? reason.data : 'other', description: p.form.description ?? '' };
    return { op: 'billing.credit-note-requests.insert', body, schema: CreditNoteRequestDetail, done: 'credit_raised' };
  });
  action('/console/invoices/:id/credits/:credit/:action', (p) => {
    const act = CREDIT_ACTIONS.find((a) => a === p.req.params.action);
    if (!act) return { problem: formProblem('Unknown credit note action.') };
    return { op: 'billing.credit-note-requests.update', body: { id: String(p.req.params.credit), action: act, ...(p.form.reason?.trim() ? { comment: p.form.reason.trim() } : {}) }, schema: CreditNoteRequestDetail, done: `credit_${act}`, reason: true };
  });
}

// The amount field in minor units, or the problem to show.
function amountOf(p: ConsolePage, currency: string): number | { problem: ApiProblem } {
  return parseMoney(p.form.amount, currency) ?? { problem: formProblem(`The amount must be like 12.50 in ${currency}.`, [{ path: 'amount', message: 'not an amount' }]) };
}

// The operation's own reason field, where it has one (the header carries it as well).
function why(p: ConsolePage): { reason?: string } {
  const r = p.form.reason?.trim();
  return r ? { reason: r } : {};
}
