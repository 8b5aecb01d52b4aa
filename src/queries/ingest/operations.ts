// async-imports.get and sellable-items.list (extensions), on the core API (supplier organizations) and the integrations API (`supplier` scope).
import { operation } from '../../contract/operation.ts';
import type { RequestContext } from '../../context.ts';
import { AsyncImportDetail, AsyncImportsGetRequest, SellableItemsListRequest, SellableItemsListResponse } from '../../contract/schemas/ingest.ts';
import { ingestErrors } from '../../domain/ingest/errors.ts';
import { importDetail, supplierOrganization, visibleImport } from './imports.ts';
import { listSellableItems } from './sellable-items.ts';
import { caughtUp } from '../../pipeline/read-models.ts';
import { ingestImportsProjection } from '../../projections/ingest/imports.ts';
import { ingestSellableItemsProjection } from '../../projections/ingest/sellable-items.ts';

const WHO = 'Supplier organizations only (core API); integrations with the `supplier` scope (integrations API).';

const getDef = {
  id: 'async-imports.get' as const,
  examples: {
    request: { id: '019387ea-5dfc-7b8e-884d-848979496e70' },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      kind: 'sellable_items' as const,
      format: 'csv' as const,
      status: 'completed' as const,
      size: 20480,
      counts: { total: 120, ok: 119, failed: 1 },
      errors: { items: [{ line: 42, field: 'price.amount', message: 'must be a whole number of minor units' }], pagination: null },
      errors_truncated: false,
      failure: null,
      created_at: '2026-01-15T09:30:00.000Z',
      expires_at: '2026-01-15T10:30:00.000Z',
      committed_at: '2026-01-15T09:31:12.000Z',
      completed_at: '2026-01-15T09:31:15.000Z',
    },
  },
  tags: ['Ingest'],
  summary: 'Status, counts and row errors of an import.',
  description: `Extension. Counts grow while the import is processed; \`limit\` and \`cursor\` page the row errors (by line). ${WHO}`,
  request: AsyncImportsGetRequest,
  response: AsyncImportDetail,
  error: 'ingest.AsyncImportsGetError',
  errors: ingestErrors.list('forbidden', 'import_not_found', 'invalid_cursor', 'projection_lag'),
  async handle(ctx: RequestContext, req: { id: string; limit: number; cursor?: string }) {
    const organizationId = await supplierOrganization(ctx);
    // What the worker recorded before this request is in the answer.
    await caughtUp(ctx.services, [ingestImportsProjection]);
    return importDetail(ctx, await visibleImport(ctx, organizationId, req.id), req);
  },
};

const listDef = {
  id: 'sellable-items.list' as const,
  examples: {
    request: { sku: 'BRK-PAD-001' },
    response: {
      items: [
        {
          sku: 'BRK-PAD-001',
          title: 'Front brake pads',
          description: 'Ceramic pads, front axle, with wear sensor',
          price: { amount: 12000, currency: 'GBP' },
          stock_quantity: 14,
          hca_ids: ['01934296-8ce2-7607-8788-808e486e8403'],
          part_numbers: ['0 986 494 524'],
          import_id: '01934ed7-33f5-7cc7-8cec-27187bd90eba',
          created_at: '2026-01-15T09:30:00.000Z',
          updated_at: '2026-01-15T09:30:00.000Z',
        },
      ],
      pagination: null,
    },
  },
  tags: ['Ingest'],
  summary: "The caller's sellable items, by SKU.",
  description: `Extension. The read model imports build: one item per SKU, the last imported version. ${WHO}`,
  request: SellableItemsListRequest,
  response: SellableItemsListResponse,
  error: 'ingest.SellableItemsListError',
  errors: ingestErrors.list('forbidden', 'invalid_cursor', 'projection_lag'),
  async handle(ctx: RequestContext, req: { limit: number; cursor?: string; sku?: string }) {
    const organizationId = await supplierOrganization(ctx);
    await caughtUp(ctx.services, [ingestSellableItemsProjection]);
    return listSellableItems(ctx, organizationId, req);
  },
};

/** async-imports.get on the core API. */
export const asyncImportsGet = operation({ ...getDef, surface: 'core', access: 'org_user' });
/** async-imports.get on the integrations API. */
export const asyncImportsGetIntegration = operation({ ...getDef, surface: 'integrations', access: { integration: ['supplier'] } });
/** sellable-items.list on the core API. */
export const sellableItemsList = operation({ ...listDef, surface: 'core', access: 'org_user' });
/** sellable-items.list on the integrations API. */
export const sellableItemsListIntegration = operation({ ...listDef, surface: 'integrations', access: { integration: ['supplier'] } });
