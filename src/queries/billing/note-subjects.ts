// Which organization a note's subject belongs to, if the caller may see it.
import type { RequestContext } from '../../context.ts';
import type { NoteSubject } from '../../domain/billing/note.ts';
import { visibleCustomer } from './customers.ts';
import { visibleInvoice } from './invoices.ts';

/** Resolves a note subject to its organization; 404 when missing or not visible. */
export async function subjectOrganization(ctx: RequestContext, subject: NoteSubject): Promise<string> {
  const doc = subject.type === 'customer' ? await visibleCustomer(ctx, subject.id) : await visibleInvoice(ctx, subject.id);
  return doc.organization_id;
}
