// billing_personal_subjects: which data subjects besides the customer itself hold an organization's personal data (its
// notes' texts, its attachments' file names), so erasing the customer finds removed ones too; and an erased customer's
// retention key with the date its retention period ends, for the worker that erases it then (issue 32).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table billing_personal_subjects (
      id text primary key,
      organization_id uuid not null,
      retained_until date
    );
    --;
    create index billing_personal_subjects_retained on billing_personal_subjects (retained_until) where retained_until is not null;
    --;
    create index billing_personal_subjects_organization on billing_personal_subjects (organization_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists billing_personal_subjects;`);
}
