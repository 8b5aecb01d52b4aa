// async-imports.prepare and async-imports.commit, on the core API (supplier organizations) and the integrations API (`supplier` scope).
import { operation } from '../../api/operation.ts';
import type { RequestContext } from '../../context.ts';
import { AsyncImportDetail, AsyncImportsCommitRequest, AsyncImportsPrepareRequest, AsyncImportsPrepareResponse, IMPORT_UPLOAD_URL_SECONDS } from '../../api/schemas/ingest.ts';
import { ingestErrors } from '../../domain/ingest/errors.ts';
import { ingestImportsProjection } from '../../projections/ingest/imports.ts';
import { importDetail, supplierOrganization, visibleImport } from '../../queries/ingest/imports.ts';
import { imports } from './handlers.ts';

const CONTENT_TYPES = { csv: 'text/csv', ndjson: 'application/x-ndjson' } as const;
const WHO = 'Supplier organizations only (core API); integrations with the `supplier` scope (integrations API).';

/** Prepares an import: records it and hands out the upload URL. */
async function prepare(ctx: RequestContext, req: { kind: 'sellable_items'; format: 'csv' | 'ndjson'; size: number }) {
  const organizationId = await supplierOrganization(ctx);
  const id = ctx.ids.next();
  const objectKey = `imports/${organizationId}/${id}`;
  const upload = await ctx.services.objects.presignUpload(objectKey, { contentType: CONTENT_TYPES[req.format], size: req.size, expiresInSeconds: IMPORT_UPLOAD_URL_SECONDS });
  const res = await imports.run(ctx, id, { type: 'PrepareImport', data: { import_id: id, organization_id: organizationId, kind: req.kind, format: req.format, object_key: objectKey, size: req.size, expires_at: upload.expires_at.toISOString() } }, { orgId: organizationId });
  await ctx.waitFor(res.position, [ingestImportsProjection]);
  return { id, upload_url: upload.url, upload_method: upload.method, upload_headers: upload.headers, expires_at: upload.expires_at.toISOString(), expires_in_seconds: IMPORT_UPLOAD_URL_SECONDS };
}

/** Commits the upload of an import: it must be there and of the declared size; processing then starts on the next worker pass. */
async function commit(ctx: RequestContext, req: { id: string }) {
  const organizationId = await supplierOrganization(ctx);
  const doc = await visibleImport(ctx, organizationId, req.id);
  if (doc.status === 'awaiting_upload') {
    const head = await ctx.services.objects.head(doc.object_key);
    if (!head) throw ingestErrors.error('import_not_uploaded', `Nothing was uploaded for import ${doc.id} yet.`);
    const state = await imports.load(ctx, doc.id);
    try {
      imports.decide(ctx, { type: 'CommitUpload', data: { size: head.size } }, state);
    } catch (err) {
      // A short upload: delete it so the same URL can be used again before it expires.
      if (head.size !== doc.size) await ctx.services.objects.delete(doc.object_key);
      throw err;
    }
    const res = await imports.run(ctx, doc.id, { type: 'CommitUpload', data: { size: head.size } }, { orgId: organizationId });
    await ctx.waitFor(res.position, [ingestImportsProjection]);
  }
  return importDetail(ctx, await visibleImport(ctx, organizationId, req.id), { limit: 50 });
}

const prepareDef = {
  id: 'async-imports.prepare' as const,
  tags: ['Ingest'],
  summary: 'Prepares a job that ingests sellable items asynchronously.',
  description: `Returns an import id and a URL to PUT the file to (CSV or NDJSON, of exactly \`size\` bytes). Then call async-imports.commit (the service also notices a landed upload by itself within a worker pass), and follow progress with async-imports.get. Rows are checked one by one: a bad row is reported with its line and never stops the good ones. Items are kept by SKU: importing the same row again changes nothing. ${WHO}`,
  request: AsyncImportsPrepareRequest,
  response: AsyncImportsPrepareResponse,
  error: 'ingest.AsyncImportsPrepareError',
  errors: ingestErrors.list('forbidden'),
  write: true,
  handle: prepare,
};

const commitDef = {
  id: 'async-imports.commit' as const,
  tags: ['Ingest'],
  summary: 'Commits the uploaded file of an import; processing starts.',
  description: `Extension. The upload must be complete (409 import_not_uploaded) and of the declared size (400 import_size_mismatch; the partial upload is deleted so the URL can be used again). Committing twice is a no-op. ${WHO}`,
  request: AsyncImportsCommitRequest,
  response: AsyncImportDetail,
  error: 'ingest.AsyncImportsCommitError',
  errors: ingestErrors.list('forbidden', 'import_not_found', 'import_not_uploaded', 'import_expired', 'import_size_mismatch'),
  write: true,
  handle: commit,
};

/** async-imports.prepare on the core API. */
export const asyncImportsPrepare = operation({ ...prepareDef, surface: 'core', access: 'org_user' });
/** async-imports.prepare on the integrations API. */
export const asyncImportsPrepareIntegration = operation({ ...prepareDef, surface: 'integrations', access: { integration: ['supplier'] } });
/** async-imports.commit on the core API. */
export const asyncImportsCommit = operation({ ...commitDef, surface: 'core', access: 'org_user' });
/** async-imports.commit on the integrations API. */
export const asyncImportsCommitIntegration = operation({ ...commitDef, surface: 'integrations', access: { integration: ['supplier'] } });
