// The assemblies streams: assemblies.v4.updates.stream (one vehicle's `changed` and `heartbeat`) and
// assemblies.subscribe.stream (the organization's completed searches, resumable by log position).
import { map } from 'rxjs';
import type { SseMessage } from '../contract/operation.ts';
import { streamOperation } from '../contract/operation.ts';
import { AssembliesSubscribeRequest, AssembliesUpdate, AssembliesUpdatesRequest, AssemblySubscribeEvent } from '../contract/schemas/assemblies.ts';
import { assembliesErrors } from '../domain/assemblies/errors.ts';
import { vehicleLookupCodec } from '../domain/assemblies/lookup.ts';
import { assemblySearchCodec } from '../domain/assemblies/search.ts';
import { readEvent } from '../domain/decider.ts';
import { normaliseVehicleIdentifier, vehicleIdOf } from '../domain/vehicles/identifier.ts';
import { type LogPosition, type RecordedEvent, comparePositions, positionKind } from '../eventstore/port.ts';
import { type LookupDoc, assemblyLookupsProjection } from '../projections/assemblies/lookups.ts';
import { type SearchDoc, assemblySearchesProjection } from '../projections/assemblies/searches.ts';
import { lookupOf } from '../queries/assemblies/lookups.ts';
import { retentionEdge, searchesBetween } from '../queries/assemblies/searches.ts';
import { caughtUp, waitForReadModels } from '../pipeline/read-models.ts';
import { type Positioned, catchUpThenLive, clockTicks, logFanout } from './fanout.ts';

/** The spec's heartbeat interval. */
export const HEARTBEAT_MS = 30_000;

const CHANGES: Record<string, LookupDoc['status']> = { AssemblyTreeReady: 'tree_ready', AssemblyEnrichmentsReady: 'enriched', VehicleLookupFailed: 'not_found' };

function changed(vehicleId: string, status: LookupDoc['status'], at: string, id: LogPosition): SseMessage {
  return { id, event: 'changed', data: { type: 'changed', vehicle_id: vehicleId, status, at } };
}

// One message object per log event, shared by every client that gets it (serialised once by writeSse).
function memoised(build: (e: RecordedEvent) => SseMessage): (e: RecordedEvent) => SseMessage {
  const built = new WeakMap<RecordedEvent, SseMessage>();
  return (e) => {
    let m = built.get(e);
    if (!m) built.set(e, (m = build(e)));
    return m;
  };
}

/** The `changed` message of a lookup event. */
const changeMessage = memoised((e) => {
  const read = readEvent(vehicleLookupCodec, e);
  const at = read.type === 'VehicleLookupFailed' ? read.data.failed_at : read.type === 'VehicleLookupQueued' ? read.data.queued_at : read.data.ready_at;
  return changed(read.data.vehicle_id, CHANGES[e.type] ?? 'queued', at, e.position);
});

/** The subscribe stream's message of a search event. */
const searchEventMessage = memoised((e) => searchMessage({ ...readEvent(assemblySearchCodec, e).data, position: e.position }));

/** assemblies.v4.updates.stream */
export const assembliesUpdatesStream = streamOperation({
  id: 'assemblies.v4.updates.stream',
  examples: {
    request: { vehicle: { chassis_number: 'WVWZZZ1JZXW000001' } },
    response: { type: 'changed', vehicle_id: '0193187f-a17b-739d-867e-5604b3d1ec9d', status: null, at: '2026-01-15T09:30:00.000Z' },
  },
  surface: 'core',
  tags: ['tier1'],
  summary: 'Stream for one vehicle: `changed` when its search has a new answer (tree ready, then enrichments ready; one at connect if already answered), `heartbeat` every 30 s.',
  description: 'Server-sent events; each `data` is JSON. On `changed`, search again at once (no need to wait for `retry_after`). Open streams are capped per token (STREAMS_PER_TOKEN, default 20) and per organization (STREAMS_PER_ORGANIZATION, default 100): past either, 429 rate_limited until one closes.',
  request: AssembliesUpdatesRequest,
  response: AssembliesUpdate,
  events: {
    changed: 'The search for the vehicle has a new answer (tree ready, then enrichments ready; one at connect if already answered): search again now.',
    heartbeat: 'Every 30 seconds, so a client knows the connection is alive.',
  },
  error: 'tier1.AssembliesSearchError',
  errors: assembliesErrors.list('invalid_request', 'projection_lag', 'rate_limited'),
  access: 'org_user',
  async open(ctx, req) {
    const vehicleId = vehicleIdOf(normaliseVehicleIdentifier(req.vehicle));
    const stream = `vehiclelookup-${vehicleId}`;
    const { services } = ctx;
    return catchUpThenLive({
      fanout: logFanout(services.store),
      select: (e) => e.streamId === stream && e.type in CHANGES,
      toMessage: changeMessage,
      async *catchUp(upTo) {
        await waitForReadModels(services, upTo, [assemblyLookupsProjection]);
        const doc = await lookupOf(services.knex, vehicleId);
        if (!doc || doc.status === 'queued') return;
        yield { message: changed(vehicleId, doc.status, doc.enriched_at ?? doc.tree_ready_at ?? doc.queued_at, doc.changed_at_position), position: doc.changed_at_position };
      },
      // `changed` means "search again now": only once the read model searches read has the change.
      beforeLive: (position) => waitForReadModels(services, position, [assemblyLookupsProjection]),
      extra: clockTicks(services.clock, HEARTBEAT_MS).pipe(map((at): SseMessage => ({ event: 'heartbeat', data: { type: 'heartbeat', vehicle_id: vehicleId, status: null, at: at.toISOString() } }))),
      signal: ctx.signal,
    });
  },
});

