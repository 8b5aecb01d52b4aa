// "Erase personal data" on the customer page (issue 32): the danger zone's form asks the legal basis, the reason and a ticked
// box, then calls billing.customers.erase through invoke like every console form; a refusal fills the form again.
import type express from 'express';
import type { Services } from '../../../context.ts';
import { LegalBasis } from '../../../contract/schemas/billing-erasure.ts';
import { ops } from '../../../areas/operations.ts';
import { type SafeHtml, html } from '../html.ts';
import { field, formGuard } from './layout.ts';
import { type Refusal, errorOf, refusalOf, typed } from './form-state.ts';
import { type ConsolePage, consoleRoute } from './route.ts';
import { formProblem } from './invoice-forms.ts';
import { confirmField, reasonField } from './invoice-page.ts';
import { customerPage } from './customers.ts';

const FORM = 'erase';

/** Each legal basis in the clerk's words (UK GDPR / GDPR Art. 17(1)). */
const BASES: Record<(typeof LegalBasis.options)[number], string> = {
  no_longer_necessary: 'No longer necessary for its purpose (Art. 17(1)(a))',
  consent_withdrawn: 'Consent withdrawn (Art. 17(1)(b))',
  objection: 'Objection to processing (Art. 17(1)(c))',
  unlawful_processing: 'Unlawfully processed (Art. 17(1)(d))',
  legal_obligation: 'A legal obligation to erase (Art. 17(1)(e))',
  retention_rule: 'Our retention rule',
};

/** The danger zone of a customer page: the erasure form, or what an erasure left once done. */
export function erasureSection(p: ConsolePage, customer: { id: string; name: string; email: string }, r: Refusal | undefined): SafeHtml {
  const body = customer.email === '[erased]'
    ? html`<p>This customer's personal data was erased: see the <a href="/console/history?type=customer&amp;id=${customer.id}">history</a> for who asked, why, and what issued invoices keep until their retention period ends.</p>`
    : html`<form method="post" action="/console/customers/${customer.id}/erase" class="card danger-zone">${formGuard(p.session)}<h3>Erase personal data</h3>
<p class="muted">Erases the email, notes and attachment names for good, in the history too. The name, address and tax id on issued invoices are kept until the tax retention period ends, then erased. It cannot be undone.</p>
${field('erase-basis', 'Legal basis', html`<select id="erase-basis" name="legal_basis" required><option value="">Choose one</option>${LegalBasis.options.map((b) => html`<option value="${b}"${typed(r, FORM, 'legal_basis') === b ? html` selected` : ''}>${BASES[b]}</option>`)}</select>`, undefined, errorOf(r, FORM, 'legal_basis'))}
${reasonField(r, FORM, 'erase-reason', 'Reason (kept on the erasure, e.g. the ticket)')}
${confirmField(r, FORM, 'erase-confirm', `Yes, erase the personal data of ${customer.name} for good`)}
<div class="actions"><button type="submit" class="danger">Erase personal data</button></div></form>`;
  return html`<section aria-labelledby="danger"><h2 id="danger">Danger zone</h2>${body}</section>`;
}

/** Mounts POST /console/customers/:id/erase. */
export function mountCustomerErasure(app: express.Express, services: Services): void {
  app.post('/console/customers/:id/erase', ...consoleRoute(services, async (p) => {
    const id = String(p.req.params.id);
    const basis = (p.form.legal_basis ?? '').trim();
    const reason = (p.form.reason ?? '').trim();
    // Checked here too, not only by the browser: nothing is sent without a basis, a reason and the ticked box.
    const missing = [
      ...(basis ? [] : [{ path: 'legal_basis', message: 'Choose the legal basis of the erasure.' }]),
      ...(reason ? [] : [{ path: 'reason', message: 'Say why: the reason is kept on the erasure.' }]),
      ...(p.form.confirm === 'yes' ? [] : [{ path: 'confirm', message: 'Tick the box to confirm.' }]),
    ];
    if (missing.length) {
      const problem = formProblem('Nothing was erased: the legal basis, a reason and the ticked box are all needed.', missing);
      return customerPage(p, id, { status: 400, problem, refusal: refusalOf(FORM, p.form, problem) });
    }
    const r = await p.api.call(ops['billing.customers.erase'], { id, legal_basis: basis as (typeof LegalBasis.options)[number], reason }, { idempotencyKey: p.form.idem, reason });
    if (!r.ok) return customerPage(p, id, { status: r.problem.status, problem: r.problem, refusal: refusalOf(FORM, p.form, r.problem) });
    p.res.redirect(303, `/console/customers/${encodeURIComponent(id)}?done=customer_erased`);
  }));
}
