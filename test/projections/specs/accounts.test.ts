// Billing customers, internal notes and access suspension read models, given their events: what the customer pages, notes and overdue status show.
import { backends } from '../../support/db.ts';
import type { CustomerEvent } from '../../../src/domain/billing/customer.ts';
import type { NoteEvent } from '../../../src/domain/billing/note.ts';
import type { AccessEvent } from '../../../src/domain/billing/access.ts';
import type { Actor } from '../../../src/eventstore/port.ts';
import { billingCustomersProjection } from '../../../src/projections/billing/customers.ts';
import { billingNotesProjection } from '../../../src/projections/billing/notes.ts';
import { billingAccessProjection } from '../../../src/projections/billing/access.ts';
import { SPEC_ACTOR, on, projectionSpec } from '../spec.ts';
import { CUS, CUS2, ORG, ORG2, customerCreated } from './fixtures.ts';

const NOTE = '0190c6a2-0000-7000-8000-000000000f01';
const NOTE2 = '0190c6a2-0000-7000-8000-000000000f02';
const STAFF: Actor = { type: 'staff', id: '0190c6a2-0000-7000-8000-00000000f0f0' };

for (const backend of backends()) {
  describe(`billing accounts projection specs (${backend})`, function () {
    this.timeout(60_000);
    const spec = projectionSpec(backend);

    it('billing.customers: an updated customer with its changes, a removed one marked removed', async () => {
      const created = customerCreated.data;
      await spec.given(billingCustomersProjection, [
        ...on<CustomerEvent>(`customer-${CUS}`, [
          customerCreated,
          { type: 'CustomerUpdated', data: { changes: { name: 'Acme Repairs Ltd', tax_id: null, billing_address: null }, updated_at: '2026-01-16T09:00:00.000Z' } },
        ]),
        ...on<CustomerEvent>(`customer-${CUS2}`, [
          { type: 'CustomerCreated', data: { ...created, customer_id: CUS2, organization_id: ORG2, name: 'Bodyshop', currency: 'EUR', created_at: '2026-01-14T10:00:00.000Z' } },
          { type: 'CustomerRemoved', data: { removed_at: '2026-01-17T09:00:00.000Z' } },
        ]),
      ]).then({
        billing_customers: [
          {
            id: CUS, organization_id: ORG, name: 'Acme Repairs Ltd', email: 'ap@acme.example', billing_address: null, currency: 'GBP', payment_terms_days: 30, tax_id: null,
            metadata: {}, status: 'active', created_at: '2026-01-14T09:00:00.000Z', updated_at: '2026-01-16T09:00:00.000Z',
          },
          {
            id: CUS2, organization_id: ORG2, name: 'Bodyshop', email: 'ap@acme.example', billing_address: { line1: '1 High St', city: 'Leeds', country: 'GB' }, currency: 'EUR',
            payment_terms_days: 30, tax_id: 'GB123', metadata: {}, status: 'removed', created_at: '2026-01-14T10:00:00.000Z', updated_at: '2026-01-17T09:00:00.000Z',
          },
        ],
      });
    });

    it('billing.notes: an edited note keeps its earlier body and who replaced it; a removed note is gone', async () => {
      const subject = { type: 'customer' as const, id: CUS };
      await spec.given(billingNotesProjection, [
        ...on<NoteEvent>(`note-${NOTE}`, [{ type: 'NoteAdded', data: { note_id: NOTE, subject, organization_id: ORG, body: 'Call before 10', created_at: '2026-01-15T09:00:00.000Z' } }]),
        ...on<NoteEvent>(`note-${NOTE}`, [{ type: 'NoteEdited', data: { body: 'Call after 10', previous_body: 'Call before 10', edited_at: '2026-01-16T09:00:00.000Z' } }], { actor: STAFF }),
        ...on<NoteEvent>(`note-${NOTE2}`, [
          { type: 'NoteAdded', data: { note_id: NOTE2, subject, organization_id: ORG, body: 'Temporary', created_at: '2026-01-15T09:00:00.000Z' } },
          { type: 'NoteRemoved', data: { removed_at: '2026-01-16T09:00:00.000Z' } },
        ]),
      ]).then({
        billing_notes: [
          {
            id: NOTE, subject, organization_id: ORG, body: 'Call after 10', author: SPEC_ACTOR, created_at: '2026-01-15T09:00:00.000Z', updated_at: '2026-01-16T09:00:00.000Z',
            history: [{ body: 'Call before 10', replaced_at: '2026-01-16T09:00:00.000Z', editor: STAFF }],
          },
        ],
      });
    });

    it('billing.access: a suspension lifted keeps its dates; another customer stays suspended', async () => {
      const suspended = (customer_id: string, organization_id: string): AccessEvent => ({
        type: 'AccessSuspended',
        data: { customer_id, organization_id, suspension_date: '2026-03-01', oldest_due_date: '2026-02-15', grace_days: 14, invoice_ids: ['i1'], suspended_at: '2026-03-01T00:05:00.000Z' },
      });
      await spec.given(billingAccessProjection, [
        ...on<AccessEvent>(`access-${CUS}`, [
          suspended(CUS, ORG),
          { type: 'AccessRestored', data: { customer_id: CUS, organization_id: ORG, restored_at: '2026-03-04T12:00:00.000Z' } },
        ]),
        ...on<AccessEvent>(`access-${CUS2}`, [suspended(CUS2, ORG2)]),
      ]).then({
        billing_access: [
          { customer_id: CUS, organization_id: ORG, suspended: false, suspension_date: '2026-03-01', suspended_at: '2026-03-01T00:05:00.000Z', restored_at: '2026-03-04T12:00:00.000Z' },
          { customer_id: CUS2, organization_id: ORG2, suspended: true, suspension_date: '2026-03-01', suspended_at: '2026-03-01T00:05:00.000Z', restored_at: null },
        ],
      });
    });
  });
}
