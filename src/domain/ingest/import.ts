// Import aggregate (`import-<id>`): a file of sellable items, prepared, uploaded, processed, completed.
// Each chunk of rows is its own stream (`importchunk-<id>-<k>`, one event with a deterministic id), so a repeated
// or racing pass records nothing twice and recording chunk k never re-reads the chunks before it.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { ingestErrors } from './errors.ts';
import { EventId, EventInstant, EventInt32 } from '../event-fields.ts';

/** Rows per chunk event: chunk k holds the file's records k*CHUNK_ROWS+1 .. (k+1)*CHUNK_ROWS. */
export const CHUNK_ROWS = 1000;
/** Row errors recorded per import; later ones are counted but not listed. */
export const MAX_RECORDED_ERRORS = 10_000;

/** File formats an import accepts. */
export const ImportFormat = z.enum(['csv', 'ndjson']);
/** What an import contains. */
export const ImportKind = z.enum(['sellable_items']);

const RowErrorSchema = z.object({ line: EventInt32, field: z.string().nullable(), message: z.string() });
// Items were checked with SellableItemRowSchema before they were recorded: reading them back checks the shape only (cheaper on replay).
const StoredItem = z.object({
  sku: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  price: z.object({ amount: z.number(), currency: z.string() }),
  stock_quantity: z.number(),
  hca_ids: z.array(z.string()),
  part_numbers: z.array(z.string()),
});
const ItemAtLine = z.object({ line: z.number(), item: StoredItem });

/** Events of an import stream. */
export const importEvents = eventSchemas({
  ImportPrepared: z.object({
    import_id: z.string(),
    organization_id: EventId,
    kind: ImportKind,
    format: ImportFormat,
    object_key: z.string(),
    size: z.number(),
    prepared_at: EventInstant,
    expires_at: EventInstant,
  }),
  // committed_key: where commit froze the upload, the copy processing reads (absent before issue 25: the upload key).
  ImportUploadCommitted: z.object({ size: z.number(), committed_at: z.string(), committed_key: z.string().optional() }),
  // A file's SKUs are distinct (the worker lists a repeated one as a row error), so a chunk's are: one catalogue row each.
  ImportChunkRecorded: z
    .object({ import_id: EventId, organization_id: EventId, chunk: z.number(), rows: z.number(), items: z.array(ItemAtLine), errors: z.array(RowErrorSchema) })
    .refine((c) => new Set(c.items.map((i) => i.item.sku)).size === c.items.length, { message: 'a chunk lists each SKU once', path: ['items'] }),
  ImportCompleted: z.object({ completed_at: z.string() }),
  ImportFailed: z.object({ code: z.string(), message: z.string(), failed_at: z.string() }),
  ImportExpired: z.object({ expired_at: z.string() }),
});

/** An import event (derived from `importEvents`). */
export type ImportEvent = EventOf<typeof importEvents>;
/** The data of one chunk event. */
export type ImportChunk = Extract<ImportEvent, { type: 'ImportChunkRecorded' }>['data'];

/** How import events are read. */
export const importCodec = eventCodec(importEvents);

type Prepared = Extract<ImportEvent, { type: 'ImportPrepared' }>['data'];

/** What may be asked of an import. */
export type ImportCommand =
  | { type: 'PrepareImport'; data: Omit<Prepared, 'prepared_at'> & { now: string } }
  | { type: 'CommitUpload'; data: { size: number; committed_key: string; now: string } }
  | { type: 'CompleteImport'; data: { now: string } }
  | { type: 'FailImport'; data: { code: string; message: string; now: string } }
  | { type: 'ExpireImport'; data: { now: string } };

/** Where an import is. */
export type ImportStatus = 'none' | 'awaiting_upload' | 'queued' | 'processing' | 'completed' | 'failed' | 'expired';

/** What the import decider needs. */
export interface ImportState {
  status: ImportStatus;
  size: number;
  expiresAt: string;
}

const FINAL: ImportStatus[] = ['completed', 'failed', 'expired'];

/** Pure import decider: an upload is committed once, before expiry; chunks are recorded in order, each once; an import ends once. */
export const importDecider: Decider<ImportCommand, ImportEvent, ImportState> = {
  events: importCodec,
  initialState: () => ({ status: 'none', size: 0, expiresAt: '' }),
  evolve(state, event) {
    switch (event.type) {
      case 'ImportPrepared':
        return { ...state, status: 'awaiting_upload', size: event.data.size, expiresAt: event.data.expires_at };
      case 'ImportUploadCommitted':
        return { ...state, status: 'queued' };
      case 'ImportChunkRecorded':
        return state; // recorded on the chunk's own stream
      case 'ImportCompleted':
        return { ...state, status: 'completed' };
      case 'ImportFailed':
        return { ...state, status: 'failed' };
      case 'ImportExpired':
        return { ...state, status: 'expired' };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'PrepareImport': {
        if (state.status !== 'none') return [];
        const { now, ...data } = command.data;
        return [{ type: 'ImportPrepared', data: { ...data, prepared_at: now } }];
      }
      case 'CommitUpload': {
        if (state.status === 'none') throw ingestErrors.error('import_not_found', 'No such import.');
        if (state.status !== 'awaiting_upload') return []; // committed already (by the caller or the worker): a no-op
        if (Date.parse(command.data.now) > Date.parse(state.expiresAt)) throw ingestErrors.error('import_expired', 'The upload URL expired; prepare the import again.');
        if (command.data.size !== state.size) throw ingestErrors.error('import_size_mismatch', `${command.data.size} bytes uploaded, ${state.size} declared.`);
        return [{ type: 'ImportUploadCommitted', data: { size: command.data.size, committed_at: command.data.now, committed_key: command.data.committed_key } }];
      }
      case 'CompleteImport':
        if (state.status !== 'queued' && state.status !== 'processing') return [];
        return [{ type: 'ImportCompleted', data: { completed_at: command.data.now } }];
      case 'FailImport':
        if (FINAL.includes(state.status) || state.status === 'none') return [];
        return [{ type: 'ImportFailed', data: { code: command.data.code, message: command.data.message, failed_at: command.data.now } }];
      case 'ExpireImport':
        if (state.status !== 'awaiting_upload' || !(Date.parse(command.data.now) > Date.parse(state.expiresAt))) return [];
        return [{ type: 'ImportExpired', data: { expired_at: command.data.now } }];
      default:
        return assertNever(command);
    }
  },
};

/** Record one chunk of rows; `errors_before` is how many row errors earlier chunks listed (the cap is per import). */
export type ImportChunkCommand = { type: 'RecordChunk'; data: ImportChunk & { errors_before: number; now: string } };

/** Pure chunk decider (`importchunk-<import id>-<k>`): a chunk is recorded once; row errors past MAX_RECORDED_ERRORS are counted, not listed. */
export const importChunkDecider: Decider<ImportChunkCommand, ImportEvent, { recorded: boolean }> = {
  events: importCodec,
  initialState: () => ({ recorded: false }),
  evolve: (state, event) => (event.type === 'ImportChunkRecorded' ? { recorded: true } : state),
  decide(command, state) {
    if (state.recorded) return [];
    const { now: _now, errors_before, ...chunk } = command.data;
    const room = Math.max(0, MAX_RECORDED_ERRORS - errors_before);
    return [{ type: 'ImportChunkRecorded', data: { ...chunk, errors: chunk.errors.slice(0, room) } }];
  },
};
