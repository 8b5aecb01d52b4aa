// ingest.imports.settle-upload and ingest.imports.process (internal): the import worker's work on one import, as the system (job
// `ingest-import-worker`). Settling commits an upload that landed without a commit, or expires one that never came; processing
// streams the committed file, checks every row like an API body and records chunks of rows with deterministic ids.
import type { RequestContext } from '../../context.ts';
import { operation } from '../../contract/operation.ts';
import { ImportProcessRequest, ImportProcessed, ImportSettleUploadRequest, ImportUploadSettled } from '../../contract/schemas/ingest.ts';
import { CHUNK_ROWS, type ImportChunk } from '../../domain/ingest/import.ts';
import { ingestErrors } from '../../domain/ingest/errors.ts';
import { MAX_IMPORT_ROWS, type RowError, checkRow } from '../../domain/ingest/sellable-item.ts';
import { IdSource } from '../../ids.ts';
import type { ImportDoc } from '../../projections/ingest/imports.ts';
import { importDoc } from '../../queries/ingest/imports.ts';
import { committedKey } from '../../storage/port.ts';
import { type FileRecord, ImportFileError, csvRecords, ndjsonRecords } from '../../workers/ingest/parse.ts';
import { importChunks, imports } from './handlers.ts';

// The write context of one step of an import: ids derived from `seed`, so a repeated pass appends the same event ids.
function stepContext(ctx: RequestContext, doc: ImportDoc, seed: string): RequestContext {
  return { ...ctx, ids: new IdSource(`${doc.id}:${seed}`, Date.parse(doc.created_at)) };
}

/** ingest.imports.settle-upload */
export const importsSettleUpload = operation({
  id: 'ingest.imports.settle-upload',
  surface: 'internal',
  tags: ['Ingest'],
  summary: 'Commits an import whose upload landed without a commit, or expires one whose upload never came before its URL expired.',
  description: 'Internal: invoked by the import worker as the system (job `ingest-import-worker`), caused by the import\'s last event.',
  request: ImportSettleUploadRequest,
  response: ImportUploadSettled,
  error: 'ingest.ImportWorkError',
  errors: ingestErrors.list(),
  access: 'system',
  write: true,
  async handle(ctx, req) {
    const { objects } = ctx.services;
    const doc = await importDoc(ctx.services.knex, req.import_id);
    if (doc?.status !== 'awaiting_upload') return { outcome: 'waiting' as const, committed_key: null };
    const now = ctx.now;
    const head = await objects.head(doc.object_key);
    const key = committedKey(doc.object_key);
    const frozen = head && head.size === doc.size && now.getTime() <= Date.parse(doc.expires_at) ? await objects.freeze(doc.object_key, key) : null;
    if (frozen && frozen.size === doc.size) {
      await imports.run(stepContext(ctx, doc, 'commit'), doc.id, { type: 'CommitUpload', data: { size: frozen.size, committed_key: key } }, { orgId: doc.organization_id });
      return { outcome: 'committed' as const, committed_key: key };
    }
    if (now.getTime() > Date.parse(doc.expires_at)) {
      await objects.delete(doc.object_key);
      await objects.delete(key);
      const res = await imports.run(stepContext(ctx, doc, 'expire'), doc.id, { type: 'ExpireImport', data: {} }, { orgId: doc.organization_id, reason: 'nothing uploaded in time' });
      return { outcome: res.events.length ? ('expired' as const) : ('waiting' as const), committed_key: null };
    }
    return { outcome: 'waiting' as const, committed_key: null };
  },
});

