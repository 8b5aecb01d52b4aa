// Schemas of the repair-job and vehicle-preload operations of the integrations API, named as the spec names them.
import { z } from 'zod';
import { Timestamp, Uuid } from './common.ts';
import { isCountryCode } from '../../domain/vehicles/identifier.ts';
import { MAX_PRELOAD_IDENTIFIERS } from '../../domain/vehicles/preload.ts';

const IdentifierValue = z.string().trim().min(1).max(200);

/** `{}` when absent, `{ "value": "..." }` when known. */
export const OptionalIdentifierV1 = z
  .strictObject({ value: IdentifierValue.optional().describe('The identifier (1-200 characters); omit the key for "none".') })
  .describe('An optional identifier: `{}` when absent, `{ "value": string }` when known.')
  .meta({ id: 'OptionalIdentifierV1' });

/** Where a plate was issued. */
export const LocationV1 = z
  .strictObject({
    country: z.string().refine(isCountryCode, 'must be an ISO 3166-1 alpha-2 country code, e.g. GB').describe('ISO 3166-1 alpha-2 country code (GB, not UK); stored upper case.'),
    region: z.string().trim().min(1).max(100).optional().describe('Region of issue where plates are regional (e.g. a US state); stored upper case.'),
  })
  .meta({ id: 'LocationV1' });

const Plate = z.string().max(30).regex(/\S/, 'must not be blank').describe('Licence plate; upper-cased and stripped of spaces before use.');

/** A chassis number or a licence plate (VRM) with its location. A VRM gives better lookups. */
export const VehicleIdentifierV1 = z
  .union([
    z.strictObject({ chassis_number: z.string().max(50).regex(/\S/, 'must not be blank').describe('Chassis number (VIN); upper-cased and stripped of spaces.') }).describe('Chassis number'),
    z.strictObject({ vrm: z.strictObject({ plate: Plate, location: LocationV1 }).describe('Licence plate and where it was issued.') }).describe('Location / VRM (licence plate)'),
  ])
  .describe('Exactly one of `chassis_number` or `vrm`. Prefer the VRM: it disambiguates variants such as trim or colour.')
  .meta({ id: 'VehicleIdentifierV1' });

/** The job's own id, or the caller's own id for it. */
export const JobIdentityV1 = z
  .union([
    z.strictObject({ id: Uuid.describe('The job id this service gave the job.') }),
    z.strictObject({ external: z.strictObject({ value: IdentifierValue.describe('Your id for the job (1-200 characters).') }).describe('Your own id for the job; unique per organization and integration.') }),
  ])
  .describe('Exactly one of `id` (our id) or `external` (yours).')
  .meta({ id: 'JobIdentityV1' });

/** The vehicle as written: its identifier. */
export const JobVehicleInput = z.strictObject({ identifier: VehicleIdentifierV1 }).meta({ id: 'JobVehicleInputV1' });

/** The data of a job write. */
export const ExternalInsertV1 = z
  .strictObject({
    claim_number: OptionalIdentifierV1.optional().describe('Insurance claim number.'),
    job_number: OptionalIdentifierV1.optional().describe('Your job number.'),
    repairer_site_id: Uuid.optional().describe('Site of your organization the repair happens at. Required to create or replace.'),
    vehicle: JobVehicleInput.optional().describe('The vehicle. Required to create or replace.'),
    work_provider_id: OptionalIdentifierV1.optional().describe('Id of the work provider (insurer, fleet).'),
  })
  .describe('Job fields. Creating or replacing needs `repairer_site_id` and `vehicle`; omitted identifiers are `{}`. Updating changes only the fields given (`{}` clears an identifier).')
  .meta({ id: 'ExternalInsertV1' });

/** What to do when the job exists. */
export const IfConflictOnInsert = z
  .strictObject({ exists: z.enum(['update', 'replace']).describe('`update` merges the given fields; `replace` overwrites the data.') })
  .meta({ id: 'IfConflictOnInsert' });

/** jobs.get body: which job. */
export const JobsGetRequest = z.strictObject({ identity: JobIdentityV1 }).meta({ id: 'JobsGetRequest' });

/** jobs.insert body: the data, which job, and what to do if it exists. */
export const JobsInsertRequest = z
  .strictObject({ data: ExternalInsertV1, identity: JobIdentityV1, if_: IfConflictOnInsert })
  .describe('No job with that identity: created as a draft (only an `external` identity can create). Otherwise `if_.exists` decides.')
  .meta({ id: 'JobsInsertRequest' });

/** Where the job is in its life; `draft` on creation. */
export const JobStatus = z.object({ type: z.enum(['draft']).describe('Only `draft` so far.') }).meta({ id: 'JobStatusV1' });

/** A repair job as every job operation returns it. */
export const Job = z
  .object({
    id: Uuid.describe('Job id.'),
    external_id: OptionalIdentifierV1.describe('Your id for the job, `{}` if it has none.'),
    claim_number: OptionalIdentifierV1,
    job_number: OptionalIdentifierV1,
    work_provider_id: OptionalIdentifierV1,
    vehicle: z.object({ identifier: VehicleIdentifierV1 }).describe('The vehicle: its normalised identifier, plus decoded details once known.'),
    site_id: Uuid.describe('The repairer site.'),
    images: z.array(z.string()).describe('Image URLs of the job.'),
    status: JobStatus,
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Job' });

/** vehicles.preload body: 1-100 identifiers. */
export const VehiclesPreloadRequest = z
  .strictObject({
    identifiers: z
      .array(VehicleIdentifierV1)
      .min(1, 'at least 1 identifier is required')
      .max(MAX_PRELOAD_IDENTIFIERS, `at most ${MAX_PRELOAD_IDENTIFIERS} identifiers per request`)
      .describe(`1 to ${MAX_PRELOAD_IDENTIFIERS} vehicle identifiers; duplicates (after normalisation) count once.`),
  })
  .meta({ id: 'VehiclesPreloadRequest' });

/** A repairer site of the organization, for `repairer_site_id`. */
export const SiteV1 = z.object({ id: Uuid.describe('Send as `data.repairer_site_id`.'), name: z.string().describe('Name of the site.') }).meta({ id: 'SiteV1' });

/** sites.list answer: every site of the organization, oldest first. */
export const SiteListV1 = z.object({ items: z.array(SiteV1).describe('The sites, oldest first.') }).meta({ id: 'SiteListV1' });
