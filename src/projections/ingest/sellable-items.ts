// ingest_sellable_items: the supplier's catalogue, one row per (organization, SKU), from the items of recorded import chunks.
// An identical row changes nothing (updated_at and import_id stay); a changed row replaces the item.
import type { Knex } from 'knex';
import type { RecordedEvent } from '../../eventstore/port.ts';
import { importCodec } from '../../domain/ingest/import.ts';
import type { SellableItem } from '../../domain/ingest/sellable-item.ts';
import { nameId } from '../../ids.ts';
import type { Projection } from '../projection.ts';
import { readRecorded } from '../recorded.ts';

/** The stored sellable item. */
export interface SellableItemDoc {
  organization_id: string;
  sku: string;
  item: SellableItem;
  import_id: string;
  created_at: string;
  updated_at: string;
}

/** The row id of a supplier's SKU. */
export function sellableItemId(organizationId: string, sku: string): string {
  return nameId('sellable-item', `${organizationId}/${sku}`);
}

// One statement per chunk (SKUs are unique within a file, so a statement never touches a row twice), in log order.
async function applyChunk(trx: Knex.Transaction, e: RecordedEvent): Promise<void> {
  const read = readRecorded(importCodec, e);
  if (read.type !== 'ImportChunkRecorded' || read.data.items.length === 0) return;
  const at = e.createdAt.toISOString();
  const importId = read.data.import_id;
  const org = read.data.organization_id;
  const rows = read.data.items.map(({ item }) => {
    const doc: SellableItemDoc = { organization_id: org, sku: item.sku, item, import_id: importId, created_at: at, updated_at: at };
    return { id: sellableItemId(org, item.sku), organization_id: org, sku: item.sku, updated_at: at, doc };
  });
  await trx.raw(
    `insert into ingest_sellable_items (id, organization_id, sku, updated_at, doc)
     select id, organization_id, sku, updated_at, doc from jsonb_populate_recordset(null::ingest_sellable_items, ?::jsonb)
     on conflict (id) do update set updated_at = excluded.updated_at,
       doc = excluded.doc || jsonb_build_object('created_at', ingest_sellable_items.doc->'created_at')
     where ingest_sellable_items.doc->'item' is distinct from excluded.doc->'item'`,
    [JSON.stringify(rows)],
  );
}

/** Builds ingest_sellable_items from ImportChunkRecorded events. */
export const ingestSellableItemsProjection: Projection = {
  name: 'ingest.sellable-items',
  version: 1,
  tables: ['ingest_sellable_items'],
  handles: (type) => type === 'ImportChunkRecorded',
  async apply(trx, events) {
    for (const e of events) if (e.type === 'ImportChunkRecorded') await applyChunk(trx, e);
  },
};
