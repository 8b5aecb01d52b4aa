// Billing deciders: customer and note.
import { customerDecider, type CustomerEvent, type CustomerFields } from '../../src/domain/billing/customer.ts';
import { noteDecider, type NoteEvent } from '../../src/domain/billing/note.ts';
import { given } from './given.ts';

const ORG = '0190c6a2-0000-7000-8000-0000000000a1';
const CUSTOMER = '0190c6a2-0000-7000-8000-0000000000c1';
const NOTE = '0190c6a2-0000-7000-8000-0000000000d1';
const T0 = '2026-01-15T09:00:00.000Z';
const T1 = '2026-01-16T09:00:00.000Z';
const fields: CustomerFields = { name: 'Acme', email: 'ap@acme.example', billing_address: { line1: '1 Road', city: 'York', country: 'GB' }, currency: 'GBP', payment_terms_days: 30, tax_id: 'GB1', metadata: { a: '1' } };
const created: CustomerEvent = { type: 'CustomerCreated', data: { ...fields, customer_id: CUSTOMER, organization_id: ORG, created_at: T0 } };
const removed: CustomerEvent = { type: 'CustomerRemoved', data: { removed_at: T1 } };

describe('customer decider', () => {
  it('creates a customer; a second create while active is customer_exists', () => {
    given(customerDecider, []).when({ type: 'CreateCustomer', data: { ...fields, customer_id: CUSTOMER, organization_id: ORG, now: T0 } }).then([created]);
    given(customerDecider, [created]).when({ type: 'CreateCustomer', data: { ...fields, customer_id: CUSTOMER, organization_id: ORG, now: T1 } }).thenError('customer_exists');
  });

  it('updates only fields that change; null clears; nothing changed is no event', () => {
    given(customerDecider, [created]).when({ type: 'UpdateCustomer', data: { changes: { name: 'Acme Ltd', currency: 'GBP', tax_id: null }, now: T1 } })
      .then([{ type: 'CustomerUpdated', data: { changes: { name: 'Acme Ltd', tax_id: null }, updated_at: T1 } }]);
    given(customerDecider, [created]).when({ type: 'UpdateCustomer', data: { changes: { billing_address: null }, now: T1 } })
      .then([{ type: 'CustomerUpdated', data: { changes: { billing_address: null }, updated_at: T1 } }]);
    given(customerDecider, [created]).when({ type: 'UpdateCustomer', data: { changes: { name: 'Acme', metadata: { a: '1' }, email: undefined }, now: T1 } }).thenNothing();
    const updated: CustomerEvent = { type: 'CustomerUpdated', data: { changes: { name: 'Acme Ltd' }, updated_at: T1 } };
    given(customerDecider, [created, updated]).when({ type: 'UpdateCustomer', data: { changes: { name: 'Acme Ltd' }, now: T1 } }).thenNothing();
  });

  it('refuses updates of a missing or removed customer', () => {
    given(customerDecider, []).when({ type: 'UpdateCustomer', data: { changes: { name: 'X' }, now: T1 } }).thenError('customer_not_found');
    given(customerDecider, [created, removed]).when({ type: 'UpdateCustomer', data: { changes: { name: 'X' }, now: T1 } }).thenError('customer_removed');
  });

  it('removes a customer without open invoices, once', () => {
    given(customerDecider, [created]).when({ type: 'RemoveCustomer', data: { now: T1, open_invoices: 0 } }).then([removed]);
    given(customerDecider, [created]).when({ type: 'RemoveCustomer', data: { now: T1, open_invoices: 2 } }).thenError('customer_has_open_invoices');
    given(customerDecider, [created, removed]).when({ type: 'RemoveCustomer', data: { now: T1, open_invoices: 0 } }).thenError('customer_removed');
    given(customerDecider, []).when({ type: 'RemoveCustomer', data: { now: T1, open_invoices: 0 } }).thenError('customer_not_found');
  });
});

describe('note decider', () => {
  const subject = { type: 'customer' as const, id: CUSTOMER };
  const added: NoteEvent = { type: 'NoteAdded', data: { note_id: NOTE, subject, organization_id: ORG, body: 'v1', created_at: T0 } };

  it('adds a note once', () => {
    given(noteDecider, []).when({ type: 'AddNote', data: { note_id: NOTE, subject, organization_id: ORG, body: 'v1', now: T0 } }).then([added]);
    given(noteDecider, [added]).when({ type: 'AddNote', data: { note_id: NOTE, subject, organization_id: ORG, body: 'v1', now: T0 } }).thenError('note_exists');
  });

  it('edits record the previous body; the same body is no event', () => {
    given(noteDecider, [added]).when({ type: 'EditNote', data: { body: 'v2', now: T1 } }).then([{ type: 'NoteEdited', data: { body: 'v2', previous_body: 'v1', edited_at: T1 } }]);
    const edited: NoteEvent = { type: 'NoteEdited', data: { body: 'v2', previous_body: 'v1', edited_at: T1 } };
    given(noteDecider, [added, edited]).when({ type: 'EditNote', data: { body: 'v3', now: T1 } }).then([{ type: 'NoteEdited', data: { body: 'v3', previous_body: 'v2', edited_at: T1 } }]);
    given(noteDecider, [added]).when({ type: 'EditNote', data: { body: 'v1', now: T1 } }).thenNothing();
  });

  it('removes a note once; a removed or missing note cannot be edited or removed', () => {
    const gone: NoteEvent = { type: 'NoteRemoved', data: { removed_at: T1 } };
    given(noteDecider, [added]).when({ type: 'RemoveNote', data: { now: T1 } }).then([gone]);
    given(noteDecider, [added, gone]).when({ type: 'RemoveNote', data: { now: T1 } }).thenError('note_not_found');
    given(noteDecider, [added, gone]).when({ type: 'EditNote', data: { body: 'x', now: T1 } }).thenError('note_not_found');
    given(noteDecider, []).when({ type: 'EditNote', data: { body: 'x', now: T1 } }).thenError('note_not_found');
  });
});
