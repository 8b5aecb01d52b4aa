// How a table of JSON documents is declared: a handler per event type, the document's key and its indexed columns.
import type { Knex } from 'knex';
import type { RecordedEvent } from '../../eventstore/port.ts';
import type { DomainEvent, EventCodec } from '../../domain/decider.ts';
import type { BulkApplier, StagedWrites } from '../projection.ts';

/** Handler of one event type in a document table: returns the new document, null to delete, undefined for no change. */
export type DocumentHandler<D, Data = unknown> = (doc: D | null, data: Data, event: RecordedEvent) => D | null | undefined;

const replacingHandlers = new WeakSet<object>();

/**
 * A handler whose document never depends on the stored one and always exists (a creating event: a new
 * payment, a ledger line): a batch whose first event for a key has one does not read that key's row.
 */
export function replacing<D, Data>(fn: (data: Data, event: RecordedEvent) => NoInfer<D>): DocumentHandler<D, Data> {
  const handler: DocumentHandler<D, Data> = (_doc, data, event) => fn(data, event);
  replacingHandlers.add(handler);
  return handler;
}

/** Whether `handler` was made by `replacing` (its document is made from the event alone). */
export function isReplacing(handler: object): boolean {
  return replacingHandlers.has(handler);
}

/** Handlers keyed by event type, each receiving that event's typed data. */
export type DocumentHandlers<D, E extends DomainEvent> = { [K in E['type']]?: DocumentHandler<D, Extract<E, { type: K }>['data']> };

/** One table of JSON documents: `id`, indexed `columns` derived from the document, and `doc`. */
export interface DocumentTable<D, E extends DomainEvent> {
  table: string;
  /** The codec of the aggregate whose events the table is built from: handlers see events read through it (upcast and parsed). */
  events: EventCodec<E>;
  /** The document key an event touches; the stream's id suffix by default; null to skip. */
  keyOf?: (event: RecordedEvent, read: E) => string | null;
  handlers: DocumentHandlers<D, E>;
  columns: (doc: D, id: string) => Record<string, unknown>;
}

/** A table and how a batch of events is applied to it. */
export interface TableWriter {
  table: string;
  apply(trx: Knex.Transaction, events: RecordedEvent[]): Promise<void>;
  /** Whether the table has a handler for this event type. */
  handles(type: string): boolean;
  /** Bulk replay of this table (see Projection.bulk). */
  bulk?(knex: Knex, fresh: boolean, alone?: boolean, schema?: string): BulkApplier;
  /** One-statement live commit of this table (see Projection.stage). */
  stage?(knex: Knex, events: RecordedEvent[]): Promise<StagedWrites>;
}
