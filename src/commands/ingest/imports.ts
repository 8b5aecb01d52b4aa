// async-imports.prepare and async-imports.commit, on the core API (supplier organizations) and the integrations API (`supplier` scope).
import { operation } from '../../contract/operation.ts';
import type { RequestContext } from '../../context.ts';
import { AsyncImportDetail, AsyncImportsCommitRequest, AsyncImportsPrepareRequest, AsyncImportsPrepareResponse, IMPORT_UPLOAD_URL_SECONDS } from '../../contract/schemas/ingest.ts';
import { ingestErrors } from '../../domain/ingest/errors.ts';
import { SellableItemRowSchema } from '../../domain/ingest/sellable-item.ts';
import { ingestImportsProjection } from '../../projections/ingest/imports.ts';
import { importDetail, supplierOrganization, visibleImport } from '../../queries/ingest/imports.ts';
import { countUploadUrls } from '../../limits/upload-url-limit.ts';
import { committedKey } from '../../storage/port.ts';
import { imports } from './handlers.ts';

const CONTENT_TYPES = { csv: 'text/csv', ndjson: 'application/x-ndjson' } as const;
const WHO = 'Supplier organizations only (core API); integrations with the `supplier` scope (integrations API).';

/** Prepares an import: records it and hands out the upload URL. */
async function prepare(ctx: RequestContext, req: { kind: 'sellable_items'; format: 'csv' | 'ndjson'; size: number }) {
  const organizationId = await supplierOrganization(ctx);
  await countUploadUrls(ctx.services, organizationId, 1);
  const id = ctx.ids.next();
  const objectKey = `imports/${organizationId}/${id}`;
  const upload = await ctx.services.objects.presignUpload(objectKey, { contentType: CONTENT_TYPES[req.format], size: req.size, expiresInSeconds: IMPORT_UPLOAD_URL_SECONDS });
  await imports.run(ctx, id, { type: 'PrepareImport', data: { import_id: id, organization_id: organizationId, kind: req.kind, format: req.format, object_key: objectKey, size: req.size, expires_at: upload.expires_at.toISOString() } }, { orgId: organizationId });
  await ctx.readYourWrites();
  return { id, upload_url: upload.url, upload_method: upload.method, upload_headers: upload.headers, expires_at: upload.expires_at.toISOString(), expires_in_seconds: IMPORT_UPLOAD_URL_SECONDS };
}

/**
 * Commits the upload of an import: its bytes are frozen (the copy processing reads, whatever reaches the upload URL
 * later), and must be of the declared size; processing then starts on the next worker pass.
 */
async function commit(ctx: RequestContext, req: { id: string }) {
  const organizationId = await supplierOrganization(ctx);
  const doc = await visibleImport(ctx, organizationId, req.id);
  if (doc.status === 'awaiting_upload') {
    const key = committedKey(doc.object_key);
    const head = await ctx.services.objects.freeze(doc.object_key, key);
    if (!head) throw ingestErrors.error('import_not_uploaded', `Nothing was uploaded for import ${doc.id} yet.`);
    // A frozen upload of another size is refused now and on every retry: the upload URL is spent (prepare again).
    await imports.run(ctx, doc.id, { type: 'CommitUpload', data: { size: head.size, committed_key: key } }, { orgId: organizationId });
    await ctx.readYourWrites();
  }
  return importDetail(ctx, await visibleImport(ctx, organizationId, req.id), { limit: 50 });
}

const prepareDef = {
  id: 'async-imports.prepare' as const,
  examples: {
    request: { kind: 'sellable_items' as const, format: 'csv' as const, size: 20480 },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      upload_url: 'https://files.example.com/imports/019387ea-5dfc-7b8e-884d-848979496e70?X-Amz-Signature=...',
      upload_method: 'PUT' as const,
      upload_headers: {},
      expires_at: '2026-01-15T10:30:00.000Z',
      expires_in_seconds: 3600,
    },
  },
  tags: ['Ingest'],
  summary: 'Prepares a job that ingests sellable items asynchronously.',
  description: `Returns an import id and a URL to PUT the file to (CSV or NDJSON, of exactly \`size\` bytes). Each upload URL takes one upload, and counts towards RATE_LIMIT_UPLOAD_URLS_PER_MINUTE of the organization (429 rate_limited). Then call async-imports.commit (the service also notices a landed upload by itself within a worker pass), and follow progress with async-imports.get. Rows are checked one by one: a bad row is reported with its line and never stops the good ones. Items are kept by SKU: importing the same row again changes nothing. ${WHO}`,
  request: AsyncImportsPrepareRequest,
  mentions: [SellableItemRowSchema],
  response: AsyncImportsPrepareResponse,
  error: 'ingest.AsyncImportsPrepareError',
  errors: ingestErrors.list('forbidden', 'rate_limited'),
  write: true,
  readModels: [ingestImportsProjection],
  handle: prepare,
};

const commitDef = {
  id: 'async-imports.commit' as const,
  examples: {
    request: { id: '019387ea-5dfc-7b8e-884d-848979496e70' },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      kind: 'sellable_items' as const,
      format: 'csv' as const,
      status: 'completed' as const,
      size: 20480,
      counts: { total: 120, ok: 119, failed: 1 },
      errors: { items: [{ line: 42, field: 'price.amount', message: 'must be a whole number of minor units' }], pagination: null },
      errors_truncated: false,
      failure: null,
      created_at: '2026-01-15T09:30:00.000Z',
      expires_at: '2026-01-15T10:30:00.000Z',
      committed_at: '2026-01-15T09:31:12.000Z',
      completed_at: '2026-01-15T09:31:15.000Z',
    },
  },
  tags: ['Ingest'],
  summary: 'Commits the uploaded file of an import; processing starts.',
  description: `Extension. The upload must be complete (409 import_not_uploaded) and of the declared size (400 import_size_mismatch; the upload URL takes one upload, so prepare again). The committed bytes are frozen: an upload landing later changes nothing. Committing twice is a no-op. ${WHO}`,
  request: AsyncImportsCommitRequest,
  response: AsyncImportDetail,
  error: 'ingest.AsyncImportsCommitError',
  errors: ingestErrors.list('forbidden', 'import_not_found', 'import_not_uploaded', 'import_expired', 'import_size_mismatch'),
  write: true,
  readModels: [ingestImportsProjection],
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
