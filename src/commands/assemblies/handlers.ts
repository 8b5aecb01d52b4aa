// Assemblies aggregates bound to their streams once, and queueing a lookup with ids derived from the vehicle,
// so any number of concurrent searches and preloads of one vehicle queue one lookup.
import type { CommandContext } from '../../context.ts';
import { vehicleLookupDecider } from '../../domain/assemblies/lookup.ts';
import { assemblySearchDecider } from '../../domain/assemblies/search.ts';
import { type VehicleIdentifier, normaliseVehicleIdentifier, vehicleIdOf } from '../../domain/vehicles/identifier.ts';
import { IdSource } from '../../ids.ts';
import { type CommandResult, commandHandler } from '../run.ts';
import type { LookupStatus, VehicleLookupEvent, VehicleLookupState } from '../../domain/assemblies/lookup.ts';

/** `vehiclelookup-<vehicle id>`. */
export const vehicleLookups = commandHandler(vehicleLookupDecider, (vehicleId) => `vehiclelookup-${vehicleId}`);
/** `assemblysearch-<search id>`. */
export const assemblySearches = commandHandler(assemblySearchDecider, (searchId) => `assemblysearch-${searchId}`);

/** Event ids of one step of one vehicle's lookup: the same on every attempt, by any process. */
export function lookupStepIds(vehicleId: string, step: LookupStatus): IdSource {
  return new IdSource(`vehiclelookup:${vehicleId}:${step}`, 0);
}

/** Queues the lookup of a vehicle unless one exists (a no-op then); returns the vehicle id and the command's result. */
export async function queueLookup(
  ctx: CommandContext,
  identifier: VehicleIdentifier,
  requestedBy: 'search' | 'preload',
): Promise<{ vehicleId: string; result: CommandResult<VehicleLookupEvent, VehicleLookupState> }> {
  const normal = normaliseVehicleIdentifier(identifier);
  const vehicleId = vehicleIdOf(normal);
  const result = await vehicleLookups.run({ ...ctx, ids: lookupStepIds(vehicleId, 'queued') }, vehicleId, {
    type: 'QueueLookup',
    data: { vehicle_id: vehicleId, identifier: normal, requested_by: requestedBy },
  }, { orgId: null });
  return { vehicleId, result };
}
