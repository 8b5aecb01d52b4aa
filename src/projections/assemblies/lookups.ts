// assembly_lookups: one document per vehicle lookup (its tree and enrichments once ready), read by queries/assemblies/lookups.ts.
import type { z } from 'zod';
import { type DecodedVehicleSchema, type EnrichmentSchema, type HcaNodeSchema, type VehicleLookupEvent, vehicleLookupCodec } from '../../domain/assemblies/lookup.ts';
import type { VehicleIdentifier } from '../../domain/vehicles/identifier.ts';
import type { LogPosition } from '../../eventstore/port.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';

/** A vehicle lookup as searches and the updates stream read it. */
export interface LookupDoc {
  vehicle_id: string;
  identifier: VehicleIdentifier;
  status: 'queued' | 'tree_ready' | 'enriched' | 'not_found';
  requested_by: 'search' | 'preload';
  queued_at: string;
  tree_ready_at: string | null;
  enriched_at: string | null;
  vehicle: z.output<typeof DecodedVehicleSchema> | null;
  tree: z.output<typeof HcaNodeSchema>[];
  enrichments: z.output<typeof EnrichmentSchema>[];
  /** Log position of the last change of the answer (the updates stream's event id). */
  changed_at_position: LogPosition;
}

/** Builds assembly_lookups from vehicle lookup events. */
export const assemblyLookupsProjection = documentProjection({
  name: 'assemblies.lookups',
  version: 1,
  tables: [
    documentTable<LookupDoc, VehicleLookupEvent>({
      table: 'assembly_lookups',
      events: vehicleLookupCodec,
      columns: (d) => ({ status: d.status, updated_at: d.enriched_at ?? d.tree_ready_at ?? d.queued_at }),
      handlers: {
        VehicleLookupQueued: (doc, d, e) =>
          doc ?? { vehicle_id: d.vehicle_id, identifier: d.identifier, status: 'queued', requested_by: d.requested_by, queued_at: d.queued_at, tree_ready_at: null, enriched_at: null, vehicle: null, tree: [], enrichments: [], changed_at_position: e.position },
        AssemblyTreeReady: (doc, d, e) => doc && { ...doc, status: 'tree_ready', vehicle: d.vehicle, tree: d.tree, tree_ready_at: d.ready_at, changed_at_position: e.position },
        AssemblyEnrichmentsReady: (doc, d, e) => doc && { ...doc, status: 'enriched', enrichments: d.enrichments, enriched_at: d.ready_at, changed_at_position: e.position },
        VehicleLookupFailed: (doc, d, e) => doc && { ...doc, status: 'not_found', tree_ready_at: d.failed_at, changed_at_position: e.position },
      },
    }),
  ],
});
