// Re-rating corrections on the invoice page (issue 26 section 5): the "Issue correction" form under a re-rate preview
// (billing.invoices.rerate.apply with the diff the clerk saw, a reason and a confirmation), and the invoice's corrections
// (billing.invoices.corrections.list) with the credit note or correction invoice of each. The form's route is in invoice-correction-routes.ts.
import type { z } from 'zod';
import type { InvoiceDetail } from '../../../contract/schemas/billing-invoices.ts';
import type { InvoiceRerateDiff } from '../../../contract/schemas/billing-usage.ts';
import { formGuard, money, problemBox, table, when } from './layout.ts';
import { type SafeHtml, html } from '../html.ts';
import { ops } from '../../../areas/operations.ts';
import type { ConsolePage } from './route.ts';

type Invoice = z.output<typeof InvoiceDetail>;
type Diff = z.output<typeof InvoiceRerateDiff>;

const signed = (minor: number, currency: string) => `${minor > 0 ? '+' : ''}${money(minor, currency)}`;

/** The "Issue correction" form for the diff shown: what it will issue, a reason and a confirmation; nothing when nothing differs. */
export function correctionForm(p: ConsolePage, i: Invoice, d: Diff): SafeHtml {
  if (d.changed_order_count === 0) return html``;
  if (i.status !== 'open' && i.status !== 'paid' && i.status !== 'uncollectible')
    return html`<p class="muted">A correction is issued on a finalized invoice: this one is ${i.status}.</p>`;
  const cur = d.currency;
  const what = d.difference < 0
    ? `a credit note of ${money(-d.difference, cur)} on this invoice (it reduces what is owed, or becomes customer credit once paid)`
    : d.difference > 0 ? `a draft correction invoice of ${money(d.difference, cur)} for the same customer (finalize it like any invoice)`
      : 'a correction with no money to move (the orders are re-rated, their fees sum to the same)';
  return html`<form method="post" action="/console/invoices/${i.id}/rerate/apply" class="card" aria-labelledby="issue-correction">${formGuard(p.session)}
<h3 id="issue-correction">Issue correction</h3>
<p>Issues ${what}, for the ${d.changed_order_count} order(s) above. Applying the same diff twice issues it once; if the configuration changes before you submit, nothing is issued and you are asked to look again.</p>
<input type="hidden" name="diff_hash" value="${d.diff_hash}">
<label for="correction-reason">Reason (kept on the correction and in the audit trail)</label><textarea id="correction-reason" name="reason" required maxlength="1000"></textarea>
<label class="check"><input type="checkbox" name="confirm" value="yes" required> I have checked the differences above: issue ${signed(d.difference, cur)}.</label>
<div class="actions"><button type="submit">Issue correction</button></div></form>`;
}

/** The invoice's corrections, oldest first, each with its document. */
export async function correctionsCard(p: ConsolePage, i: Invoice): Promise<SafeHtml> {
  const r = await p.api.call(ops['billing.invoices.corrections.list'], { invoice_id: i.id, limit: 200 });
  if (!r.ok) return problemBox(r.problem);
  if (r.body.items.length === 0) return html``;
  const cur = i.currency;
  const rows = r.body.items.map((c) => [
    c.sequence, when(c.recorded_at), c.reason, c.order_count, signed(c.difference, cur),
    c.correction_invoice_id ? html`<a href="/console/invoices/${c.correction_invoice_id}">Correction invoice</a>`
      : c.credit_notes.length ? c.credit_notes.map((n) => html`<div>Credit note of ${money(n.amount, cur)} on ${n.invoice_id === i.id ? 'this invoice (see Credits)' : html`<a href="/console/invoices/${n.invoice_id}">a correction invoice</a>`}</div>`) : 'none',
  ]);
  return html`<section class="card" aria-labelledby="corrections"><h3 id="corrections">Corrections</h3>
<p class="muted">What the re-rate preview compares with: the invoice, then each order's latest correction.</p>
${table('Corrections of this invoice', ['#', 'Issued', 'Reason', 'Orders', 'Difference', 'Document'], rows)}</section>`;
}
