// Reads billing_personal_subjects (written by projections/billing/personal-subjects.ts): an organization's notes and
// attachments as data subjects, and erased customers' retention keys whose period has ended.
import type { Knex } from 'knex';
import { operation } from '../../contract/operation.ts';
import { CustomerExport, CustomerExportRequest } from '../../contract/schemas/billing-erasure.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { visibleCustomer } from './customers.ts';
import { organizationNotes } from './notes.ts';
import { organizationAttachments } from './attachments.ts';
import { caughtUp } from '../../pipeline/read-models.ts';
import { billingPersonalSubjectsProjection } from '../../projections/billing/personal-subjects.ts';
import { billingNotesProjection } from '../../projections/billing/notes.ts';
import { billingAttachmentsProjection } from '../../projections/billing/attachments.ts';
import { billingCustomersProjection } from '../../projections/billing/customers.ts';
import { exampleCustomer, exampleIds } from '../../contract/examples/billing.ts';

/** The note and attachment subjects of an organization (`note:<id>`, `attachment:<id>`), removed ones included. */
export async function organizationSubjects(knex: Knex, organizationId: string): Promise<string[]> {
  const rows = (await knex('billing_personal_subjects').where({ organization_id: organizationId }).whereNull('retained_until').orderBy('id').select('id')) as { id: string }[];
  return rows.map((r) => r.id);
}

/** Erased customers whose retention period ended on or before `today` (`YYYY-MM-DD`): the worker erases what was kept. */
export async function retentionEnded(knex: Knex, today: string, limit = 500): Promise<{ customerId: string; organizationId: string }[]> {
  const rows = (await knex('billing_personal_subjects').whereNotNull('retained_until').where('retained_until', '<=', today).orderBy('id').limit(limit).select('id', 'organization_id')) as { id: string; organization_id: string }[];
  return rows.map((r) => ({ customerId: r.id.split(':')[1] ?? '', organizationId: r.organization_id }));
}

/** billing.customers.export: everything held about a customer, as JSON (data portability, UK GDPR / GDPR Art. 15 and 20). */
export const customersExport = operation({
  id: 'billing.customers.export',
  examples: {
    request: { id: exampleIds.customer },
    response: {
      subject: `customer:${exampleIds.customer}`,
      exported_at: '2026-03-02T10:00:00.000Z',
      customer: exampleCustomer,
      notes: [{ id: '0193c2b8-1d44-7a0e-9b61-4f2c8d7e3a15', body: 'Prefers invoices by email to accounts.', created_at: '2026-01-20T14:06:00.000Z' }],
      attachments: [],
      events: [
        {
          stream: `customer-${exampleIds.customer}`,
          revision: '0',
          id: '0193c0aa-2f10-7c3e-8d4b-1e6f9a2b7c55',
          type: 'CustomerCreated',
          data: { customer_id: exampleIds.customer, name: exampleCustomer.name, email: exampleCustomer.email, currency: 'GBP' },
          recorded_at: exampleCustomer.created_at,
        },
      ],
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Exports everything held about a billing customer as JSON: its record, notes, attachments and every event of their streams, decrypted (data portability).',
  description: 'Owners and admins of the organization and billing staff. Erased values read "[erased]". Extension operation (issue 32).',
  request: CustomerExportRequest,
  response: CustomerExport,
  error: 'billing.CustomerExportError',
  errors: billingErrors.list('customer_not_found'),
  access: 'org_admin',
  async handle(ctx, req) {
    // Everything held at the moment of asking, whoever wrote it: a note or file added just before must be in the export.
    await caughtUp(ctx.services, [billingCustomersProjection, billingNotesProjection, billingAttachmentsProjection, billingPersonalSubjectsProjection]);
    const customer = await visibleCustomer(ctx, req.id);
    const notes = await organizationNotes(ctx.services.knex, customer.organization_id);
    const files = await organizationAttachments(ctx.services.knex, customer.organization_id);
    const streams = [`customer-${req.id}`, ...(await organizationSubjects(ctx.services.knex, customer.organization_id)).map((s) => s.replace(':', '-'))];
    const events = [];
    for (const stream of streams) {
      for await (const e of ctx.services.store.readStream(stream, { currentKeys: true })) events.push({ stream, revision: String(e.revision), id: e.id, type: e.type, data: e.data, recorded_at: e.createdAt.toISOString() });
    }
    return { subject: `customer:${req.id}`, exported_at: ctx.now.toISOString(), customer: { ...customer }, notes: notes.map((n) => ({ ...n })), attachments: files.map((a) => ({ ...a })), events };
  },
});

/** Read operations of personal data. */
export const billingPersonalDataQueries = [customersExport];
