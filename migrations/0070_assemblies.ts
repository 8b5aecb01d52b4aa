// Assemblies (issue 14): vehicle lookups and completed searches (read models), and the HCA search terms
// (pg_trgm trigram indexes: contrib on PostgreSQL, the pg_trgm extension PGlite is opened with).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create extension if not exists pg_trgm;
    --;
    create table assembly_lookups (
      id uuid primary key,
      status text not null,
      updated_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index assembly_lookups_pending on assembly_lookups (status, updated_at) where status in ('queued', 'tree_ready');
    --;
    create table assembly_searches (
      id uuid primary key,
      organization_id uuid not null,
      position text collate "C" not null,
      doc jsonb not null
    );
    --;
    create index assembly_searches_org on assembly_searches (organization_id, position);
    --;
    create table hca_terms (
      id text primary key,
      hca_id text not null,
      term text not null,
      field text not null,
      taxonomy_version text not null
    );
    --;
    create index hca_terms_trgm on hca_terms using gin (lower(term) gin_trgm_ops);
    --;
    create index hca_terms_fts on hca_terms using gin (to_tsvector('english', term));
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `
    drop table if exists hca_terms;
    --;
    drop table if exists assembly_searches;
    --;
    drop table if exists assembly_lookups;
    --;
  `);
}
