// The invoice PDF as a pure function: a usage invoice's metered lines are summed up, and the same data gives the same bytes.
import { expect } from 'chai';
import { renderInvoicePdf, type InvoiceDocumentData } from '../../src/documents/billing.ts';
import { pdfText } from '../support/pdf.ts';

const data: InvoiceDocumentData = {
  seller: { name: 'Northwind Billing Ltd', address: ['5 Quay Street', 'Manchester'] },
  customer: { name: 'Garage Partners GmbH', address: ['Hauptstrasse 1', '10115 Berlin', 'DE'], email: 'ap@garage.example' },
  invoice: {
    id: '01a216ba-78ab-7095-8367-b60202437a79', number: 'INV-000042', status: 'open', currency: 'EUR', subtotal: 12_345, total: 12_345, amount_paid: 0, amount_credited: 0, amount_remaining: 12_345,
    memo: null, issue_date: '2026-03-01', due_date: '2026-03-31', finalized_at: '2026-03-01T00:05:00.000Z', created_at: '2026-03-01T00:00:00.000Z',
    lines: [{
      kind: 'metered', description: 'Marketplace fees, February 2026', quantity: 1, unit_amount: 12_345, amount: 12_345,
      metered: { subscription_id: 's', period: '2026-02', classification: 'platform_introduced', rate_bps: 250, minimum_fee: 0, pricing_revision_id: 'p', baseline_revision_id: null, order_count: 17, order_amount: 493_800, exempt_amount: 0, chargeable_amount: 493_800 },
    }],
  },
  payments: [], credit_notes: [], payment_instructions: 'Pay by bank transfer to DE89 3704 0044 0532 0130 00.', payment_url: 'https://billing.example/billing/pay/c1',
};

describe('invoice PDF (pure rendering)', () => {
  it('summarises the metered lines of a usage invoice and prints the payment instructions', async () => {
    const text = await pdfText(await renderInvoicePdf(data));
    for (const want of ['Usage summary', '2026-02', '17 platform introduced', '€4,938.00', '2.50%', '€123.45', 'Amount due', 'DE89 3704 0044 0532 0130 00', 'https://billing.example/billing/pay/c1', 'Hauptstrasse 1'])
      expect(text, want).to.include(want);
  });

  it('is deterministic: the same data gives the same bytes, dated by the invoice', async () => {
    const [a, b] = [await renderInvoicePdf(data), await renderInvoicePdf(data)];
    expect(a.equals(b)).to.equal(true);
    expect(a.toString('latin1')).to.include('D:20260301000500Z');
  });
});
