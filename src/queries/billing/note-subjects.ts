// Which organization a note's subject belongs to, if the caller may see it.
import type { RequestContext } from '../../api/context.ts';
import { notFound } from '../../api/errors.ts';
import type { NoteSubject } from '../../domain/billing/note.ts';
import { canSeeOrganization, visibleCustomer } from './customers.ts';

/** Resolves a note subject to its organization; 404 when missing or not visible. */
export async function subjectOrganization(ctx: RequestContext, subject: NoteSubject): Promise<string> {
  if (subject.type === 'customer') return (await visibleCustomer(ctx, subject.id)).organization_id;
  const knex = ctx.services.knex;
  const row = await knex('billing_invoices').where({ id: subject.id }).first('organization_id');
  if (!row || !canSeeOrganization(ctx, row.organization_id)) throw notFound('invoice_not_found', `No invoice ${subject.id} in this organization.`);
  return row.organization_id as string;
}
