// The sandbox payment page that overdue status links to. It shows no amounts: the link is not a credential.
import type express from 'express';
import { escapeHtml } from './html.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Mounts GET /billing/pay/:customerId. */
export function mountPaymentPage(app: express.Express): void {
  app.get('/billing/pay/:customerId', (req, res) => {
    const id = String(req.params.customerId);
    res.set({ 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' });
    if (!UUID.test(id)) return void res.status(404).type('html').send('<!doctype html><title>Not found</title><p>No such payment page.</p>');
    res.type('html').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Pay your invoices (sandbox)</title></head>
<body>
<h1>Pay your invoices</h1>
<p>This is the sandbox payment provider: no money moves here.</p>
<p>Billing account <code>${escapeHtml(id)}</code>. Sign in to see what is owed (<code>billing.invoices.overdue-status.get</code>);
in the sandbox, billing staff record your bank transfer as a manual payment and access is restored on the next worker pass.</p>
</body></html>`);
  });
}
