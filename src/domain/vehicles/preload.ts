// Vehicle preload (`vehiclepreload-<id>`): one request of an integration to warm the assembly data of
// some vehicles. One VehiclePreloadRequested event per distinct identifier; the assembly lookups read them.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { type VehicleIdentifier, VehicleIdentifierSchema, normaliseVehicleIdentifier, vehicleIdOf, vehicleKey } from './identifier.ts';
import { vehiclesErrors } from './errors.ts';

/** Most identifiers one preload request may carry (the spec's limit). */
export const MAX_PRELOAD_IDENTIFIERS = 100;

/** Events of a preload stream. */
export const VehiclePreloadEvents = eventSchemas({
  VehiclePreloadRequested: z.object({
    preload_id: z.uuid(),
    /** Stable id of the vehicle the identifier names (v5 of its canonical form). */
    vehicle_id: z.uuid(),
    identifier: VehicleIdentifierSchema,
    organization_id: z.uuid(),
    integration_id: z.uuid().nullable(),
    requested_at: z.string(),
  }),
});

/** One identifier (normalised) an integration asked to have looked up (derived from `VehiclePreloadEvents`). */
export type VehiclePreloadEvent = EventOf<typeof VehiclePreloadEvents>;

/** How preload events are read. */
export const vehiclePreloadCodec = eventCodec(VehiclePreloadEvents);

/** Record a preload request of some identifiers. */
export type VehiclePreloadCommand = {
  type: 'RequestVehiclePreload';
  data: { preload_id: string; identifiers: VehicleIdentifier[]; organization_id: string; integration_id: string | null; now: string };
};

/** Whether this preload was recorded already (a preload never changes). */
export interface VehiclePreloadState {
  requested: boolean;
}

/** Pure preload decider: normalises, collapses duplicates, enforces 1..100. */
export const vehiclePreloadDecider: Decider<VehiclePreloadCommand, VehiclePreloadEvent, VehiclePreloadState> = {
  events: vehiclePreloadCodec,
  initialState: () => ({ requested: false }),
  evolve(_state, event) {
    switch (event.type) {
      case 'VehiclePreloadRequested':
        return { requested: true };
      default:
        return assertNever(event.type);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'RequestVehiclePreload': {
        const { identifiers, now, ...rest } = command.data;
        if (identifiers.length < 1 || identifiers.length > MAX_PRELOAD_IDENTIFIERS)
          throw vehiclesErrors.error('invalid_identifier_count', `A preload takes 1 to ${MAX_PRELOAD_IDENTIFIERS} identifiers; got ${identifiers.length}.`);
        if (state.requested) return [];
        const distinct = new Map<string, VehicleIdentifier>();
        for (const id of identifiers) if (!distinct.has(vehicleKey(id))) distinct.set(vehicleKey(id), normaliseVehicleIdentifier(id));
        return [...distinct.values()].map((identifier) => ({
          type: 'VehiclePreloadRequested',
          data: { ...rest, vehicle_id: vehicleIdOf(identifier), identifier, requested_at: now },
        }));
      }
      default:
        return assertNever(command.type);
    }
  },
};
