// Import worker: for each open import invokes, as the system (job `ingest-import-worker`) and caused by the import's last event,
// ingest.imports.settle-upload (an upload that landed without a commit is committed, one that never came expires) and
// ingest.imports.process (the committed file streamed, every row checked like an API body, chunks recorded with deterministic ids).
import { type Services, systemAuth } from '../../context.ts';
import type { Caller } from '../../contract/caller.ts';
import type { Worker } from '../worker.ts';
import { imports } from '../../commands/ingest/handlers.ts';
import { importsProcess, importsSettleUpload } from '../../commands/ingest/import-work.ts';
import { newId } from '../../ids.ts';
import { causedBy } from '../../pipeline/causation.ts';
import { openImports } from '../../queries/ingest/imports.ts';

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

/** One pass over the open imports (oldest first); repeating it is a no-op. */
export async function runImportsPass(services: Services, opts: ImportsPassOptions = {}): Promise<ImportsPassResult> {
  const result: ImportsPassResult = { committed: [], expired: [], completed: [], failed: [] };
  const pass = newId();
  const caller = async (doc: { id: string; organization_id: string }): Promise<Caller> => ({
    auth: systemAuth('ingest-import-worker', doc.organization_id), requestId: pass, causation: await causedBy(services.store, imports.stream(doc.id)),
  });
  for (const doc of await openImports(services.knex)) {
    let committedKey: string | null = null;
    if (doc.status === 'awaiting_upload') {
      const { body } = await services.invoke(importsSettleUpload, { import_id: doc.id }, await caller(doc));
      if (body.outcome === 'expired') result.expired.push(doc.id);
      if (body.outcome !== 'committed') continue;
      result.committed.push(doc.id);
      committedKey = body.committed_key;
    }
    try {
      const { body } = await services.invoke(importsProcess, { import_id: doc.id, committed_key: committedKey, max_chunks: opts.maxChunks ?? null }, await caller(doc));
      const outcome = body.outcome;
      if (outcome === 'completed') result.completed.push(doc.id);
      if (outcome === 'failed') result.failed.push(doc.id);
      if (outcome === 'completed' || outcome === 'failed') services.logger.info({ import_id: doc.id, outcome }, 'import processed');
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
