// ingest_imports (one document per import: status, counts, failure) and ingest_import_errors (the listed row errors, by line).
import type { Knex } from 'knex';
import type { RecordedEvent } from '../../eventstore/port.ts';
import { type ImportEvent, type ImportStatus, importCodec } from '../../domain/ingest/import.ts';
import { nameId } from '../../ids.ts';
import type { TableWriter } from '../documents/declaration.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';
import { readRecorded, streamKey } from '../recorded.ts';

/** The stored import. */
export interface ImportDoc {
  id: string;
  organization_id: string;
  kind: 'sellable_items';
  format: 'csv' | 'ndjson';
  /** Where the upload URL writes. */
  object_key: string;
  /** Where commit froze the upload, the copy processing reads; absent when committed before issue 25 (the upload key then). */
  committed_key?: string;
  size: number;
  status: Exclude<ImportStatus, 'none'>;
  total: number;
  ok: number;
  failed: number;
  errors_recorded: number;
  failure: { code: string; message: string } | null;
  created_at: string;
  expires_at: string;
  committed_at: string | null;
  completed_at: string | null;
}

/** One listed row error. */
export interface ImportErrorDoc {
  import_id: string;
  line: number;
  field: string | null;
  message: string;
}

const imports = documentTable<ImportDoc, ImportEvent>({
  table: 'ingest_imports',
  events: importCodec,
  // Chunks live on their own streams and name their import.
  keyOf: (e, read) => (read.type === 'ImportChunkRecorded' ? read.data.import_id : streamKey(e)),
  columns: (d) => ({ organization_id: d.organization_id, status: d.status, expires_at: d.expires_at, created_at: d.created_at }),
  handlers: {
    ImportPrepared: (_doc, d) => ({
      id: d.import_id,
      organization_id: d.organization_id,
      kind: d.kind,
      format: d.format,
      object_key: d.object_key,
      size: d.size,
      status: 'awaiting_upload',
      total: 0,
      ok: 0,
      failed: 0,
      errors_recorded: 0,
      failure: null,
      created_at: d.prepared_at,
      expires_at: d.expires_at,
      committed_at: null,
      completed_at: null,
    }),
    ImportUploadCommitted: (doc, d) => doc && { ...doc, status: 'queued', committed_at: d.committed_at, ...(d.committed_key ? { committed_key: d.committed_key } : {}) },
    ImportChunkRecorded: (doc, d) =>
      doc && { ...doc, status: 'processing', total: doc.total + d.rows, ok: doc.ok + d.items.length, failed: doc.failed + d.rows - d.items.length, errors_recorded: doc.errors_recorded + d.errors.length },
    ImportCompleted: (doc, d) => doc && { ...doc, status: 'completed', completed_at: d.completed_at },
    ImportFailed: (doc, d) => doc && { ...doc, status: 'failed', failure: { code: d.code, message: d.message }, completed_at: d.failed_at },
    ImportExpired: (doc, d) => doc && { ...doc, status: 'expired', completed_at: d.expired_at },
  },
});

// Row errors are written once (a chunk is recorded once); `seq` orders several errors of one line.
const importErrors: TableWriter = {
  table: 'ingest_import_errors',
  handles: (type) => type === 'ImportChunkRecorded',
  async apply(trx: Knex.Transaction, events: RecordedEvent[]) {
    const rows: Record<string, unknown>[] = [];
    for (const e of events) {
      if (e.type !== 'ImportChunkRecorded') continue;
      const read = readRecorded(importCodec, e);
      if (read.type !== 'ImportChunkRecorded') continue;
      const importId = read.data.import_id;
      let seq = 0;
      let line = -1;
      for (const err of read.data.errors) {
        seq = err.line === line ? seq + 1 : 0;
        line = err.line;
        const doc: ImportErrorDoc = { import_id: importId, line: err.line, field: err.field, message: err.message };
        rows.push({ id: nameId('import-error', `${importId}/${err.line}/${seq}`), import_id: importId, line: err.line, seq, doc });
      }
    }
    for (let i = 0; i < rows.length; i += 5000) await trx('ingest_import_errors').insert(rows.slice(i, i + 5000)).onConflict('id').ignore();
  },
};

/** Builds ingest_imports and ingest_import_errors from import events. */
export const ingestImportsProjection = documentProjection({ name: 'ingest.imports', version: 1, tables: [imports, importErrors] });
