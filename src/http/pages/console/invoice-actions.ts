// Every write on an invoice page: a form becomes one API call (with the form's idempotency key and the clerk's
// reason as Svc-Reason); success redirects back (PRG), a refusal re-renders the page with the API's answer.
import type express from 'express';
import type { z } from 'zod';
import type { Services } from '../../../context.ts';
import { type InvoiceDetail, PaymentMethod } from '../../../contract/schemas/billing-invoices.ts';
import { CreditNoteReason } from '../../../contract/schemas/billing-credit-notes.ts';
import type { JsonOperation } from '../../../contract/operation.ts';
import type { ApiProblem, ApiResult, ConsoleApi, RequestOf, WriteOptions } from './api.ts';
import { minorDigits, money, parseMoney } from './layout.ts';
import { refusalOf } from './form-state.ts';
import { ops } from '../../../areas/operations.ts';
import { type ConsolePage, consoleRoute } from './route.ts';
import { formProblem, readLines } from './invoice-forms.ts';
import { invoicePage } from './invoice-page.ts';

/**
 * What one submitted form asks of the API (an operation with its input, typed by its declaration), or a problem found
 * before calling it. `reason`: the form must say why; `confirm`: a destructive step, whose box must be ticked too;
 * `fields`: API paths whose form field has another name; `explain`: a refusal's code put in words next to a field.
 */
type Call =
  | { send: (api: ConsoleApi, opts: WriteOptions) => Promise<ApiResult<unknown>>; done: string; reason?: boolean; confirm?: boolean; explain?: Explain }
  | { problem: ApiProblem };

/** A refusal code the API answers for a field, in the clerk's words (e.g. "More than the £1,386.50 still owed."). */
type Explain = Record<string, { field: string; words: string }>;

/** A call of `op` with `input`; `done` names the message shown after it. */
function calling<Op extends JsonOperation>(op: Op, input: RequestOf<Op>, done: string, opts: { reason?: boolean; confirm?: boolean; explain?: Explain } = {}): Call {
  return { send: (api, o) => api.call(op, input, o), done, ...opts };
}

const CREDIT_ACTIONS = ['approve', 'reject', 'cancel', 'issue'] as const;

