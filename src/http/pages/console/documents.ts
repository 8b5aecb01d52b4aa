// The PDFs of the console (issue 28): an invoice's, a payment's receipt and an issued credit note's. Each link asks the
// document operation for a short-lived signed URL as the signed-in staff member and sends the browser there.
import type express from 'express';
import type { Services } from '../../../context.ts';
import { ops } from '../../../areas/operations.ts';
import { html } from '../html.ts';
import { sendConsole } from './layout.ts';
import { type ConsolePage, consoleRoute } from './route.ts';
import type { ApiResult } from './api.ts';

/** The path of an invoice's PDF in the console. */
export const invoicePdfPath = (invoiceId: string) => `/console/invoices/${invoiceId}/pdf`;
/** The path of a payment's receipt PDF in the console. */
export const receiptPdfPath = (paymentId: string) => `/console/payments/${paymentId}/pdf`;
/** The path of an issued credit note's PDF in the console. */
export const creditNotePdfPath = (requestId: string) => `/console/credit-notes/${requestId}/pdf`;

function redirectOrProblem(p: ConsolePage, r: ApiResult<{ url: string }>, back: string): void {
  if (r.ok) return void p.res.redirect(303, r.body.url);
  sendConsole(p.res, p.session, r.problem.status, { title: 'Document', section: 'invoices', problem: r.problem, body: html`<h1>No document</h1><p><a href="${back}">Back</a></p>` });
}

/** Mounts the three document links. */
export function mountDocuments(app: express.Express, services: Services): void {
  app.get('/console/invoices/:id/pdf', ...consoleRoute(services, async (p) => {
    const id = String(p.req.params.id);
    redirectOrProblem(p, await p.api.call(ops['billing.invoices.document.get'], { invoice_id: id }), `/console/invoices/${id}`);
  }));
  app.get('/console/payments/:id/pdf', ...consoleRoute(services, async (p) => {
    redirectOrProblem(p, await p.api.call(ops['billing.payments.document.get'], { payment_id: String(p.req.params.id) }), '/console/invoices');
  }));
  app.get('/console/credit-notes/:id/pdf', ...consoleRoute(services, async (p) => {
    redirectOrProblem(p, await p.api.call(ops['billing.credit-notes.document.get'], { credit_note_request_id: String(p.req.params.id) }), '/console/invoices');
  }));
}
