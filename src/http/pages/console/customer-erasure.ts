// "Erase personal data" on the customer page (issue 32): the danger zone's form (customer-erasure-section.ts) asks the legal basis, the reason and a ticked
// box, then calls billing.customers.erase through invoke like every console form; a refusal fills the form again.
import type express from 'express';
import type { Services } from '../../../context.ts';
import type { LegalBasis } from '../../../contract/schemas/billing-erasure.ts';
import { ops } from '../../../areas/operations.ts';
import { refusalOf } from './form-state.ts';
import { consoleRoute } from './route.ts';
import { formProblem } from './invoice-forms.ts';
import { customerPage } from './customers.ts';
import { ERASE_FORM } from './customer-erasure-section.ts';

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
      return customerPage(p, id, { status: 400, problem, refusal: refusalOf(ERASE_FORM, p.form, problem) });
    }
    const r = await p.api.call(ops['billing.customers.erase'], { id, legal_basis: basis as (typeof LegalBasis.options)[number], reason }, { idempotencyKey: p.form.idem, reason });
    if (!r.ok) return customerPage(p, id, { status: r.problem.status, problem: r.problem, refusal: refusalOf(ERASE_FORM, p.form, r.problem) });
    p.res.redirect(303, `/console/customers/${encodeURIComponent(id)}?done=customer_erased`);
  }));
}
