// vehicles.preload: records vehicle identifiers, one event per distinct vehicle, and queues their assembly lookups.
import { operation } from '../../contract/operation.ts';
import { Empty } from '../../contract/schemas/common.ts';
import { VehiclesPreloadRequest } from '../../contract/schemas/jobs.ts';
import { MAX_PRELOAD_IDENTIFIERS } from '../../domain/vehicles/preload.ts';
import { integrationCaller } from '../../queries/jobs/jobs.ts';
import { vehiclePreloads } from '../jobs/handlers.ts';
import { vehiclesErrors } from '../../domain/vehicles/errors.ts';
import { vehicleKey } from '../../domain/vehicles/identifier.ts';
import { queueLookup } from '../assemblies/handlers.ts';

/** The paid feature of queueing vehicle lookups ahead of demand. */
export const VEHICLE_DATA_PRELOAD = 'vehicle_data_preload';

/** vehicles.preload: record identifiers for the assembly lookups. */
export const vehiclesPreload = operation({
  id: 'vehicles.preload',
  examples: {
    request: { identifiers: [{ chassis_number: 'WVWZZZ1JZXW000001' }] },
    response: {},
  },
  surface: 'integrations',
  tags: ['Integrations'],
  summary: 'Queues vehicle identifiers so their assembly data is ready when it is asked for.',
  description: `1 to ${MAX_PRELOAD_IDENTIFIERS} identifiers per request; duplicates (after normalising plates to upper case without spaces) count once. Prefer a VRM over a chassis number: it gives better data and tells variants such as trim or colour apart.`,
  request: VehiclesPreloadRequest,
  response: Empty,
  error: 'VehiclesPreloadError',
  errors: vehiclesErrors.list('invalid_identifier_count'),
  access: { integration: ['supplier'] },
  entitlement: VEHICLE_DATA_PRELOAD,
  write: true,
  async handle(ctx, req) {
    const caller = integrationCaller(ctx);
    const preloadId = ctx.ids.next();
    await vehiclePreloads.run(ctx, preloadId, {
      type: 'RequestVehiclePreload',
      data: { preload_id: preloadId, identifiers: req.identifiers, organization_id: caller.organizationId, integration_id: caller.integrationId },
    }, { orgId: caller.organizationId });
    // Queue the lookups now (each once per vehicle, whoever asks), so a later search finds the answer ready.
    const distinct = new Map(req.identifiers.map((id) => [vehicleKey(id), id]));
    for (const id of distinct.values()) await queueLookup(ctx, id, 'preload');
    return {};
  },
});

/** Write operations on vehicles. */
export const vehicleCommands = [vehiclesPreload];