/** Mounts the invoice actions: lines, finalize, void, uncollectible, payments (record, change, void) and credits (raise, approve, reject, cancel, issue). */
export function mountInvoiceActions(app: express.Express, services: Services): void {
  // `form`: which form of the page was sent (a refusal fills that one again, with its problems next to its fields).
  const action = (path: string, form: (p: ConsolePage) => string, build: (p: ConsolePage, invoice: z.output<typeof InvoiceDetail>) => Call) =>
    app.post(path, ...consoleRoute(services, async (p) => {
      const id = String(p.req.params.id);
      const inv = await p.api.call(ops['billing.invoices.get'], id);
      if (!inv.ok) return invoicePage(p, id, { status: inv.problem.status, problem: inv.problem });
      const key = form(p);
      const refused = (problem: ApiProblem, explain: Explain = {}) => {
        const refusal = refusalOf(key, p.form, problem);
        const words = explain[problem.code];
        if (!words) return invoicePage(p, id, { status: problem.status, problem, refusal });
        // The refusal in the clerk's words (money formatted), on top and next to the field.
        refusal.errors[words.field] = words.words;
        return invoicePage(p, id, { status: problem.status, problem: { ...problem, message: words.words }, refusal });
      };
      const call = build(p, inv.body);
      if ('problem' in call) return refused(call.problem);
      const reason = (p.form.reason ?? '').trim();
      // Destructive steps always ask why (the API keeps the answer in the events' metadata) and a ticked confirmation.
      const missing = [...(call.reason && !reason ? [{ path: 'reason', message: 'Say why: the reason is kept in the audit trail.' }] : []), ...(call.confirm && p.form.confirm !== 'yes' ? [{ path: 'confirm', message: 'Tick the box to confirm.' }] : [])];
      if (missing.length) return refused(formProblem(missing.some((m) => m.path === 'reason') ? 'Say why: the reason is kept in the audit trail.' : 'Tick the box to confirm: nothing was changed.', missing));
      const r = await call.send(p.api, { idempotencyKey: p.form.idem, reason: reason || undefined });
      if (!r.ok) return refused(r.problem, call.explain);
      p.res.redirect(303, `/console/invoices/${encodeURIComponent(id)}?done=${call.done}`);
    }));
  const fixed = (key: string) => () => key;
  const owed = (i: z.output<typeof InvoiceDetail>): Explain => ({ amount_exceeds_remaining: { field: 'amount', words: `More than the ${money(i.amount_remaining, i.currency)} still owed on the invoice.` } });

  action('/console/invoices/:id/lines', fixed('lines'), (p, i) => {
    const memo = (p.form.memo ?? '').trim();
    // Lines generated from usage are not the clerk's to edit: only the memo is sent.
    if (i.lines.some((l) => l.kind === 'metered')) return calling(ops['billing.invoices.update'], { id: i.id, memo: memo || null }, 'lines_saved');
    const read = readLines(p.form, i.currency);
    if ('problem' in read) return read;
    return calling(ops['billing.invoices.update'], { id: i.id, lines: read.lines, memo: memo || null }, 'lines_saved');
  });
  action('/console/invoices/:id/finalize', fixed('finalize'), (_p, i) => calling(ops['billing.invoices.update'], { id: i.id, action: 'finalize' }, 'finalized', { reason: true, confirm: true }));
  action('/console/invoices/:id/void', fixed('void'), (p, i) => calling(ops['billing.invoices.update'], { id: i.id, action: 'void', ...why(p) }, 'voided', { reason: true, confirm: true }));
  action('/console/invoices/:id/uncollectible', fixed('uncollectible'), (p, i) => calling(ops['billing.invoices.update'], { id: i.id, action: 'mark_uncollectible', ...why(p) }, 'uncollectible', { reason: true, confirm: true }));
  action('/console/invoices/:id/payments', fixed('payment'), (p, i) => {
    const amount = amountOf(p, i.currency);
    if (typeof amount !== 'number') return amount;
    const method = methodOf(p);
    if (typeof method !== 'string') return method;
    const body = { invoice_id: i.id, amount, currency: i.currency, method, reference: p.form.reference ?? '', received_on: p.form.received_on ?? '' };
    return calling(ops['billing.payments.insert'], body, 'payment_recorded', { explain: owed(i) });
  });
  action('/console/invoices/:id/payments/:payment', (p) => `payment-${String(p.req.params.payment)}`, (p, i) => {
    const amount = amountOf(p, i.currency);
    if (typeof amount !== 'number') return amount;
    const method = methodOf(p);
    if (typeof method !== 'string') return method;
    const body = { id: String(p.req.params.payment), amount, method, reference: p.form.reference ?? '', received_on: p.form.received_on ?? '', reason: p.form.reason?.trim() ?? '' };
    return calling(ops['billing.payments.update'], body, 'payment_saved', { reason: true, explain: owed(i) });
  });
  action('/console/invoices/:id/payments/:payment/void', (p) => `payment-void-${String(p.req.params.payment)}`, (p) =>
    calling(ops['billing.payments.update'], { id: String(p.req.params.payment), void: true, reason: p.form.reason?.trim() ?? '' }, 'payment_voided', { reason: true, confirm: true }));
  action('/console/invoices/:id/credits', fixed('credit'), (p, i) => {
    const amount = amountOf(p, i.currency);
    if (typeof amount !== 'number') return amount;
    const reason = CreditNoteReason.safeParse(p.form.credit_reason);
    const body = { invoice_id: i.id, amount, currency: i.currency, reason: reason.success ? reason.data : 'other', description: p.form.description ?? '' };
    return calling(ops['billing.credit-note-requests.insert'], body, 'credit_raised', { explain: { ...owed(i), amount_exceeds_creditable: { field: 'amount', words: 'More than can still be credited on this invoice.' } } });
  });
  action('/console/invoices/:id/credits/:credit/:action', (p) => `credit-${String(p.req.params.credit)}-${String(p.req.params.action)}`, (p) => {
    const act = CREDIT_ACTIONS.find((a) => a === p.req.params.action);
    if (!act) return { problem: formProblem('Unknown credit note action.') };
    return calling(ops['billing.credit-note-requests.update'], { id: String(p.req.params.credit), action: act, ...(p.form.reason?.trim() ? { comment: p.form.reason.trim() } : {}) }, `credit_${act}`, { reason: true });
  });
}

// The amount field in minor units, or the problem to show.
function amountOf(p: ConsolePage, currency: string): number | { problem: ApiProblem } {
  return parseMoney(p.form.amount, currency) ?? { problem: formProblem(`The amount must be like 12.50 in ${currency}.`, [{ path: 'amount', message: `Enter an amount like 12.50 (${currency}), with at most ${minorDigits(currency)} decimals.` }]) };
}

// The method chosen from the form's list, or the problem to show (only a form not sent from the page names another).
function methodOf(p: ConsolePage): z.output<typeof PaymentMethod> | { problem: ApiProblem } {
  const method = PaymentMethod.safeParse(p.form.method);
  return method.success ? method.data : { problem: formProblem('Choose one of the payment methods listed.', [{ path: 'method', message: 'Choose one of the payment methods listed.' }]) };
}

// The operation's own reason field, where it has one (the header carries it as well).
function why(p: ConsolePage): { reason?: string } {
  const r = p.form.reason?.trim();
  return r ? { reason: r } : {};
}
