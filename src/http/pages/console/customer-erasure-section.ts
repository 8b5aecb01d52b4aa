// The customer page's danger zone (issue 32): the "Erase personal data" form (legal basis, reason, a ticked box), or what an
// erasure left once done. Its route is customer-erasure.ts.
import { LegalBasis } from '../../../contract/schemas/billing-erasure.ts';
import { type SafeHtml, html } from '../html.ts';
import { field, formGuard } from './layout.ts';
import { type Refusal, errorOf, typed } from './form-state.ts';
import type { ConsolePage } from './route.ts';
import { confirmField, reasonField } from './invoice-page.ts';

/** The form's name in a refusal. */
export const ERASE_FORM = 'erase';

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
${field('erase-basis', 'Legal basis', html`<select id="erase-basis" name="legal_basis" required><option value="">Choose one</option>${LegalBasis.options.map((b) => html`<option value="${b}"${typed(r, ERASE_FORM, 'legal_basis') === b ? html` selected` : ''}>${BASES[b]}</option>`)}</select>`, undefined, errorOf(r, ERASE_FORM, 'legal_basis'))}
${reasonField(r, ERASE_FORM, 'erase-reason', 'Reason (kept on the erasure, e.g. the ticket)')}
${confirmField(r, ERASE_FORM, 'erase-confirm', `Yes, erase the personal data of ${customer.name} for good`)}
<div class="actions"><button type="submit" class="danger">Erase personal data</button></div></form>`;
  return html`<section aria-labelledby="danger"><h2 id="danger">Danger zone</h2>${body}</section>`;
}
