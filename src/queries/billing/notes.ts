// billing.notes.list, reading billing_notes (written by projections/billing/notes.ts).
import type { Knex } from 'knex';
import { operation } from '../../contract/operation.ts';

import type { RequestContext } from '../../context.ts';
import { NoteListRequest, NoteListResponse } from '../../contract/schemas/billing-customers.ts';
import type { NoteDoc } from '../../projections/billing/notes.ts';
import { documentPage } from '../pagination.ts';
import { canSeeOrganization } from './customers.ts';
import { subjectOrganization } from './note-subjects.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { DomainError } from '../../domain/errors.ts';

/** The API body of a note (its organization stays internal). */
export function noteBody(doc: NoteDoc) {
  const { organization_id: _o, ...body } = doc;
  return body;
}

/** A live note the caller may see, or 404. */
export async function visibleNote(ctx: RequestContext, id: string): Promise<NoteDoc> {
  const row = await ctx.services.knex('billing_notes').where({ id }).first('doc');
  const doc = row?.doc as NoteDoc | undefined;
  if (!doc || !canSeeOrganization(ctx, doc.organization_id)) throw billingErrors.error('note_not_found', `No note ${id} in this organization.`);
  // A note is visible only with its subject (a staff note on a draft invoice is as hidden as the draft).
  try {
    await subjectOrganization(ctx, doc.subject);
  } catch (err) {
    if (err instanceof DomainError && err.status === 404) throw billingErrors.error('note_not_found', `No note ${id} in this organization.`);
    throw err;
  }
  return doc;
}

async function listNotes(knex: Knex, subject: { type: string; id: string }, limit: number, cursor?: string) {
  const q = knex('billing_notes').where({ subject_type: subject.type, subject_id: subject.id }).select('id', 'created_at', 'doc');
  return documentPage<NoteDoc>(q, { limit, cursor });
}

/** Every live note of an organization (its customer's and its invoices'), for the data export. */
export async function organizationNotes(knex: Knex, organizationId: string): Promise<NoteDoc[]> {
  const rows = (await knex('billing_notes').where({ organization_id: organizationId }).orderBy('created_at').select('doc')) as { doc: NoteDoc }[];
  return rows.map((r) => r.doc);
}

export const notesList = operation({
  id: 'billing.notes.list',
  examples: {
    request: { subject: { type: 'customer', id: '019387ea-5dfc-7b8e-884d-848979496e70' } },
    response: {
      items: [
        {
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
      ],
      pagination: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Lists the internal notes on a customer or an invoice, oldest first.',
  description: 'Internal notes are visible to owners and admins of the organization and to billing staff.',
  request: NoteListRequest,
  response: NoteListResponse,
  error: 'billing.NoteListError',
  errors: billingErrors.list('customer_not_found', 'invoice_not_found', 'invalid_cursor'),
  access: 'org_admin',
  async handle(ctx, req) {
    await subjectOrganization(ctx, req.subject); // 404 unless the caller may see the subject
    const res = await listNotes(ctx.services.knex, req.subject, req.limit, req.cursor);
    return { items: res.docs.map(noteBody), pagination: res.pagination };
  },
});

/** Read operations of billing notes. */
export const billingNoteQueries = [notesList];
