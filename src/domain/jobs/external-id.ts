// External job id reservation (`jobexternal-<v5(org, client, value)>`): the first reservation wins, so one
// organization never has two jobs with the same external id from one integration (app), even under a race.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { nameId } from '../../ids.ts';

/** Events of a reservation stream. */
export const JobExternalIdEvents = eventSchemas({
  JobExternalIdReserved: z.object({ organization_id: z.uuid(), client_id: z.uuid(), integration_id: z.uuid(), external_id: z.string(), job_id: z.uuid(), reserved_at: z.string() }),
});

/** The external id was taken by a job (derived from `JobExternalIdEvents`). */
export type JobExternalIdEvent = EventOf<typeof JobExternalIdEvents>;

/** How external id reservation events are read. */
export const jobExternalIdCodec = eventCodec(JobExternalIdEvents);

/** Take the external id for a job (a no-op when already taken). */
export type JobExternalIdCommand = {
  type: 'ReserveJobExternalId';
  data: { organization_id: string; client_id: string; integration_id: string; external_id: string; job_id: string; now: string };
};

/** Which job holds the external id, if any. */
export interface JobExternalIdState {
  jobId: string | null;
}

/** The reservation stream of an external id of one integration (client app) in one organization; reinstalling keeps it. */
export function jobExternalIdStream(organizationId: string, clientId: string, externalId: string): string {
  return `jobexternal-${nameId('job-external', JSON.stringify([organizationId, clientId, externalId]))}`;
}

/** Pure reservation decider: reserving a taken id is not an error, the state names the holder. */
export const jobExternalIdDecider: Decider<JobExternalIdCommand, JobExternalIdEvent, JobExternalIdState> = {
  events: jobExternalIdCodec,
  initialState: () => ({ jobId: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'JobExternalIdReserved':
        return state.jobId ? state : { jobId: event.data.job_id };
      default:
        return assertNever(event.type);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'ReserveJobExternalId': {
        if (state.jobId) return [];
        const { now, ...rest } = command.data;
        return [{ type: 'JobExternalIdReserved', data: { ...rest, reserved_at: now } }];
      }
      default:
        return assertNever(command.type);
    }
  },
};
