// Read models of the ingest area: imports, their row errors (projection ingest.imports) and sellable items (ingest.sellable-items).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table ingest_imports (
      id uuid primary key,
      organization_id uuid not null,
      status text not null,
      expires_at timestamptz not null,
      created_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index ingest_imports_open on ingest_imports (status, created_at) where status in ('awaiting_upload', 'queued', 'processing');
    --;
    create table ingest_import_errors (
      id uuid primary key,
      import_id uuid not null,
      line integer not null,
      seq integer not null,
      doc jsonb not null
    );
    --;
    create unique index ingest_import_errors_by_line on ingest_import_errors (import_id, line, seq);
    --;
    create table ingest_sellable_items (
      id uuid primary key,
      organization_id uuid not null,
      sku text not null,
      updated_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create unique index ingest_sellable_items_sku on ingest_sellable_items (organization_id, sku);
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists ingest_sellable_items;
    --;
    drop table if exists ingest_import_errors;
    --;
    drop table if exists ingest_imports;
    --;`);
}
