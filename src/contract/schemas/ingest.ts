// Schemas of the ingest area (async imports of sellable items), named as the spec names them; limits in their descriptions.
import { z } from 'zod';
import { CHUNK_ROWS, ImportFormat, ImportKind, MAX_RECORDED_ERRORS } from '../../domain/ingest/import.ts';
import { CSV_COLUMNS, MAX_IMPORT_BYTES, MAX_IMPORT_ROWS } from '../../domain/ingest/sellable-item.ts';
import { PageRequest, Timestamp, Uuid, page } from './common.ts';

/** How long an import's upload URL works. */
export const IMPORT_UPLOAD_URL_SECONDS = 3600;

export const AsyncImportsPrepareRequest = z
  .strictObject({
    kind: ImportKind.describe('What the file holds; `sellable_items` today.'),
    format: ImportFormat.describe(
      `\`ndjson\`: one ingest.SellableItemRow JSON object per line. \`csv\`: RFC 4180, UTF-8, a header row naming columns from ${CSV_COLUMNS.join(', ')} (price_amount in minor units; hca_ids and part_numbers separate values with |).`,
    ),
    size: z.int().min(1).max(MAX_IMPORT_BYTES).describe(`Exact size of the file in bytes, 1-${MAX_IMPORT_BYTES} (256 MiB).`),
  })
  .meta({ id: 'ingest.AsyncImportsPrepareRequest' });

export const AsyncImportsPrepareResponse = z
  .object({
    id: Uuid.describe('The import id: commit it after the upload, then follow it with async-imports.get.'),
    upload_url: z.url().describe('PUT the exact bytes of the file here, with the headers below, before expires_at.'),
    upload_method: z.literal('PUT'),
    upload_headers: z.record(z.string(), z.string()).describe('Headers the PUT must carry (Content-Type).'),
    expires_at: Timestamp.describe('When the upload URL stops working.'),
    expires_in_seconds: z.int().describe('Lifetime of the upload URL in seconds.'),
  })
  .meta({ id: 'ingest.AsyncImportsPrepareResponse' });

export const AsyncImportsCommitRequest = z.strictObject({ id: Uuid.describe('The import id from async-imports.prepare.') }).meta({ id: 'ingest.AsyncImportsCommitRequest' });

export const AsyncImportsGetRequest = z
  .strictObject({ id: Uuid.describe('The import id.'), ...PageRequest })
  .describe('`limit` and `cursor` page the row errors (ordered by line).')
  .meta({ id: 'ingest.AsyncImportsGetRequest' });

export const ImportRowError = z
  .object({
    line: z.int().describe('1-based line of the file where the row starts (the CSV header is line 1).'),
    field: z.string().nullable().describe('The field (NDJSON path or CSV column) that is wrong; null when the row as a whole is.'),
    message: z.string().describe('What is wrong.'),
  })
  .meta({ id: 'ingest.ImportRowError' });

export const AsyncImportDetail = z
  .object({
    id: Uuid,
    kind: ImportKind,
    format: ImportFormat,
    status: z
      .enum(['awaiting_upload', 'queued', 'processing', 'completed', 'failed', 'expired'])
      .describe('awaiting_upload -> queued (upload committed) -> processing -> completed; failed when the file as a whole cannot be read; expired when nothing was uploaded in time.'),
    size: z.int().describe('Declared size in bytes.'),
    counts: z
      .object({
        total: z.int().describe('Rows read so far (blank lines not counted).'),
        ok: z.int().describe('Rows recorded as sellable items.'),
        failed: z.int().describe('Rows rejected; each has at least one entry in errors (the first 10,000 rows are listed).'),
      })
      .describe(`Counts grow by ${CHUNK_ROWS} rows as processing goes.`),
    errors: page(ImportRowError, 'ingest.ImportRowErrorPage').describe(`Row errors by line, paged by the request's limit and cursor; at most ${MAX_RECORDED_ERRORS} are kept.`),
    errors_truncated: z.boolean().describe(`True when more rows failed than the ${MAX_RECORDED_ERRORS} errors kept.`),
    failure: z.object({ code: z.string(), message: z.string() }).nullable().describe(`Why the file as a whole was refused (invalid_encoding, invalid_header, too_many_rows: more than ${MAX_IMPORT_ROWS}), else null.`),
    created_at: Timestamp,
    expires_at: Timestamp.describe('Until when the upload may be made and committed.'),
    committed_at: Timestamp.nullable(),
    completed_at: Timestamp.nullable().describe('When processing ended (completed or failed).'),
  })
  .meta({ id: 'ingest.AsyncImportDetail' });

export const SellableItemsListRequest = z
  .strictObject({ ...PageRequest, sku: z.string().min(1).max(100).optional().describe('Only the item with this SKU.') })
  .meta({ id: 'ingest.SellableItemsListRequest' });

export const SellableItem = z
  .object({
    sku: z.string().describe("The supplier's SKU (unique per supplier)."),
    title: z.string(),
    description: z.string().nullable(),
    price: z.object({ amount: z.int(), currency: z.string() }).describe('Unit price in minor units.'),
    stock_quantity: z.int(),
    hca_ids: z.array(z.string()).describe('HCA ids the item fits.'),
    part_numbers: z.array(z.string()).describe('Part numbers it matches.'),
    import_id: Uuid.describe('The import that last changed the item.'),
    created_at: Timestamp,
    updated_at: Timestamp.describe('When an import last changed the item (an identical row changes nothing).'),
  })
  .meta({ id: 'ingest.SellableItem' });

export const SellableItemsListResponse = page(SellableItem, 'ingest.SellableItemPage');

/** ingest.imports.settle-upload (internal): an import still awaiting its upload, committed when the file landed or expired with its URL. */
export const ImportSettleUploadRequest = z.strictObject({ import_id: z.string().min(1).max(200) });
export const ImportUploadSettled = z.object({ outcome: z.enum(['committed', 'expired', 'waiting']), committed_key: z.string().nullable() });

/** ingest.imports.process (internal): one committed import processed from the start of its file. */
export const ImportProcessRequest = z.strictObject({
  import_id: z.string().min(1).max(200),
  /** The frozen copy committed just now (the read model may not show it yet). */
  committed_key: z.string().min(1).max(1000).nullable(),
  /** Stop after recording this many new chunks (a crash stand-in for tests). */
  max_chunks: z.number().int().min(0).nullable(),
});
export const ImportProcessed = z.object({ outcome: z.enum(['completed', 'failed', 'stopped', 'none']) });