/** ingest.imports.process */
export const importsProcess = operation({
  id: 'ingest.imports.process',
  surface: 'internal',
  tags: ['Ingest'],
  summary: 'Processes a committed import from the start of its file; chunks already recorded are checked again but not recorded twice.',
  description: 'Internal: invoked by the import worker as the system (job `ingest-import-worker`), caused by the import\'s last event.',
  request: ImportProcessRequest,
  response: ImportProcessed,
  error: 'ingest.ImportWorkError',
  errors: ingestErrors.list(),
  access: 'system',
  write: true,
  async handle(ctx, req) {
    const doc = await importDoc(ctx.services.knex, req.import_id);
    if (!doc) return { outcome: 'none' as const };
    const open = req.committed_key ? { ...doc, status: 'queued' as const, committed_key: req.committed_key } : doc;
    return { outcome: await processImport(ctx, open, req.max_chunks === null ? {} : { maxChunks: req.max_chunks }) };
  },
});

/** Processes one committed import from the start of its file; chunks already recorded are checked again but not recorded twice. */
async function processImport(ctx: RequestContext, doc: ImportDoc, opts: { maxChunks?: number } = {}): Promise<'completed' | 'failed' | 'stopped'> {
  const { services } = ctx;
  // The copy frozen at commit: an upload landing on the URL later cannot change what is processed.
  const body = await services.objects.get(doc.committed_key ?? doc.object_key);
  if (!body) {
    await imports.run(stepContext(ctx, doc, 'fail'), doc.id, { type: 'FailImport', data: { code: 'upload_missing', message: 'The uploaded file is gone.' } }, { orgId: doc.organization_id });
    return 'failed';
  }
  const records: AsyncIterable<FileRecord> = doc.format === 'csv' ? csvRecords(body) : ndjsonRecords(body);
  const seen = new Map<string, number>();
  let chunk: ImportChunk = emptyChunk(doc, 0);
  let errorsBefore = 0;
  let rows = 0;
  let recorded = 0;
  const flush = async () => {
    const res = await importChunks.run(stepContext(ctx, doc, `chunk:${chunk.chunk}`), { importId: doc.id, chunk: chunk.chunk }, { type: 'RecordChunk', data: { ...chunk, errors_before: errorsBefore } }, { orgId: doc.organization_id });
    if (res.events.length > 0) recorded++;
    errorsBefore += chunk.errors.length;
    chunk = emptyChunk(doc, chunk.chunk + 1);
  };
  try {
    for await (const rec of records) {
      if (++rows > MAX_IMPORT_ROWS) throw new ImportFileError('too_many_rows', `The file has more than ${MAX_IMPORT_ROWS} rows.`);
      chunk.rows++;
      const errors: RowError[] = [];
      if ('unreadable' in rec) errors.push({ line: rec.line, field: null, message: rec.unreadable });
      else {
        const checked = checkRow(rec.value, rec.line, doc.format === 'csv');
        if ('errors' in checked) errors.push(...checked.errors);
        else {
          const first = seen.get(checked.item.sku);
          if (first !== undefined) errors.push({ line: rec.line, field: 'sku', message: `the SKU is already on line ${first}` });
          else {
            seen.set(checked.item.sku, rec.line);
            chunk.items.push({ line: rec.line, item: checked.item });
          }
        }
      }
      chunk.errors.push(...errors);
      if (chunk.rows === CHUNK_ROWS) {
        await flush();
        if (opts.maxChunks !== undefined && recorded >= opts.maxChunks) {
          body.destroy();
          return 'stopped';
        }
      }
    }
    if (chunk.rows > 0) await flush();
  } catch (err) {
    body.destroy();
    if (!(err instanceof ImportFileError)) throw err;
    await imports.run(stepContext(ctx, doc, 'fail'), doc.id, { type: 'FailImport', data: { code: err.code, message: err.message } }, { orgId: doc.organization_id });
    return 'failed';
  }
  await imports.run(stepContext(ctx, doc, 'complete'), doc.id, { type: 'CompleteImport', data: {} }, { orgId: doc.organization_id });
  return 'completed';
}

function emptyChunk(doc: ImportDoc, k: number): ImportChunk {
  return { import_id: doc.id, organization_id: doc.organization_id, chunk: k, rows: 0, items: [], errors: [] };
}

/** The ingest area's internal operations of the import worker. */
export const ingestImportWorkCommands = [importsSettleUpload, importsProcess];
