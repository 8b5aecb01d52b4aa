// The sandbox provider's hosted pages: setup (/sandbox/setup/<ref>: test card numbers, the extra authentication step, bank mandate
// confirmation) and payment (/sandbox/pay/<ref>: pay an amount with a test card).
import express from 'express';
import type { Services } from '../../context.ts';
import { type SandboxProvider, TEST_CARDS } from '../../payments/sandbox.ts';
import { html } from './html.ts';
import { formatMoney } from '../../documents/money.ts';
import { sendErrorPage, sendPage } from './layout.ts';

const REF = /^seti_sbx_[0-9a-f]{32}$/;
const PAYMENT_REF = /^pi_sbx_[0-9a-f]{32}$/;

/** Mounts the sandbox setup page and its form posts. */
export function mountSandboxPages(app: express.Express, services: Services, sandbox: SandboxProvider): void {
  const form = express.urlencoded({ extended: false, limit: '4kb' });
  const provider = () => sandbox;
  const origin = (url: string) => new URL(url).origin;

  app.get('/sandbox/setup/:ref', async (req, res) => {
    const ref = String(req.params.ref);
    const s = REF.test(ref) ? await provider().pageState(ref) : null;
    if (!s) return sendErrorPage(res, 404, 'Not found', 'No such setup.');
    const back = html`<p><a href="${s.return_url}">Return to the merchant</a></p>`;
    const base = `/sandbox/setup/${ref}`;
    if (s.stage === 'done') return sendPage(res, 200, 'Setup finished', html`<h1>Setup finished</h1><p>Status: <span id="status">${s.status}</span>.</p>${back}`);
    if (s.stage === 'extra_step')
      return sendPage(res, 200, 'Authenticate', html`<h1>Confirm it is you</h1><p>Your bank asks you to authenticate this card (sandbox).</p>
<form method="post" action="${base}/authenticate"><input type="hidden" name="result" value="pass"><button type="submit" id="authenticate">Complete authentication</button></form>
<form method="post" action="${base}/authenticate"><input type="hidden" name="result" value="fail"><button type="submit" id="fail-authentication">Fail authentication</button></form>`, [origin(s.return_url)]);
    if (s.type === 'bank_debit')
      return sendPage(res, 200, 'Set up a bank debit', html`<h1>Authorise a bank debit (sandbox)</h1><p>Sandbox Bank, account ending 6789.</p>
<form method="post" action="${base}/mandate"><button type="submit" id="confirm-mandate">Confirm the mandate</button></form>${back}`, [origin(s.return_url)]);
    const error = req.query.error === 'invalid' ? html`<p role="alert">That is not a sandbox test card number.</p>` : '';
    return sendPage(res, 200, 'Save a card', html`<h1>Save a card (sandbox)</h1><p>No money moves here. Test numbers: ${TEST_CARDS.succeeds} succeeds,
${TEST_CARDS.declined} is declined, ${TEST_CARDS.requiresAction} needs an extra step, ${TEST_CARDS.chargeDeclined} is saved but its charges are declined.</p>${error}
<form method="post" action="${base}"><label>Card number <input name="number" id="card-number" autocomplete="off" inputmode="numeric" required></label>
<label>Expiry <input name="expiry" id="card-expiry" placeholder="MM/YY"></label><label>CVC <input name="cvc" id="card-cvc"></label>
<button type="submit" id="save-card">Save card</button></form>${back}`, [origin(s.return_url)]);
  });

  app.post('/sandbox/setup/:ref', form, async (req, res) => {
    const ref = String(req.params.ref);
    const s = REF.test(ref) ? await provider().pageState(ref) : null;
    if (!s) return sendErrorPage(res, 404, 'Not found', 'No such setup.');
    const body: unknown = req.body;
    const number = body && typeof body === 'object' && 'number' in body ? String(body.number) : '';
    const outcome = await provider().submitCard(ref, number);
    if (outcome === 'done') return void res.redirect(303, s.return_url);
    res.redirect(303, `/sandbox/setup/${ref}${outcome === 'invalid' ? '?error=invalid' : ''}`);
  });

  app.post('/sandbox/setup/:ref/authenticate', form, async (req, res) => {
    const ref = String(req.params.ref);
    const s = REF.test(ref) ? await provider().pageState(ref) : null;
    if (!s) return sendErrorPage(res, 404, 'Not found', 'No such setup.');
    const body: unknown = req.body;
    const passed = !!body && typeof body === 'object' && 'result' in body && body.result === 'pass';
    if (!(await provider().completeExtraStep(ref, passed))) return void res.redirect(303, `/sandbox/setup/${ref}`);
    res.redirect(303, s.return_url);
  });

  app.post('/sandbox/setup/:ref/mandate', async (req, res) => {
    const ref = String(req.params.ref);
    const s = REF.test(ref) ? await provider().pageState(ref) : null;
    if (!s) return sendErrorPage(res, 404, 'Not found', 'No such setup.');
    if (!(await provider().confirmMandate(ref))) return void res.redirect(303, `/sandbox/setup/${ref}`);
    res.redirect(303, s.return_url);
  });

  app.get('/sandbox/pay/:ref', async (req, res) => {
    const ref = String(req.params.ref);
    const p = PAYMENT_REF.test(ref) ? await provider().paymentPageState(ref) : null;
    if (!p) return sendErrorPage(res, 404, 'Not found', 'No such payment.');
    const amount = formatMoney(p.amount, p.currency);
    const back = html`<p><a href="${p.return_url}">Return to the merchant</a></p>`;
    if (p.stage === 'done') return sendPage(res, 200, 'Payment finished', html`<h1>Payment finished</h1><p>Status: <span id="status">${p.status}</span>.</p>${back}`);
    const error = req.query.error === 'invalid' ? html`<p role="alert">That is not a sandbox test card number.</p>` : '';
    return sendPage(res, 200, 'Pay', html`<h1>Pay ${amount} (sandbox)</h1><p>No money moves here. Test numbers: ${TEST_CARDS.succeeds} succeeds, ${TEST_CARDS.declined} and ${TEST_CARDS.chargeDeclined} are declined.</p>${error}
<form method="post" action="/sandbox/pay/${ref}"><label>Card number <input name="number" id="card-number" autocomplete="off" inputmode="numeric" required></label>
<label>Expiry <input name="expiry" id="card-expiry" placeholder="MM/YY"></label><label>CVC <input name="cvc" id="card-cvc"></label>
<button type="submit" id="pay">Pay ${amount}</button></form>${back}`, [origin(p.return_url)]);
  });

  app.post('/sandbox/pay/:ref', form, async (req, res) => {
    const ref = String(req.params.ref);
    const p = PAYMENT_REF.test(ref) ? await provider().paymentPageState(ref) : null;
    if (!p) return sendErrorPage(res, 404, 'Not found', 'No such payment.');
    const body: unknown = req.body;
    const number = body && typeof body === 'object' && 'number' in body ? String(body.number) : '';
    if ((await provider().submitPaymentCard(ref, number)) === 'invalid') return void res.redirect(303, `/sandbox/pay/${ref}?error=invalid`);
    res.redirect(303, p.return_url);
  });
}
