// assemblies.v4.search: the vehicle's assembly tree (filtered by HCA ids) when its lookup is done, else
// `in_progress` with `retry_after` and the lookup queued once. An answered search is recorded for the
// organization's assemblies.subscribe.stream.
import type { z } from 'zod';
import { operation } from '../../contract/operation.ts';
import { AssembliesSearchRequest, AssembliesSearchResponse, type AssemblyNode } from '../../contract/schemas/assemblies.ts';
import type { Config } from '../../config.ts';
import { assembliesErrors } from '../../domain/assemblies/errors.ts';
import { normaliseVehicleIdentifier, vehicleIdOf } from '../../domain/vehicles/identifier.ts';
import { type LookupDoc, assemblyLookupsProjection } from '../../projections/assemblies/lookups.ts';
import { lookupOf } from '../../queries/assemblies/lookups.ts';
import { assemblySearches, queueLookup } from './handlers.ts';

/** Seconds until the lookup is expected to have its tree (at least 1). */
export function retryAfterSeconds(doc: Pick<LookupDoc, 'queued_at'>, now: Date, config: Pick<Config, 'vehicleData'>): number {
  const due = Date.parse(doc.queued_at) + Math.max(config.vehicleData.decodeDelayMs, config.vehicleData.treeDelayMs);
  return Math.max(1, Math.ceil((due - now.getTime()) / 1000));
}

/** The nodes of the tree that are requested, under a requested node, or above one (so the answer stays a tree). */
export function filterTree(doc: LookupDoc, hcaIds: string[] | undefined): { nodes: z.input<typeof AssemblyNode>[]; unmatched: string[] } {
  const enrich = new Map(doc.enrichments.map((e) => [e.hca_id, e]));
  const byId = new Map(doc.tree.map((n) => [n.hca_id, n]));
  const wanted = hcaIds ? new Set(hcaIds) : null;
  const keep = new Set<string>();
  if (wanted) {
    // Parents come before children: a node under a kept node is kept.
    for (const n of doc.tree) if (wanted.has(n.hca_id) || (n.parent_id !== null && keep.has(n.parent_id))) keep.add(n.hca_id);
    for (const id of wanted) for (let p = byId.get(id)?.parent_id ?? null; p !== null; p = byId.get(p)?.parent_id ?? null) keep.add(p);
  }
  const nodes = doc.tree
    .filter((n) => !wanted || keep.has(n.hca_id))
    .map((n) => ({ ...n, part_numbers: enrich.get(n.hca_id)?.part_numbers ?? [], images: enrich.get(n.hca_id)?.images ?? [] }));
  return { nodes, unmatched: wanted ? [...wanted].filter((id) => !byId.has(id)) : [] };
}

/** assemblies.v4.search */
export const assembliesSearch = operation({
  id: 'assemblies.v4.search',
  examples: {
    request: { vehicle: { chassis_number: 'WVWZZZ1JZXW000001' } },
    response: { in_progress: true, retry_after: 1 },
  },
  surface: 'core',
  tags: ['tier1'],
  summary: 'Looks up assemblies of a vehicle by HCA identifiers; answers in_progress with retry_after while the lookup runs.',
  description:
    'The first search (or vehicles.preload) of a vehicle queues its lookup, once however many ask at the same time. The tree arrives first, then the enrichments (part numbers, images): follow assemblies.v4.updates.stream to know when to search again. A search answered with the tree is delivered to the organization\'s assemblies.subscribe.stream.',
  request: AssembliesSearchRequest,
  response: AssembliesSearchResponse,
  error: 'tier1.AssembliesSearchError',
  errors: assembliesErrors.list('invalid_request', 'vehicle_not_found', 'projection_lag'),
  access: 'org_user',
  write: true,
  // The lookup a first search queues is read back; the search it records is not (searches are for the subscribe stream).
  readModels: [assemblyLookupsProjection],
  async handle(ctx, req) {
    const identifier = normaliseVehicleIdentifier(req.vehicle);
    const vehicleId = vehicleIdOf(identifier);
    let doc = await lookupOf(ctx.services.knex, vehicleId);
    if (!doc) {
      await queueLookup(ctx, identifier, 'search');
      await ctx.readYourWrites();
      doc = await lookupOf(ctx.services.knex, vehicleId);
    }
    if (!doc || doc.status === 'queued') return { in_progress: true as const, retry_after: retryAfterSeconds(doc ?? { queued_at: ctx.now.toISOString() }, ctx.now, ctx.services.config) };
    if (doc.status === 'not_found' || !doc.vehicle) throw ctx.errors.error('vehicle_not_found', 'The vehicle data provider does not know this vehicle.');
    const { nodes, unmatched } = filterTree(doc, req.hca_ids);
    const enriched = doc.status === 'enriched';
    const searchId = ctx.ids.next();
    await assemblySearches.run(ctx, searchId, {
      type: 'RecordSearch',
      data: { search_id: searchId, organization_id: ctx.auth.organizationId, vehicle_id: vehicleId, vehicle: identifier, hca_ids: req.hca_ids ?? null, result_count: nodes.length, enriched },
    }, { orgId: ctx.auth.organizationId });
    return { in_progress: false as const, vehicle_id: vehicleId, vehicle: doc.vehicle, enriched, assemblies: nodes, unmatched_hca_ids: unmatched };
  },
});

/** Write operations of the assemblies area. */
export const assemblyCommands = [assembliesSearch];
