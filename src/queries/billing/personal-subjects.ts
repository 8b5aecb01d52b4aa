// Reads billing_personal_subjects (written by projections/billing/personal-subjects.ts): an organization's notes and
// attachments as data subjects, and erased customers' retention keys whose period has ended.
import type { Knex } from 'knex';

/** The note and attachment subjects of an organization (`note:<id>`, `attachment:<id>`), removed ones included. */
export async function organizationSubjects(knex: Knex, organizationId: string): Promise<string[]> {
  const rows = (await knex('billing_personal_subjects').where({ organization_id: organizationId }).whereNull('retained_until').orderBy('subject').select('subject')) as { subject: string }[];
  return rows.map((r) => r.subject);
}

/** Erased customers whose retention period ended on or before `today` (`YYYY-MM-DD`): the worker erases what was kept. */
export async function retentionEnded(knex: Knex, today: string, limit = 500): Promise<{ customerId: string; organizationId: string }[]> {
  const rows = (await knex('billing_personal_subjects').whereNotNull('retained_until').where('retained_until', '<=', today).orderBy('subject').limit(limit).select('subject', 'organization_id')) as { subject: string; organization_id: string }[];
  return rows.map((r) => ({ customerId: r.subject.split(':')[1] ?? '', organizationId: r.organization_id }));
}
