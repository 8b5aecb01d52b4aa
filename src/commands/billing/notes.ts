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
  surface: 'core',
  tags: ['Billing'],
  summary: 'Adds an internal note to a customer or an invoice.',
  request: NoteInsertRequest,
  response: NoteInsertResponse,
  error: 'billing.NoteInsertError',
  errors: billingErrors.list('customer_not_found', 'invoice_not_found'),
  access: 'org_admin',
  write: true,
  async handle(ctx, req) {
    const organizationId = await subjectOrganization(ctx, req.subject);
    const id = ctx.ids.next();
    const res = await notes.run(ctx, id, { type: 'AddNote', data: { note_id: id, subject: req.subject, organization_id: organizationId, body: req.body } }, { orgId: organizationId });
    await ctx.waitFor(res.position, [billingNotesProjection]);
    return noteBody(await visibleNote(ctx, id));
  },
});

export const notesUpdate = operation({
  id: 'billing.notes.update',
  surface: 'core',
  tags: ['Billing'],
  summary: 'Edits the body of a note; the earlier body is kept in its history.',
  request: NoteUpdateRequest,
  response: NoteUpdateResponse,
  error: 'billing.NoteUpdateError',
  errors: billingErrors.list('note_not_found'),
  access: 'org_admin',
  write: true,
  async handle(ctx, req) {
    const doc = await visibleNote(ctx, req.id);
    const res = await notes.run(ctx, req.id, { type: 'EditNote', data: { body: req.body } }, { orgId: doc.organization_id });
    await ctx.waitFor(res.position, [billingNotesProjection]);
    return noteBody(await visibleNote(ctx, req.id));
  },
});

export const notesRemove = operation({
  id: 'billing.notes.remove',
  surface: 'core',
  tags: ['Billing'],
  summary: 'Removes a note from view; the log keeps it for the audit trail.',
  request: NoteRemoveRequest,
  response: Empty,
  error: 'billing.NoteRemoveError',
  errors: billingErrors.list('note_not_found'),
  access: 'org_admin',
  write: true,
  async handle(ctx, req) {
    const doc = await visibleNote(ctx, req.id);
    const res = await notes.run(ctx, req.id, { type: 'RemoveNote', data: {} }, { orgId: doc.organization_id });
    await ctx.waitFor(res.position, [billingNotesProjection]);
    return {};
  },
});

/** Write operations of billing notes. */
export const billingNoteCommands = [notesInsert, notesUpdate, notesRemove];
