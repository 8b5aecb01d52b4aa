// The target of the "Issue correction" form (issue 26 section 5): one call of billing.invoices.rerate.apply with the diff the
// clerk saw, a reason and a confirmation; success goes back to the invoice (PRG), a refusal shows the invoice page with it.
import type express from 'express';
import type { Services } from '../../../context.ts';
import { ops } from '../../../areas/operations.ts';
import { consoleRoute } from './route.ts';
import { formProblem } from './invoice-forms.ts';
import { invoicePage } from './invoice-page.ts';

/** Mounts the form's target: one call of billing.invoices.rerate.apply, then back to the invoice (PRG), or the page with the API's refusal. */
export function mountInvoiceCorrections(app: express.Express, services: Services): void {
  app.post('/console/invoices/:id/rerate/apply', ...consoleRoute(services, async (p) => {
    const id = String(p.req.params.id);
    const reason = (p.form.reason ?? '').trim();
    if (p.form.confirm !== 'yes') return invoicePage(p, id, { status: 400, problem: formProblem('Confirm that you checked the differences.', [{ path: 'confirm', message: 'required' }]) });
    if (!reason) return invoicePage(p, id, { status: 400, problem: formProblem('Say why: the reason is kept on the correction.', [{ path: 'reason', message: 'required' }]) });
    const r = await p.api.call(ops['billing.invoices.rerate.apply'], { invoice_id: id, diff_hash: p.form.diff_hash ?? '', reason }, { idempotencyKey: p.form.idem, reason });
    if (!r.ok) return invoicePage(p, id, { status: r.problem.status, problem: r.problem });
    p.res.redirect(303, `/console/invoices/${encodeURIComponent(id)}?done=correction_issued#corrections`);
  }));
}
