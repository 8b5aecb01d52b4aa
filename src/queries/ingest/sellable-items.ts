// Reads ingest_sellable_items (written by projections/ingest/sellable-items.ts): a supplier's catalogue by SKU.
import type { RequestContext } from '../../context.ts';
import type { SellableItemDoc } from '../../projections/ingest/sellable-items.ts';
import { cursorParts, cursorShape, keysetPage } from '../pagination.ts';

/** The API body of a sellable item. */
export function sellableItemBody(d: SellableItemDoc) {
  return { ...d.item, import_id: d.import_id, created_at: d.created_at, updated_at: d.updated_at };
}

/** One page of an organization's sellable items, by SKU. */
export async function listSellableItems(ctx: RequestContext, organizationId: string, req: { limit: number; cursor?: string; sku?: string }) {
  const q = ctx.services.knex('ingest_sellable_items').where({ organization_id: organizationId }).select('sku', 'doc');
  if (req.sku !== undefined) q.andWhere({ sku: req.sku });
  const res = await keysetPage<{ sku: string; doc: SellableItemDoc }>(q, { columns: ['sku'], shape: cursorShape(cursorParts.sku), limit: req.limit, cursor: req.cursor, key: (r) => [r.sku] });
  return { items: res.rows.map((r) => sellableItemBody(r.doc)), pagination: res.pagination };
}
