// Schemas of erasure and export of personal data (issue 32): extension operations, named in the spec's style.
import { z } from 'zod';
import { CalendarDate, Timestamp, Uuid } from './common.ts';

const Reason = z.string().trim().min(1).max(500).describe('Why (required): kept on the erasure event and shown in the history.');

/** The ground of an erasure (UK GDPR / GDPR Art. 17(1)(a)-(e)), or the end of a retention rule. */
export const LegalBasis = z
  .enum(['no_longer_necessary', 'consent_withdrawn', 'objection', 'unlawful_processing', 'legal_obligation', 'retention_rule'])
  .describe('Art. 17(1) ground: (a) no_longer_necessary, (b) consent_withdrawn, (c) objection, (d) unlawful_processing, (e) legal_obligation; or retention_rule.')
  .meta({ id: 'billing.ErasureLegalBasis' });

export const CustomerEraseRequest = z
  .strictObject({ id: Uuid.describe('Customer id.'), legal_basis: LegalBasis, reason: Reason })
  .meta({ id: 'billing.CustomerEraseRequest' });

export const UserEraseRequest = z
  .strictObject({ id: Uuid.describe('User id.'), legal_basis: LegalBasis, reason: Reason })
  .meta({ id: 'identity.UserEraseRequest' });

/** What an erasure did: the keys deleted now, those kept for tax law and until when. */
export const Erasure = z
  .object({
    subject: z.string().describe('`customer:<id>` or `user:<id>`.'),
    erased: z.array(z.string()).describe('Data subjects whose keys were deleted: their values read "[erased]" everywhere.'),
    retained: z.array(z.string()).describe('Subjects kept for the invoice retention period (the legal name, address and VAT number on issued invoices).'),
    retained_until: CalendarDate.nullable().describe('When the retention period ends and the kept fields are erased too; null when nothing is kept.'),
    legal_basis: z.string(),
    reason: z.string(),
    requested_by: z.object({ type: z.string(), id: z.string() }).describe('Who asked (also the event\'s actor).'),
    erased_at: Timestamp,
  })
  .meta({ id: 'billing.Erasure' });

export const CustomerExportRequest = z.strictObject({ id: Uuid.describe('Customer id.') }).meta({ id: 'billing.CustomerExportRequest' });

/** Everything held about a customer (data portability): its record, notes, attachments and every event of their streams, decrypted. */
export const CustomerExport = z
  .object({
    subject: z.string(),
    exported_at: Timestamp,
    customer: z.record(z.string(), z.unknown()),
    notes: z.array(z.record(z.string(), z.unknown())),
    attachments: z.array(z.record(z.string(), z.unknown())),
    events: z.array(z.object({ stream: z.string(), revision: z.string(), id: z.string(), type: z.string(), data: z.unknown(), recorded_at: Timestamp })),
  })
  .meta({ id: 'billing.CustomerExport' });

export const RetentionEndRequest = z.strictObject({ customer_id: Uuid }).meta({ id: 'billing.RetentionEndRequest' });
export const RetentionEndDone = z.object({ changed: z.boolean().describe('False when nothing was kept or its period has not ended (a repeated pass).') }).meta({ id: 'billing.RetentionEndDone' });
