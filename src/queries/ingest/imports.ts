// Reads ingest_imports and ingest_import_errors (written by projections/ingest/imports.ts): who may import, an import's detail, the worker's work list.
import type { Knex } from 'knex';
import type { RequestContext } from '../../context.ts';
import { ingestErrors } from '../../domain/ingest/errors.ts';
import type { ImportDoc, ImportErrorDoc } from '../../projections/ingest/imports.ts';
import { getOrganization } from '../identity/identity.ts';
import { cursorParts, cursorShape, keysetPage } from '../pagination.ts';
import { MAX_RECORDED_ERRORS } from '../../domain/ingest/import.ts';

/**
 * The supplier organization the caller imports for: a session's organization must be a supplier
 * (else 403); an integration reaches here only with the `supplier` scope (checked by its access).
 */
export async function supplierOrganization(ctx: RequestContext): Promise<string> {
  if (ctx.auth.kind === 'integration') return ctx.auth.organizationId;
  if (ctx.auth.kind !== 'session') throw ingestErrors.error('forbidden', 'Only supplier organizations import sellable items.');
  const org = await getOrganization(ctx.services.knex, ctx.auth.organizationId);
  if (org?.kind !== 'supplier') throw ingestErrors.error('forbidden', 'Only supplier organizations import sellable items.');
  return ctx.auth.organizationId;
}

/** The import document, whatever its state, or undefined. */
export async function importDoc(knex: Knex, id: string): Promise<ImportDoc | undefined> {
  const row = await knex('ingest_imports').where({ id }).first('doc');
  return row?.doc as ImportDoc | undefined;
}

/** An import of the caller's organization, or 404 (another organization's import is as missing as an unknown one). */
export async function visibleImport(ctx: RequestContext, organizationId: string, id: string): Promise<ImportDoc> {
  const doc = await importDoc(ctx.services.knex, id);
  if (!doc || doc.organization_id !== organizationId) throw ingestErrors.error('import_not_found', `No import ${id} in this organization.`);
  return doc;
}

/** The API body of an import with one page of its row errors. */
export async function importDetail(ctx: RequestContext, doc: ImportDoc, page: { limit: number; cursor?: string }) {
  const q = ctx.services.knex('ingest_import_errors').where({ import_id: doc.id }).select('line', 'seq', 'doc');
  const errors = await keysetPage<{ line: number; seq: number; doc: ImportErrorDoc }>(q, { columns: ['line', 'seq'], shape: cursorShape(cursorParts.index, cursorParts.index), limit: page.limit, cursor: page.cursor, key: (r) => [r.line, r.seq] });
  return {
    id: doc.id,
    kind: doc.kind,
    format: doc.format,
    status: doc.status,
    size: doc.size,
    counts: { total: doc.total, ok: doc.ok, failed: doc.failed },
    errors: { items: errors.rows.map((r) => ({ line: r.doc.line, field: r.doc.field, message: r.doc.message })), pagination: errors.pagination },
    errors_truncated: doc.errors_recorded >= MAX_RECORDED_ERRORS && doc.failed > doc.errors_recorded,
    failure: doc.failure,
    created_at: doc.created_at,
    expires_at: doc.expires_at,
    committed_at: doc.committed_at,
    completed_at: doc.completed_at,
  };
}

/** Imports the worker has to look at: committed ones not yet processed first, then uploads not yet committed; oldest first within each (many awaited uploads never hold up a committed import). */
export async function openImports(knex: Knex, limit = 100): Promise<ImportDoc[]> {
  const committed = await knex('ingest_imports').whereIn('status', ['queued', 'processing']).orderBy('created_at').orderBy('id').limit(limit).pluck('doc');
  const awaiting = await knex('ingest_imports').where({ status: 'awaiting_upload' }).orderBy('created_at').orderBy('id').limit(limit).pluck('doc');
  return [...(committed as ImportDoc[]), ...(awaiting as ImportDoc[])];
}
