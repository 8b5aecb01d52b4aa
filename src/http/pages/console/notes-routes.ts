// The routes of notes and attachments on a customer or invoice page: add or edit a note, open a file. A refusal
// re-renders the page the form came from, with the problem.
import type express from 'express';
import type { Services } from '../../../context.ts';
import { ops } from '../../../areas/operations.ts';
import { UUID } from './layout.ts';
import { consoleRoute } from './route.ts';
import { customerPage } from './customers.ts';
import { invoicePage } from './invoice-page.ts';
import { formProblem } from './invoice-forms.ts';
import type { Subject } from './sections.ts';

// The subject of a submitted note form; the page to go back to is derived from it, never taken from the form as a URL.
function subjectOf(form: Record<string, string>): Subject | null {
  const type = form.subject_type;
  const id = form.subject_id ?? '';
  return (type === 'customer' || type === 'invoice') && UUID.test(id) ? { type, id } : null;
}

function pageOf(s: Subject): string {
  return s.type === 'customer' ? `/console/customers/${s.id}` : `/console/invoices/${s.id}`;
}

/** Mounts adding and editing notes, and opening an attachment (through its short-lived download URL). */
export function mountNotes(app: express.Express, services: Services): void {
  app.get('/console/files/:type/:subject/:id', ...consoleRoute(services, async (p) => {
    const subject = subjectOf({ subject_type: String(p.req.params.type), subject_id: String(p.req.params.subject) });
    if (!subject) return void p.res.redirect(303, '/console/customers');
    const id = String(p.req.params.id);
    const r = subject.type === 'customer'
      ? await p.api.call(ops['billing.customers.attachments.get'], { customer_id: subject.id, id })
      : await p.api.call(ops['billing.invoices.attachments.get'], { invoice_id: subject.id, id });
    if (r.ok) return void p.res.redirect(303, r.body.url);
    await (subject.type === 'customer' ? customerPage(p, subject.id, { status: r.problem.status, problem: r.problem }) : invoicePage(p, subject.id, { status: r.problem.status, problem: r.problem }));
  }));
  app.post('/console/notes', ...consoleRoute(services, async (p) => {
    const subject = subjectOf(p.form);
    if (!subject) return void p.res.redirect(303, '/console/customers');
    const r = await p.api.call(ops['billing.notes.insert'], { subject, body: p.form.body ?? '' }, { idempotencyKey: p.form.idem });
    if (r.ok) return void p.res.redirect(303, `${pageOf(subject)}?done=note_added`);
    await (subject.type === 'customer' ? customerPage(p, subject.id, { status: r.problem.status, problem: r.problem }) : invoicePage(p, subject.id, { status: r.problem.status, problem: r.problem }));
  }));
  app.post('/console/notes/:id', ...consoleRoute(services, async (p) => {
    const subject = subjectOf(p.form);
    if (!subject) return void p.res.redirect(303, '/console/customers');
    const reason = (p.form.reason ?? '').trim();
    if (!reason) {
      const problem = formProblem('Say why the note changes: the reason is kept in the audit trail.', [{ path: 'reason', message: 'required' }]);
      return void (await (subject.type === 'customer' ? customerPage(p, subject.id, { status: 400, problem }) : invoicePage(p, subject.id, { status: 400, problem })));
    }
    const r = await p.api.call(ops['billing.notes.update'], { id: String(p.req.params.id), body: p.form.body ?? '' }, { idempotencyKey: p.form.idem, reason });
    if (r.ok) return void p.res.redirect(303, `${pageOf(subject)}?done=note_saved`);
    await (subject.type === 'customer' ? customerPage(p, subject.id, { status: r.problem.status, problem: r.problem }) : invoicePage(p, subject.id, { status: r.problem.status, problem: r.problem }));
  }));
}
