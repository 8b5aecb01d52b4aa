// The ingest area: async imports of sellable items (core API for supplier organizations, integrations API for the `supplier` scope).
import { asyncImportsCommit, asyncImportsCommitIntegration, asyncImportsPrepare, asyncImportsPrepareIntegration } from '../commands/ingest/imports.ts';
import { ingestImportsProjection } from '../projections/ingest/imports.ts';
import { ingestSellableItemsProjection } from '../projections/ingest/sellable-items.ts';
import { asyncImportsGet, asyncImportsGetIntegration, sellableItemsList, sellableItemsListIntegration } from '../queries/ingest/operations.ts';
import { importsWorker } from '../workers/ingest/imports.ts';
import { ingestImportWorkCommands } from '../commands/ingest/import-work.ts';
import type { Area } from './area.ts';

/** Typed ingest operations of the core API (tests call them through these). */
export const ingestOperations = [asyncImportsPrepare, asyncImportsCommit, asyncImportsGet, sellableItemsList];
/** Their twins on the integrations API. */
export const ingestIntegrationOperations = [asyncImportsPrepareIntegration, asyncImportsCommitIntegration, asyncImportsGetIntegration, sellableItemsListIntegration];

/** The ingest area as the composition root assembles it. */
export const ingest: Area = { name: 'ingest', operations: [...ingestOperations, ...ingestIntegrationOperations, ...ingestImportWorkCommands], projections: [ingestImportsProjection, ingestSellableItemsProjection], workers: [importsWorker] };
