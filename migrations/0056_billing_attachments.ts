// Read model of billing attachments (owned by projections/billing/attachments.ts).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table billing_attachments (
      id uuid primary key,
      subject_type text not null,
      subject_id uuid not null,
      organization_id uuid not null,
      status text not null,
      expires_at timestamptz not null,
      created_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index billing_attachments_subject on billing_attachments (subject_type, subject_id, created_at, id);
    --;
    create index billing_attachments_pending on billing_attachments (expires_at) where status = 'pending';
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists billing_attachments;
    --;`);
}
