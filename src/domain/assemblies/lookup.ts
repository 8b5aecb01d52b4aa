// Vehicle lookup (`vehiclelookup-<vehicle id>`): one per vehicle, whoever asks first. Queued once, then the
// provider's assembly tree arrives, then its enrichments (part numbers, images); or the vehicle is unknown.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { VehicleIdentifierSchema } from '../vehicles/identifier.ts';
import { assembliesErrors } from './errors.ts';
import { EventInstant } from '../event-fields.ts';

/** One node of a vehicle's assembly tree (HCA taxonomy). */
export const HcaNodeSchema = z.object({
  hca_id: z.string(),
  parent_id: z.string().nullable(),
  level: z.enum(['system', 'assembly', 'part']),
  name: z.string(),
  synonyms: z.array(z.string()),
});

/** What the provider decoded. */
export const DecodedVehicleSchema = z.object({
  make: z.string(),
  model: z.string(),
  variant: z.string().nullable(),
  trim: z.string().nullable(),
  colour: z.string().nullable(),
  body: z.string(),
  fuel: z.string(),
  year: z.number(),
  vin: z.string().nullable(),
  candidates: z.array(z.object({ variant: z.string(), fuel: z.string(), body: z.string() })),
  decoded_from: z.enum(['vrm', 'chassis_number']),
});

/** Part numbers and images of one node. */
export const EnrichmentSchema = z.object({ hca_id: z.string(), part_numbers: z.array(z.string()), images: z.array(z.string()) });

/** Events of a vehicle lookup stream. */
export const VehicleLookupEvents = eventSchemas({
  VehicleLookupQueued: z.object({
    vehicle_id: z.uuid(),
    identifier: VehicleIdentifierSchema,
    /** What asked first: a search or a preload. */
    requested_by: z.enum(['search', 'preload']),
    queued_at: EventInstant,
  }),
  AssemblyTreeReady: z.object({ vehicle_id: z.uuid(), vehicle: DecodedVehicleSchema, tree: z.array(HcaNodeSchema), provider: z.string(), ready_at: EventInstant }),
  AssemblyEnrichmentsReady: z.object({ vehicle_id: z.uuid(), enrichments: z.array(EnrichmentSchema), provider: z.string(), ready_at: EventInstant }),
  VehicleLookupFailed: z.object({ vehicle_id: z.uuid(), reason: z.enum(['vehicle_not_found']), provider: z.string(), failed_at: EventInstant }),
});

/** An event of a vehicle lookup (derived from `VehicleLookupEvents`). */
export type VehicleLookupEvent = EventOf<typeof VehicleLookupEvents>;

/** How lookup events are read. */
export const vehicleLookupCodec = eventCodec(VehicleLookupEvents);

type Data<T extends VehicleLookupEvent['type']> = Omit<Extract<VehicleLookupEvent, { type: T }>['data'], 'queued_at' | 'ready_at' | 'failed_at' | 'vehicle_id'>;

/** Commands on a lookup: queue it (idempotent), record the provider's tree, its enrichments, or that it does not know the vehicle. */
export type VehicleLookupCommand =
  | { type: 'QueueLookup'; data: Data<'VehicleLookupQueued'> & { vehicle_id: string; now: string } }
  | { type: 'RecordTree'; data: Data<'AssemblyTreeReady'> & { vehicle_id: string; now: string } }
  | { type: 'RecordEnrichments'; data: Data<'AssemblyEnrichmentsReady'> & { vehicle_id: string; now: string } }
  | { type: 'RecordNotFound'; data: Data<'VehicleLookupFailed'> & { vehicle_id: string; now: string } };

/** Where a lookup is. */
export type LookupStatus = 'none' | 'queued' | 'tree_ready' | 'enriched' | 'not_found';

/** A lookup's state: its status is all the decisions need. */
export interface VehicleLookupState {
  status: LookupStatus;
}

/** Pure lookup decider: queueing twice is a no-op; the tree comes after queueing, enrichments after the tree. */
export const vehicleLookupDecider: Decider<VehicleLookupCommand, VehicleLookupEvent, VehicleLookupState> = {
  events: vehicleLookupCodec,
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'VehicleLookupQueued':
        return { status: 'queued' };
      case 'AssemblyTreeReady':
        return { status: 'tree_ready' };
      case 'AssemblyEnrichmentsReady':
        return { status: 'enriched' };
      case 'VehicleLookupFailed':
        return { status: 'not_found' };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'QueueLookup': {
        if (state.status !== 'none') return [];
        const { now, ...data } = command.data;
        return [{ type: 'VehicleLookupQueued', data: { ...data, queued_at: now } }];
      }
      case 'RecordTree': {
        if (state.status === 'none') throw assembliesErrors.error('lookup_not_queued', 'This vehicle has no lookup queued.');
        if (state.status !== 'queued') return [];
        const { now, ...data } = command.data;
        return [{ type: 'AssemblyTreeReady', data: { ...data, ready_at: now } }];
      }
      case 'RecordEnrichments': {
        if (state.status === 'none' || state.status === 'queued') throw assembliesErrors.error('lookup_not_queued', 'Enrichments come after the assembly tree.');
        if (state.status !== 'tree_ready') return [];
        const { now, ...data } = command.data;
        return [{ type: 'AssemblyEnrichmentsReady', data: { ...data, ready_at: now } }];
      }
      case 'RecordNotFound': {
        if (state.status === 'none') throw assembliesErrors.error('lookup_not_queued', 'This vehicle has no lookup queued.');
        if (state.status !== 'queued') return [];
        const { now, ...data } = command.data;
        return [{ type: 'VehicleLookupFailed', data: { ...data, failed_at: now } }];
      }
      default:
        return assertNever(command);
    }
  },
};
