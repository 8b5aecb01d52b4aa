// The common kind of projection: tables of one JSON document per key, each table a TableWriter over the three write paths.
import type { Knex } from 'knex';
import type { RecordedEvent } from '../../eventstore/port.ts';
import { type DomainEvent, currentType } from '../../domain/decider.ts';
import type { BulkApplier, Projection, StagedWrites } from '../projection.ts';
import type { DocumentTable, TableWriter } from './declaration.ts';
import { applyDocuments, documentBulk, stageDocuments } from './paths.ts';

/**
 * A projection of document tables. A batch loads every touched document once, folds its events in
 * memory and writes all changes in a few statements, which is what makes a 200k-event replay fast.
 */
export function documentProjection(def: { name: string; version: number; tables: TableWriter[] }): Projection {
  const bulkTables = def.tables.flatMap((t) => (t.bulk ? [{ bulk: t.bulk }] : []));
  const stagedTables = def.tables.flatMap((t) => (t.stage ? [{ stage: t.stage }] : []));
  return {
    name: def.name,
    version: def.version,
    tables: def.tables.map((t) => t.table),
    async apply(trx, events) {
      for (const t of def.tables) await t.apply(trx, events);
    },
    handles: (type) => def.tables.some((t) => t.handles(type)),
    // Bulk replay only when every table can (a table that reads another in the same batch cannot).
    ...(bulkTables.length === def.tables.length ? { bulk: (knex: Knex, fresh: boolean, schema?: string) => combineBulk(bulkTables.map((t) => t.bulk(knex, fresh, def.tables.length === 1, schema))) } : {}),
    // One-statement commits likewise.
    ...(stagedTables.length === def.tables.length ? { stage: (knex: Knex, events: RecordedEvent[]) => combineStaged(stagedTables.map((t) => t.stage), knex, events) } : {}),
  };
}

/** A document table as a TableWriter. */
export function documentTable<D, E extends DomainEvent>(def: DocumentTable<D, E>): TableWriter {
  return {
    table: def.table,
    apply: (trx, events) => applyDocuments(trx, def, events),
    handles: (type) => Object.hasOwn(def.handlers, currentType(def.events, type)),
    bulk: (knex, fresh, alone, schema) => documentBulk(def, knex, fresh, alone ?? false, schema),
    stage: (knex, events) => stageDocuments(knex, def, events),
  };
}

async function combineStaged(tables: ((knex: Knex, events: RecordedEvent[]) => Promise<StagedWrites>)[], knex: Knex, events: RecordedEvent[]): Promise<StagedWrites> {
  const parts = await Promise.all(tables.map((stage) => stage(knex, events)));
  return {
    write: (add) => parts.forEach((p) => p.write(add)),
    committed: (position, root) => parts.forEach((p) => p.committed?.(position, root)),
  };
}

function combineBulk(parts: BulkApplier[]): BulkApplier {
  return {
    async fold(events) {
      for (const p of parts) await p.fold(events);
    },
    pending: () => parts.reduce((n, p) => n + p.pending(), 0),
    async write(trx) {
      for (const p of parts) await p.write(trx);
    },
  };
}
