// The billing event feed, given events of every category: what the feed shows, to whom (staff-only drafts), and what never reaches it (notes).
import { backends } from '../../support/db.ts';
import type { InvoiceEvent } from '../../../src/domain/billing/invoice.ts';
import type { CustomerEvent } from '../../../src/domain/billing/customer.ts';
import type { NoteEvent } from '../../../src/domain/billing/note.ts';
import type { CreditNoteRequestEvent } from '../../../src/domain/billing/credit-note-request.ts';
import type { AccessEvent } from '../../../src/domain/billing/access.ts';
import { billingEventsProjection } from '../../../src/projections/billing/events.ts';
import { SPEC_START, on, projectionSpec } from '../spec.ts';
import { CNR, CUS, INV, LINES, NUMBER, ORG, P1, customerCreated, eventId, opened, requestIssued, settled } from './fixtures.ts';

const NOTE = '0190c6a2-0000-7000-8000-000000000f01';
const gbp = (amount: number) => ({ amount, currency: 'GBP' });
/** The n-th given event's feed row: recorded a second after the one before. */
const row = (n: number, staffOnly: boolean, doc: { type: string; subject: { type: string; id: string }; data: Record<string, unknown> }) => ({
  staff_only: staffOnly,
  organization_id: ORG,
  doc: { id: eventId(n), occurred_at: new Date(Date.parse(SPEC_START) + (n - 1) * 1000).toISOString(), ...doc },
});

for (const backend of backends()) {
  describe(`billing event feed projection spec (${backend})`, function () {
    this.timeout(60_000);
    const spec = projectionSpec(backend);

    it('maps customer, invoice, payment, credit note request and access events; drafts are staff-only; notes stay out', async () => {
      const c = customerCreated.data;
      const opts = { orgId: ORG };
      await spec.given(billingEventsProjection, [
        ...on<CustomerEvent>(`customer-${CUS}`, [customerCreated], opts),
        ...on<InvoiceEvent>(`invoice-${INV}`, [...opened, ...settled.slice(0, 1)], opts),
        ...on<NoteEvent>(`note-${NOTE}`, [{ type: 'NoteAdded', data: { note_id: NOTE, subject: { type: 'invoice', id: INV }, organization_id: ORG, body: 'Chase by phone', created_at: SPEC_START } }], opts),
        ...on<CreditNoteRequestEvent>(`creditnoterequest-${CNR}`, requestIssued.slice(0, 2), opts),
        ...on<AccessEvent>(`access-${CUS}`, [
          { type: 'AccessSuspended', data: { customer_id: CUS, organization_id: ORG, suspension_date: '2026-03-01', oldest_due_date: '2026-02-15', grace_days: 14, invoice_ids: [INV], suspended_at: '2026-03-01T00:05:00.000Z' } },
        ], opts),
      ]).then(
        {
          billing_events: [
            row(1, false, {
              type: 'customer.created', subject: { type: 'customer', id: CUS },
              data: { customer: { id: CUS, organization_id: ORG, name: c.name, email: c.email, billing_address: c.billing_address, currency: 'GBP', payment_terms_days: 30, tax_id: 'GB123', metadata: {} } },
            }),
            row(2, true, {
              type: 'invoice.created', subject: { type: 'invoice', id: INV },
              data: { invoice: { id: INV, customer_id: CUS, currency: 'GBP', lines: LINES, subtotal: gbp(5000), total: gbp(5000), memo: null, metadata: {} } },
            }),
            row(3, true, { type: 'invoice.updated', subject: { type: 'invoice', id: INV }, data: { changes: { memo: 'Thanks', metadata: { po: '42' } } } }),
            row(4, false, { type: 'invoice.finalized', subject: { type: 'invoice', id: INV }, data: { number: NUMBER, issue_date: '2026-01-16', due_date: '2026-02-15', total: gbp(5000) } }),
            row(5, false, {
              type: 'payment.recorded', subject: { type: 'payment', id: P1 },
              data: { invoice_id: INV, amount: gbp(2000), method: 'bank_transfer', reference: 'BACS 1', received_on: '2026-01-20' },
            }),
            // Event 6 is the note.
            row(7, false, {
              type: 'credit_note_request.created', subject: { type: 'credit_note_request', id: CNR },
              data: { invoice_id: INV, invoice_number: NUMBER, amount: gbp(500), reason: 'order_change', description: 'One panel not painted' },
            }),
            row(8, false, { type: 'credit_note_request.updated', subject: { type: 'credit_note_request', id: CNR }, data: { changes: { amount: gbp(400) } } }),
            row(9, false, {
              type: 'customer.access_suspended', subject: { type: 'customer', id: CUS },
              data: { suspension_date: '2026-03-01', oldest_due_date: '2026-02-15', grace_days: 14, invoice_ids: [INV] },
            }),
          ],
        },
        { columns: ['staff_only', 'organization_id'] },
      );
    });
  });
}
