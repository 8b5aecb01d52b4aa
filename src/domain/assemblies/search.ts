// Assembly search record (`assemblysearch-<search id>`): one event per search answered with a vehicle's
// assemblies, the fact assemblies.subscribe.stream delivers to the searching organization.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { VehicleIdentifierSchema } from '../vehicles/identifier.ts';

/** Events of a search stream. */
export const AssemblySearchEvents = eventSchemas({
  AssembliesSearchCompleted: z.object({
    search_id: z.uuid(),
    organization_id: z.uuid(),
    vehicle_id: z.uuid(),
    vehicle: VehicleIdentifierSchema,
    hca_ids: z.array(z.string()).nullable(),
    /** Nodes in the answer. */
    result_count: z.number(),
    /** Whether the answer carried the enrichments (part numbers, images) yet. */
    enriched: z.boolean(),
    completed_at: z.string(),
  }),
});

/** An event of a search stream (derived from `AssemblySearchEvents`). */
export type AssemblySearchEvent = EventOf<typeof AssemblySearchEvents>;

/** How search events are read. */
export const assemblySearchCodec = eventCodec(AssemblySearchEvents);

/** Record a completed search. */
export type AssemblySearchCommand = { type: 'RecordSearch'; data: Omit<Extract<AssemblySearchEvent, { type: 'AssembliesSearchCompleted' }>['data'], 'completed_at'> & { now: string } };

/** Whether the search was recorded (a search is recorded once). */
export interface AssemblySearchState {
  recorded: boolean;
}

/** Pure search decider. */
export const assemblySearchDecider: Decider<AssemblySearchCommand, AssemblySearchEvent, AssemblySearchState> = {
  events: assemblySearchCodec,
  initialState: () => ({ recorded: false }),
  evolve(_state, event) {
    switch (event.type) {
      case 'AssembliesSearchCompleted':
        return { recorded: true };
      default:
        return assertNever(event.type);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'RecordSearch': {
        if (state.recorded) return [];
        const { now, ...data } = command.data;
        return [{ type: 'AssembliesSearchCompleted', data: { ...data, completed_at: now } }];
      }
      default:
        return assertNever(command.type);
    }
  },
};
