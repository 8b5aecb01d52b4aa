// billing.notes.insert, .update, .remove: internal notes on customers and invoices.
import { operation } from '../../contract/operation.ts';
import { Empty } from '../../contract/schemas/common.ts';
import { NoteInsertRequest, NoteInsertResponse, NoteRemoveRequest, NoteUpdateRequest, NoteUpdateResponse } from '../../contract/schemas/billing-customers.ts';

import { noteBody, visibleNote } from '../../queries/billing/notes.ts';
import { subjectOrganization } from '../../queries/billing/note-subjects.ts';
import { notes } from './handlers.ts';
import { billingNotesProjection } from '../../projections/billing/notes.ts';
import { billingErrors } from '../../domain/billing/errors.ts';

export const notesInsert = operation({
  id: 'billing.notes.insert',
  examples: {
    request: { subject: { type: 'customer', id: '019387ea-5dfc-7b8e-884d-848979496e70' }, body: 'Called about the March invoice.' },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      subject: { type: 'customer', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
      body: 'Called about the March invoice.',
      author: { type: 'user', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
      history: [
        {
          body: 'Called about the March invoice.',
          replaced_at: '2026-01-15T09:30:00.000Z',
          editor: { type: 'user', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
        },
      ],
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Adds an internal note to a customer or an invoice.',
  request: NoteInsertRequest,
  response: NoteInsertResponse,
  error: 'billing.NoteInsertError',
  errors: billingErrors.list('customer_not_found', 'invoice_not_found'),
  access: 'org_admin',
  write: true,
  readModels: [billingNotesProjection],
  async handle(ctx, req) {
    const organizationId = await subjectOrganization(ctx, req.subject);
    const id = ctx.ids.next();
    await notes.run(ctx, id, { type: 'AddNote', data: { note_id: id, subject: req.subject, organization_id: organizationId, body: req.body } }, { orgId: organizationId });
    await ctx.readYourWrites();
    return noteBody(await visibleNote(ctx, id));
  },
});

export const notesUpdate = operation({
  id: 'billing.notes.update',
  examples: {
    request: { id: '019387ea-5dfc-7b8e-884d-848979496e70', body: 'Called about the March invoice.' },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      subject: { type: 'customer', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
      body: 'Called about the March invoice.',
      author: { type: 'user', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
      history: [
        {
          body: 'Called about the March invoice.',
          replaced_at: '2026-01-15T09:30:00.000Z',
          editor: { type: 'user', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
        },
      ],
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Edits the body of a note; the earlier body is kept in its history.',
  request: NoteUpdateRequest,
  response: NoteUpdateResponse,
  error: 'billing.NoteUpdateError',
  errors: billingErrors.list('note_not_found'),
  access: 'org_admin',
  write: true,
  readModels: [billingNotesProjection],
  async handle(ctx, req) {
    const doc = await visibleNote(ctx, req.id);
    await notes.run(ctx, req.id, { type: 'EditNote', data: { body: req.body } }, { orgId: doc.organization_id });
    await ctx.readYourWrites();
    return noteBody(await visibleNote(ctx, req.id));
  },
});

export const notesRemove = operation({
  id: 'billing.notes.remove',
  examples: {
    request: { id: '019387ea-5dfc-7b8e-884d-848979496e70' },
    response: {},
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Removes a note from view; the log keeps it for the audit trail.',
  request: NoteRemoveRequest,
  response: Empty,
  error: 'billing.NoteRemoveError',
  errors: billingErrors.list('note_not_found'),
  access: 'org_admin',
  write: true,
  readModels: [billingNotesProjection],
  async handle(ctx, req) {
    const doc = await visibleNote(ctx, req.id);
    await notes.run(ctx, req.id, { type: 'RemoveNote', data: {} }, { orgId: doc.organization_id });
    await ctx.readYourWrites();
    return {};
  },
});

/** Write operations of billing notes. */
export const billingNoteCommands = [notesInsert, notesUpdate, notesRemove];
