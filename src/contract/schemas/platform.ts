// Schemas of the platform operations: the health of the read models and their repair (extension operations).
import { z } from 'zod';
import { Timestamp, Uuid } from './common.ts';

/** platform.ProjectionFailure: the event a read model stopped at. */
export const ProjectionFailureSchema = z
  .object({
    position: z.string().describe('Log position of the event (the resume_point format).'),
    event_id: Uuid,
    stream_id: z.string().describe('The stream of the event, e.g. `customer-<id>`.'),
    type: z.string().describe('Its stored event type.'),
    error: z.string().describe('The class of the error (ZodError: the data does not match its schema; DatabaseError: a value the read model cannot store).'),
    message: z.string().describe('What went wrong, as the error said it.'),
    failed_at: Timestamp,
  })
  .meta({ id: 'platform.ProjectionFailure' });

/** platform.ProjectionStatus */
export const ProjectionStatusSchema = z
  .object({
    name: z.string().describe('The read model (projection) name, e.g. `billing.customers`.'),
    state: z.enum(['running', 'catching_up', 'failed']).describe('running: applying the live log; catching_up: replaying behind it; failed: stopped at `failure.event_id` until retried, skipped or rebuilt.'),
    position: z.string().nullable().describe('The last log position it applied; null before any.'),
    lag_seconds: z.number().describe('Age of the oldest event it has not applied; 0 when caught up. Grows while it is stalled.'),
    failure: ProjectionFailureSchema.nullable(),
  })
  .meta({ id: 'platform.ProjectionStatus' });

/** platform.ProjectionSkip */
export const ProjectionSkipSchema = z
  .object({
    projection: z.string(),
    event_id: Uuid,
    stream_id: z.string(),
    position: z.string(),
    type: z.string(),
    reason: z.string(),
    actor: z.string().describe('Who skipped it: `staff:<user id>` or `cli:<operating-system user>`.'),
    skipped_at: Timestamp,
  })
  .meta({ id: 'platform.ProjectionSkip' });

/** platform.UnreadableStream */
export const UnreadableStreamSchema = z
  .object({
    stream_id: z.string(),
    event_id: Uuid,
    revision: z.int(),
    type: z.string(),
    error: z.string().describe('Why the event does not read as its type.'),
    first_seen_at: Timestamp,
    last_seen_at: Timestamp,
  })
  .meta({ id: 'platform.UnreadableStream' });

/** platform.HealthResponse */
export const HealthResponse = z
  .object({
    status: z.enum(['ok', 'degraded']).describe('degraded while any read model is failed or over 30 s behind, or any stream is unreadable.'),
    projections: z.array(ProjectionStatusSchema),
    skips: z.array(ProjectionSkipSchema).describe('Every event an operator left out of a read model, oldest first.'),
    unreadable_streams: z.array(UnreadableStreamSchema).describe('Streams whose commands answer 409 stream_unreadable until the event is repaired.'),
  })
  .meta({ id: 'platform.HealthResponse' });

const ProjectionName = z.string().min(1).max(100).describe('The read model (projection) name, as platform.health.get lists it.');

/** platform.ProjectionRetryRequest */
export const ProjectionRetryRequest = z.strictObject({ name: ProjectionName }).meta({ id: 'platform.ProjectionRetryRequest' });

/** platform.ProjectionSkipRequest */
export const ProjectionSkipRequest = z
  .strictObject({
    name: ProjectionName,
    event_id: Uuid.describe('The event it failed at (`failure.event_id`): only that event can be skipped, so a skip is always a decision about a known failure.'),
    reason: z.string().trim().min(1).max(1000).describe('Why (kept with the skip, shown in history and on the health page).'),
  })
  .meta({ id: 'platform.ProjectionSkipRequest' });
