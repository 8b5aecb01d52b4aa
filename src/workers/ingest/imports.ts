// Import worker: commits uploads that landed without a commit, expires uploads that never came, and processes committed
// imports: streams the file, checks every row like an API body, records chunks of rows with deterministic ids.
import type { CommandContext, Services } from '../../context.ts';
import type { Worker } from '../worker.ts';
import { importChunks, imports } from '../../commands/ingest/handlers.ts';
import { CHUNK_ROWS, type ImportChunk } from '../../domain/ingest/import.ts';
import { MAX_IMPORT_ROWS, type RowError, checkRow } from '../../domain/ingest/sellable-item.ts';
import { IdSource } from '../../ids.ts';
import type { ImportDoc } from '../../projections/ingest/imports.ts';
import { openImports } from '../../queries/ingest/imports.ts';
import { committedKey } from '../../storage/port.ts';
import { type FileRecord, ImportFileError, csvRecords, ndjsonRecords } from './parse.ts';
import { systemMetadata } from '../../pipeline/invoke.ts';

/** What one pass did, by import id. */
export interface ImportsPassResult {
  committed: string[];
  expired: string[];
  completed: string[];
  failed: string[];
}

/** Options of a pass; `maxChunks` stops an import after recording that many new chunks (a crash stand-in for tests). */
export interface ImportsPassOptions {
  maxChunks?: number;
}

// The write context of the worker for one import: system actor; ids derived from `seed`, so a repeated pass appends the same event ids.
function workerContext(services: Services, doc: ImportDoc, seed: string): CommandContext {
  const now = services.clock.now();
  return {
    store: services.store,
    ids: new IdSource(`${doc.id}:${seed}`, Date.parse(doc.created_at)),
    now,
    metadata: systemMetadata({ job: 'ingest-import-worker', orgId: doc.organization_id, correlationId: doc.id }),
  };
}

/** Processes one committed import from the start of its file; chunks already recorded are checked again but not recorded twice. */
export async function processImport(services: Services, doc: ImportDoc, opts: ImportsPassOptions = {}): Promise<'completed' | 'failed' | 'stopped'> {
  // The copy frozen at commit: an upload landing on the URL later cannot change what is processed.
  const body = await services.objects.get(doc.committed_key ?? doc.object_key);
  if (!body) {
    await imports.run(workerContext(services, doc, 'fail'), doc.id, { type: 'FailImport', data: { code: 'upload_missing', message: 'The uploaded file is gone.' } }, { orgId: doc.organization_id });
    return 'failed';
  }
  const records: AsyncIterable<FileRecord> = doc.format === 'csv' ? csvRecords(body) : ndjsonRecords(body);
  const seen = new Map<string, number>();
  let chunk: ImportChunk = emptyChunk(doc, 0);
  let errorsBefore = 0;
  let rows = 0;
  let recorded = 0;
  const flush = async () => {
    const res = await importChunks.run(workerContext(services, doc, `chunk:${chunk.chunk}`), { importId: doc.id, chunk: chunk.chunk }, { type: 'RecordChunk', data: { ...chunk, errors_before: errorsBefore } }, { orgId: doc.organization_id });
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
    await imports.run(workerContext(services, doc, 'fail'), doc.id, { type: 'FailImport', data: { code: err.code, message: err.message } }, { orgId: doc.organization_id });
    return 'failed';
  }
  await imports.run(workerContext(services, doc, 'complete'), doc.id, { type: 'CompleteImport', data: {} }, { orgId: doc.organization_id });
  return 'completed';
}

function emptyChunk(doc: ImportDoc, k: number): ImportChunk {
  return { import_id: doc.id, organization_id: doc.organization_id, chunk: k, rows: 0, items: [], errors: [] };
}

/** One pass over the open imports (oldest first); repeating it is a no-op. */
export async function runImportsPass(services: Services, opts: ImportsPassOptions = {}): Promise<ImportsPassResult> {
  const result: ImportsPassResult = { committed: [], expired: [], completed: [], failed: [] };
  const now = services.clock.now();
  for (const doc of await openImports(services.knex)) {
    let open = doc;
    if (doc.status === 'awaiting_upload') {
      // An upload that landed but was never committed is committed here; one that never came expires with its URL.
      const head = await services.objects.head(doc.object_key);
      const key = committedKey(doc.object_key);
      const frozen = head && head.size === doc.size && now.getTime() <= Date.parse(doc.expires_at) ? await services.objects.freeze(doc.object_key, key) : null;
      if (frozen && frozen.size === doc.size) {
        await imports.run(workerContext(services, doc, 'commit'), doc.id, { type: 'CommitUpload', data: { size: frozen.size, committed_key: key } }, { orgId: doc.organization_id });
        result.committed.push(doc.id);
        open = { ...doc, status: 'queued', committed_key: key };
      } else if (now.getTime() > Date.parse(doc.expires_at)) {
        await services.objects.delete(doc.object_key);
        await services.objects.delete(key);
        const res = await imports.run(workerContext(services, doc, 'expire'), doc.id, { type: 'ExpireImport', data: {} }, { orgId: doc.organization_id, reason: 'nothing uploaded in time' });
        if (res.events.length) result.expired.push(doc.id);
        continue;
      } else continue;
    }
    try {
      const outcome = await processImport(services, open, opts);
      if (outcome === 'completed') result.completed.push(doc.id);
      if (outcome === 'failed') result.failed.push(doc.id);
      if (outcome !== 'stopped') services.logger.info({ import_id: doc.id, outcome }, 'import processed');
    } catch (err) {
      // Storage or the log failing on one import must not hold up the others; the next pass tries it again.
      services.logger.error({ err, import_id: doc.id }, 'import processing failed; retried on the next pass');
    }
  }
  return result;
}

/** Every 2 s, so an import starts soon after its upload is committed (a pass with nothing open is one indexed query). */
export const IMPORT_WORKER_INTERVAL_MS = 2000;

/** The import worker as the composition root runs it. */
export const importsWorker: Worker<ImportsPassResult> = { name: 'ingest.imports', runOnce: (services) => runImportsPass(services), intervalMs: IMPORT_WORKER_INTERVAL_MS };
