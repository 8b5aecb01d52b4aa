// Every write on an invoice page: a form becomes one API call (with the form's idempotency key and the clerk's
// reason as Svc-Reason); success redirects back (PRG), a refusal re-renders the page with the API's answer.
import type express from 'express';
import type { z } from 'zod';
import type { Services } from '../../../context.ts';
import { type InvoiceDetail, PaymentMethod } from '../../../contract/schemas/billing-invoices.ts';
import { CreditNoteReason } from '../../../contract/schemas/billing-credit-notes.ts';
import type { JsonOperation } from '../../../contract/operation.ts';
import type { ApiProblem, ApiResult, ConsoleApi, RequestOf, WriteOptions } from './api.ts';
import { parseMoney } from './layout.ts';
import { ops } from '../../../areas/operations.ts';
import { type ConsolePage, consoleRoute } from './route.ts';
import { formProblem, readLines } from './invoice-forms.ts';
import { invoicePage } from './invoice-page.ts';

/** What one submitted form asks of the API (an operation with its input, typed by its declaration), or a problem found before calling it. */
type Call = { send: (api: ConsoleApi, opts: WriteOptions) => Promise<ApiResult<unknown>>; done: string; reason?: boolean } | { problem: ApiProblem };

/** A call of `op` with `input`; `done` names the message shown after it; `reason`: the form must say why. */
function calling<Op extends JsonOperation>(op: Op, input: RequestOf<Op>, done: string, reason = false): Call {
  return { send: (api, opts) => api.call(op, input, opts), done, reason };
}

const CREDIT_ACTIONS = ['approve', 'reject', 'cancel', 'issue'] as const;

/** Mounts the invoice actions: lines, finalize, void, uncollectible, payments (record, change, void) and credits (raise, approve, reject, cancel, issue). */
export function mountInvoiceActions(app: express.Express, services: Services): void {
  const action = (path: string, build: (p: ConsolePage, invoice: z.output<typeof InvoiceDetail>) => Call) =>
    app.post(path, ...consoleRoute(services, async (p) => {
      const id = String(p.req.params.id);
      const inv = await p.api.call(ops['billing.invoices.get'], id);
      if (!inv.ok) return invoicePage(p, id, { status: inv.problem.status, problem: inv.problem });
      const call = build(p, inv.body);
      if ('problem' in call) return invoicePage(p, id, { status: call.problem.status, problem: call.problem });
      const reason = (p.form.reason ?? '').trim();
      // Destructive steps always ask why; the API keeps the answer in the events' metadata.
      if (call.reason && !reason) return invoicePage(p, id, { status: 400, problem: formProblem('Say why: the reason is kept in the audit trail.', [{ path: 'reason', message: 'required' }]) });
      const r = await call.send(p.api, { idempotencyKey: p.form.idem, reason: reason || undefined });
      if (!r.ok) return invoicePage(p, id, { status: r.problem.status, problem: r.problem });
      p.res.redirect(303, `/console/invoices/${encodeURIComponent(id)}?done=${call.done}`);
    }));

  action('/console/invoices/:id/lines', (p, i) => {
    const memo = (p.form.memo ?? '').trim();
    // Lines generated from usage are not the clerk's to edit: only the memo is sent.
    if (i.lines.some((l) => l.kind === 'metered')) return calling(ops['billing.invoices.update'], { id: i.id, memo: memo || null }, 'lines_saved');
    const read = readLines(p.form, i.currency);
    if ('problem' in read) return read;
    return calling(ops['billing.invoices.update'], { id: i.id, lines: read.lines, memo: memo || null }, 'lines_saved');
  });
  action('/console/invoices/:id/finalize', (_p, i) => calling(ops['billing.invoices.update'], { id: i.id, action: 'finalize' }, 'finalized'));
  action('/console/invoices/:id/void', (p, i) => calling(ops['billing.invoices.update'], { id: i.id, action: 'void', ...why(p) }, 'voided', true));
  action('/console/invoices/:id/uncollectible', (p, i) => calling(ops['billing.invoices.update'], { id: i.id, action: 'mark_uncollectible', ...why(p) }, 'uncollectible', true));
  action('/console/invoices/:id/payments', (p, i) => {
    const amount = amountOf(p, i.currency);
    if (typeof amount !== 'number') return amount;
    const method = methodOf(p);
    if (typeof method !== 'string') return method;
    const body = { invoice_id: i.id, amount, currency: i.currency, method, reference: p.form.reference ?? '', received_on: p.form.received_on ?? '' };
    return calling(ops['billing.payments.insert'], body, 'payment_recorded');
  });
  action('/console/invoices/:id/payments/:payment', (p, i) => {
    const amount = amountOf(p, i.currency);
    if (typeof amount !== 'number') return amount;
    const method = methodOf(p);
    if (typeof method !== 'string') return method;
    const body = { id: String(p.req.params.payment), amount, method, reference: p.form.reference ?? '', received_on: p.form.received_on ?? '', reason: p.form.reason?.trim() ?? '' };
    return calling(ops['billing.payments.update'], body, 'payment_saved', true);
  });
  action('/console/invoices/:id/payments/:payment/void', (p) => calling(ops['billing.payments.update'], { id: String(p.req.params.payment), void: true, reason: p.form.reason?.trim() ?? '' }, 'payment_voided', true));
  action('/console/invoices/:id/credits', (p, i) => {
    const amount = amountOf(p, i.currency);
    if (typeof amount !== 'number') return amount;
    const reason = CreditNoteReason.safeParse(p.form.credit_reason);
    const body = { invoice_id: i.id, amount, currency: i.currency, reason: reason.success ? reason.data : 'other', description: p.form.description ?? '' };
    return calling(ops['billing.credit-note-requests.insert'], body, 'credit_raised');
  });
  action('/console/invoices/:id/credits/:credit/:action', (p) => {
    const act = CREDIT_ACTIONS.find((a) => a === p.req.params.action);
    if (!act) return { problem: formProblem('Unknown credit note action.') };
    return calling(ops['billing.credit-note-requests.update'], { id: String(p.req.params.credit), action: act, ...(p.form.reason?.trim() ? { comment: p.form.reason.trim() } : {}) }, `credit_${act}`, true);
  });
}

// The amount field in minor units, or the problem to show.
function amountOf(p: ConsolePage, currency: string): number | { problem: ApiProblem } {
  return parseMoney(p.form.amount, currency) ?? { problem: formProblem(`The amount must be like 12.50 in ${currency}.`, [{ path: 'amount', message: 'not an amount' }]) };
}

// The method chosen from the form's list, or the problem to show (only a form not sent from the page names another).
function methodOf(p: ConsolePage): z.output<typeof PaymentMethod> | { problem: ApiProblem } {
  const method = PaymentMethod.safeParse(p.form.method);
  return method.success ? method.data : { problem: formProblem('Choose one of the payment methods listed.', [{ path: 'method', message: 'not a payment method' }]) };
}

// The operation's own reason field, where it has one (the header carries it as well).
function why(p: ConsolePage): { reason?: string } {
  const r = p.form.reason?.trim();
  return r ? { reason: r } : {};
}
