// Repair job aggregate (`job-<id>`): created as a draft by an integration, then updated (merge) or replaced.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { VehicleIdentifierSchema } from '../vehicles/identifier.ts';
import { jobsErrors } from './errors.ts';
import { EventInstant } from '../event-fields.ts';

/** An optional identifier: `{}` when absent, `{ value }` when known. */
export const OptionalIdentifierSchema = z.object({ value: z.string().optional() });
/** An optional identifier. */
export type OptionalIdentifier = z.infer<typeof OptionalIdentifierSchema>;

/** The job's vehicle: its identifier (decoded details are added once a lookup knows them). */
export const JobVehicleSchema = z.object({ identifier: VehicleIdentifierSchema });

/** The data an integration writes (ExternalInsertV1, with `repairer_site_id` stored as `site_id`). */
export const JobDataSchema = z.object({
  claim_number: OptionalIdentifierSchema,
  job_number: OptionalIdentifierSchema,
  work_provider_id: OptionalIdentifierSchema,
  site_id: z.uuid(),
  vehicle: JobVehicleSchema,
});
/** The data an integration writes. */
export type JobData = z.infer<typeof JobDataSchema>;

/** Job status; only `draft` exists so far. */
export const JobStatusSchema = z.object({ type: z.literal('draft') });
/** Job status. */
export type JobStatus = z.infer<typeof JobStatusSchema>;

/** Events of a job stream (`job-<id>`). */
export const JobEvents = eventSchemas({
  JobCreated: JobDataSchema.extend({
    job_id: z.uuid(),
    organization_id: z.uuid(),
    /** The app (client) whose external id the job carries, and its installation; null if made otherwise. */
    client_id: z.uuid().nullable(),
    integration_id: z.uuid().nullable(),
    external_id: OptionalIdentifierSchema,
    status: JobStatusSchema,
    created_at: EventInstant,
  }),
  JobUpdated: z.object({ changes: JobDataSchema.partial(), updated_at: z.string() }),
  JobReplaced: z.object({ data: JobDataSchema, replaced_at: z.string() }),
});

/** A job event: created as a draft, some fields merged, or the data overwritten (derived from `JobEvents`). */
export type JobEvent = EventOf<typeof JobEvents>;

/** How job events are read. */
export const jobCodec = eventCodec(JobEvents);

/**
 * Create-or-update as jobs.insert asks: no job -> create (only when `create_if_missing`), else merge
 * (`update`) or overwrite (`replace`). `site_ids` are the sites of the caller's organization (a lookup
 * done by the handler, so the decider stays pure).
 */
export type JobCommand = {
  type: 'InsertJob';
  data: {
    job_id: string;
    organization_id: string;
    client_id: string | null;
    integration_id: string | null;
    external_id: OptionalIdentifier;
    fields: Partial<JobData>;
    if_exists: 'update' | 'replace';
    create_if_missing: boolean;
    site_ids: string[];
    now: string;
  };
};

/** What decisions about a job need: whether it exists, whose it is, its data. */
export interface JobState {
  exists: boolean;
  organizationId: string | null;
  data: JobData | null;
}

const NO_IDENTIFIER: OptionalIdentifier = {};

/** Pure job decider. */
export const jobDecider: Decider<JobCommand, JobEvent, JobState> = {
  events: jobCodec,
  initialState: () => ({ exists: false, organizationId: null, data: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'JobCreated': {
        const { claim_number, job_number, work_provider_id, site_id, vehicle, organization_id } = event.data;
        return { exists: true, organizationId: organization_id, data: { claim_number, job_number, work_provider_id, site_id, vehicle } };
      }
      case 'JobUpdated':
        return { ...state, data: state.data && { ...state.data, ...event.data.changes } };
      case 'JobReplaced':
        return { ...state, data: event.data.data };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'InsertJob':
        return insertJob(command.data, state);
      default:
        return assertNever(command.type);
    }
  },
};

function insertJob(c: JobCommand['data'], state: JobState): JobEvent[] {
  if (c.fields.site_id !== undefined && !c.site_ids.includes(c.fields.site_id))
    throw jobsErrors.error('site_not_found', `No site ${c.fields.site_id} in this organization.`);
  // Another organization's job is indistinguishable from a missing one.
  if (!state.exists || state.organizationId !== c.organization_id) {
    if (!c.create_if_missing || state.exists) throw jobsErrors.error('job_not_found', `No job ${c.job_id} in this organization.`);
    const data = complete(c.fields);
    return [
      {
        type: 'JobCreated',
        data: { job_id: c.job_id, organization_id: c.organization_id, client_id: c.client_id, integration_id: c.integration_id, external_id: c.external_id, ...data, status: { type: 'draft' }, created_at: c.now },
      },
    ];
  }
  const current = state.data;
  if (!current) throw jobsErrors.error('job_not_found', 'No such job.');
  if (c.if_exists === 'replace') {
    const data = complete(c.fields);
    if (same(data, current)) return [];
    return [{ type: 'JobReplaced', data: { data, replaced_at: c.now } }];
  }
  const changes = Object.fromEntries(
    Object.entries(c.fields).filter(([k, v]) => v !== undefined && !same(v, current[k as keyof JobData])),
  ) as Partial<JobData>;
  if (Object.keys(changes).length === 0) return [];
  return [{ type: 'JobUpdated', data: { changes, updated_at: c.now } }];
}

// A new or replaced job needs a site and a vehicle; absent identifiers are `{}`.
function complete(fields: Partial<JobData>): JobData {
  const { site_id, vehicle } = fields;
  if (site_id === undefined || vehicle === undefined) {
    const missing = [...(site_id === undefined ? ['data.repairer_site_id'] : []), ...(vehicle === undefined ? ['data.vehicle'] : [])];
    throw jobsErrors.error('job_data_incomplete', `Creating or replacing a job needs ${missing.join(' and ')}.`);
  }
  return {
    claim_number: fields.claim_number ?? NO_IDENTIFIER,
    job_number: fields.job_number ?? NO_IDENTIFIER,
    work_provider_id: fields.work_provider_id ?? NO_IDENTIFIER,
    site_id,
    vehicle,
  };
}

// Structural equality of plain JSON values with keys in any order.
function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, canonical(x)]));
  return v;
}
