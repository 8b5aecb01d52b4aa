// Issue 28 item 7: the PDFs a customer receives (invoice, credit note, receipt), downloaded through their signed URLs and read
// back as text the way a PDF viewer shows it.
import { expect } from 'chai';
import crypto from 'node:crypto';
import { TestClock } from '../../src/clock.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { type BilledOrg, billedOrg, billingStaff, draft, openInvoice, paymentBody } from '../support/billing.ts';
import { ops } from '../support/ops.ts';
import { pdfText } from '../support/pdf.ts';

const ADDRESS = { line1: '12 Harbour Road', line2: 'Unit 4', city: 'Bristol', postal_code: 'BS1 5TT', country: 'GB' };

async function download(url: string): Promise<{ bytes: Buffer; type: string | null; disposition: string | null }> {
  const res = await fetch(url);
  expect(res.status).to.equal(200);
  return { bytes: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition') };
}

for (const backend of backends()) {
  describe(`billing documents: invoice, credit note and receipt PDFs (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    let acme: BilledOrg;
    const clock = new TestClock('2026-03-10T09:00:00.000Z');
    before(async () => {
      svc = await startService(backend, { clock, env: { INVOICE_SELLER_NAME: 'Northwind Billing Ltd', INVOICE_SELLER_ADDRESS: '5 Quay Street | Manchester | M3 3HN | GB' } });
      staff = await billingStaff(svc);
      acme = await billedOrg(svc);
      const named = await svc.call(ops['billing.customers.update'], { id: acme.customerId, name: 'Acme Widgets plc', billing_address: ADDRESS }, staff);
      expect(named.status, JSON.stringify(named.body)).to.equal(200);
    });
    after(async () => svc?.close());

    it("a finalized invoice's PDF shows seller, customer, number, lines, totals, payments, credits, amount due and the payment link; the same invoice gives the same bytes", async () => {
      const inv = await openInvoice(svc, staff, acme.customerId, [100_000, 38_650]);
      expect((await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 50_000, { reference: 'BACS-7731' }), staff)).status).to.equal(200);
      const cn = await svc.call(ops['billing.credit-note-requests.insert'], { invoice_id: inv.id, amount: 8_650, currency: 'GBP', reason: 'duplicate', description: 'Charged twice' }, acme.token);
      await svc.call(ops['billing.credit-note-requests.update'], { id: cn.body.id, action: 'approve' }, staff);
      expect((await svc.call(ops['billing.credit-note-requests.update'], { id: cn.body.id, action: 'issue' }, staff)).status).to.equal(200);

      const r = await svc.call(ops['billing.invoices.document.get'], { invoice_id: inv.id }, acme.token);
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body.filename).to.equal(`invoice-${inv.number}.pdf`);
      const file = await download(r.body.url);
      expect(file.type).to.equal('application/pdf');
      expect(file.disposition).to.include(`invoice-${inv.number}.pdf`);
      expect(file.bytes.subarray(0, 5).toString()).to.equal('%PDF-');
      const text = await pdfText(file.bytes);
      for (const want of [
        'Invoice', String(inv.number), 'Northwind Billing Ltd', '5 Quay Street', 'Manchester', 'Acme Widgets plc', '12 Harbour Road', 'Unit 4', 'BS1 5TT Bristol', 'ap@example.com',
        'Line 1', '£1,000.00', 'Line 2', '£386.50', 'Total', '£1,386.50', 'Paid', '-£500.00', 'BACS-7731', 'Credited', '-£86.50', 'Charged twice',
        'Amount due', '£800.00', 'How to pay', `/billing/pay/${acme.customerId}`,
      ]) expect(text, want).to.include(want);

      // Rendered again from the same records: the same file (deterministic bytes, fixed creation date).
      const again = await download((await svc.call(ops['billing.invoices.document.get'], { invoice_id: inv.id }, staff)).body.url);
      expect(crypto.createHash('sha256').update(again.bytes).digest('hex')).to.equal(crypto.createHash('sha256').update(file.bytes).digest('hex'));
    });

    it('a credit note and a payment receipt have their PDFs too', async () => {
      const inv = await openInvoice(svc, staff, acme.customerId, [20_000]);
      const pay = await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 5_000, { reference: 'CHQ-0042' }), staff);
      const receipt = await svc.call(ops['billing.payments.document.get'], { payment_id: pay.body.payment.id }, acme.token);
      expect(receipt.status, JSON.stringify(receipt.body)).to.equal(200);
      const rText = await pdfText((await download(receipt.body.url)).bytes);
      for (const want of ['Payment receipt', 'Acme Widgets plc', '12 Harbour Road', String(inv.number), 'CHQ-0042', '£50.00', '£150.00']) expect(rText, want).to.include(want);

      const cn = await svc.call(ops['billing.credit-note-requests.insert'], { invoice_id: inv.id, amount: 2_500, currency: 'GBP', reason: 'order_change', description: 'Two seats fewer' }, acme.token);
      const early = await svc.call(ops['billing.credit-notes.document.get'], { credit_note_request_id: cn.body.id }, acme.token);
      expect(early.status).to.equal(409);
      expect(early.body.code).to.equal('credit_note_not_issued');
      await svc.call(ops['billing.credit-note-requests.update'], { id: cn.body.id, action: 'approve' }, staff);
      await svc.call(ops['billing.credit-note-requests.update'], { id: cn.body.id, action: 'issue' }, staff);
      const note = await svc.call(ops['billing.credit-notes.document.get'], { credit_note_request_id: cn.body.id }, acme.token);
      expect(note.status, JSON.stringify(note.body)).to.equal(200);
      const cText = await pdfText((await download(note.body.url)).bytes);
      for (const want of ['Credit note', 'Acme Widgets plc', String(inv.number), 'Two seats fewer', '£25.00', '£125.00']) expect(cText, want).to.include(want);
    });

    it('drafts have no document, other organizations see none, and bad input is a 400 naming the field', async () => {
      const d = await draft(svc, staff, acme.customerId, [1000]);
      const refused = await svc.call(ops['billing.invoices.document.get'], { invoice_id: d.id }, staff);
      expect(refused.status).to.equal(409);
      expect(refused.body.code).to.equal('invoice_is_draft');
      const inv = await openInvoice(svc, staff, acme.customerId, [1000]);
      const other = await billedOrg(svc);
      expect((await svc.call(ops['billing.invoices.document.get'], { invoice_id: inv.id }, other.token)).status).to.equal(404);
      const bad = await svc.send('billing.invoices.document.get', { invoice_id: 'INV-1' }, acme.token);
      expect(bad.status).to.equal(400);
      expect(JSON.stringify(bad.body)).to.include('invoice_id');
    });
  });
}
