// async-imports.get and sellable-items.list (extensions), on the core API (supplier organizations) and the integrations API (`supplier` scope).
import { operation } from '../../contract/operation.ts';
import type { RequestContext } from '../../context.ts';
import { AsyncImportDetail, AsyncImportsGetRequest, SellableItemsListRequest, SellableItemsListResponse } from '../../contract/schemas/ingest.ts';
import { ingestErrors } from '../../domain/ingest/errors.ts';
import { importDetail, supplierOrganization, visibleImport } from './imports.ts';
import { listSellableItems } from './sellable-items.ts';
import { caughtUp } from '../billing/caught-up.ts';
import { ingestImportsProjection } from '../../projections/ingest/imports.ts';
import { ingestSellableItemsProjection } from '../../projections/ingest/sellable-items.ts';

const WHO = 'Supplier organizations only (core API); integrations with the `supplier` scope (integrations API).';

const getDef = {
  id: 'async-imports.get' as const,
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
    await caughtUp(ctx, [ingestImportsProjection]);
    return importDetail(ctx, await visibleImport(ctx, organizationId, req.id), req);
  },
};

const listDef = {
  id: 'sellable-items.list' as const,
  tags: ['Ingest'],
  summary: "The caller's sellable items, by SKU.",
  description: `Extension. The read model imports build: one item per SKU, the last imported version. ${WHO}`,
  request: SellableItemsListRequest,
  response: SellableItemsListResponse,
  error: 'ingest.SellableItemsListError',
  errors: ingestErrors.list('forbidden', 'invalid_cursor', 'projection_lag'),
  async handle(ctx: RequestContext, req: { limit: number; cursor?: string; sku?: string }) {
    const organizationId = await supplierOrganization(ctx);
    await caughtUp(ctx, [ingestSellableItemsProjection]);
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