/** The subscribe stream's message of a completed search (the same from the replay and from the live log). */
function searchMessage(doc: SearchDoc): SseMessage {
  const { organization_id: _org, position, ...rest } = doc;
  return { id: position, event: 'search_completed', data: { resume_point: position, ...rest } };
}

const REPLAY_PAGE = 500;

/** assemblies.subscribe.stream */
export const assembliesSubscribeStream = streamOperation({
  id: 'assemblies.subscribe.stream',
  examples: {
    request: { resume_point: 'pg1:00000000000000004711:00000000000000000000' },
    response: {
      resume_point: 'pg1:00000000000000004711:00000000000000000000',
      search_id: '01930bdd-0dc9-737f-871a-6050de7ae7fb',
      vehicle_id: '0193187f-a17b-739d-867e-5604b3d1ec9d',
      vehicle: { chassis_number: 'WVWZZZ1JZXW000001' },
      hca_ids: null,
      result_count: 1,
      enriched: false,
      completed_at: '2026-01-15T09:30:00.000Z',
    },
  },
  surface: 'core',
  tags: ['tier1'],
  summary: "One event each time an assembly search of the caller's organization completes; resumable from a log position.",
  description:
    "Each event's SSE `id` is its log position. `resume_point` (or the `Last-Event-ID` header, which wins) replays the searches after that point, then continues live with no gap and no duplicate; without one the stream starts from now. History retained for replay: the newest ASSEMBLY_SUBSCRIBE_RETENTION searches of the organization (default 100,000); a point before them is 410 `resume_point_expired` (start again without one). A point that is not an id of this service is 400 `invalid_resume_point`. Open streams are capped per token (STREAMS_PER_TOKEN, default 20) and per organization (STREAMS_PER_ORGANIZATION, default 100): past either, 429 `rate_limited` until one closes.",
  request: AssembliesSubscribeRequest,
  response: AssemblySubscribeEvent,
  events: { search_completed: "An assembly search of the caller's organization completed; the SSE `id` and `resume_point` are its log position." },
  // The spec names this stream's error type tier1.AssembliesSearchError (shared with search and the updates stream): it stays.
  error: 'tier1.AssembliesSearchError',
  errors: assembliesErrors.list('invalid_request', 'invalid_resume_point', 'resume_point_expired', 'projection_lag', 'rate_limited'),
  access: 'org_user',
  async open(ctx, req, lastEventId) {
    const { services } = ctx;
    const org = ctx.auth.organizationId;
    const point = lastEventId?.trim() || req.resume_point || null;
    if (point !== null) {
      positionKind(point); // malformed: 400 before the stream starts
      comparePositions(point, await services.store.headPosition()); // another kind of log: 400 too
      // The edge as of every search committed so far (searches do not wait for this read model).
      await caughtUp(services, [assemblySearchesProjection]);
      const edge = await retentionEdge(services.knex, org, services.config.assemblySubscribeRetention);
      if (edge !== null && comparePositions(point, edge) < 0)
        throw ctx.errors.error('resume_point_expired', 'This resume point is older than the retained history of searches; subscribe again without one.');
    }
    return catchUpThenLive({
      fanout: logFanout(services.store),
      select: (e: RecordedEvent) => e.type === 'AssembliesSearchCompleted' && e.metadata.org_id === org,
      toMessage: searchEventMessage,
      async *catchUp(upTo): AsyncIterable<Positioned> {
        if (point === null) return;
        await waitForReadModels(services, upTo, [assemblySearchesProjection]);
        for (let after: LogPosition = point; ; ) {
          const page = await searchesBetween(services.knex, org, after, upTo, REPLAY_PAGE);
          for (const doc of page) yield { message: searchMessage(doc), position: doc.position };
          const last = page.at(-1);
          if (!last || page.length < REPLAY_PAGE) return;
          after = last.position;
        }
      },
      signal: ctx.signal,
    });
  },
});

/** The assemblies area's streams. */
export const assemblyStreams = [assembliesUpdatesStream, assembliesSubscribeStream];
