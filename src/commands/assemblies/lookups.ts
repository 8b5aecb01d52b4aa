// assemblies.lookups.advance (internal): the next step of one vehicle's queued lookup through the vehicle-data provider (decode and
// tree, then enrichments), as the lookup worker invokes it. Each step is appended with ids derived from the vehicle, so a repeated
// or racing pass appends once.
import { operation } from '../../contract/operation.ts';
import { LookupAdvanceRequest, LookupAdvanced } from '../../contract/schemas/assemblies.ts';
import { assembliesErrors } from '../../domain/assemblies/errors.ts';
import type { LookupStatus } from '../../domain/assemblies/lookup.ts';
import { lookupOf } from '../../queries/assemblies/lookups.ts';
import { lookupStepIds, vehicleLookups } from './handlers.ts';

/** assemblies.lookups.advance */
export const lookupsAdvance = operation({
  id: 'assemblies.lookups.advance',
  surface: 'internal',
  tags: ['Assemblies'],
  summary: "Asks the vehicle-data provider for the next step of a vehicle's queued lookup and records it when ready.",
  description: 'Internal: invoked by the lookup worker as the system (job `assembly-lookup-worker`), caused by the lookup\'s last event.',
  request: LookupAdvanceRequest,
  response: LookupAdvanced,
  error: 'assemblies.LookupAdvanceError',
  errors: assembliesErrors.list(),
  access: 'system',
  write: true,
  async handle(ctx, req) {
    const provider = ctx.services.vehicleData;
    const doc = await lookupOf(ctx.services.knex, req.vehicle_id);
    if (!doc) return { step: 'none' as const };
    const at = (step: LookupStatus) => ({ ...ctx, ids: lookupStepIds(doc.vehicle_id, step) });
    const data = { vehicle_id: doc.vehicle_id, provider: provider.name };
    if (doc.status === 'queued') {
      const since = new Date(doc.queued_at);
      const decoded = await provider.decode(doc.identifier, since);
      if (decoded.status === 'pending') return { step: 'waiting' as const };
      if (decoded.value === null) {
        await vehicleLookups.run(at('not_found'), doc.vehicle_id, { type: 'RecordNotFound', data: { ...data, reason: 'vehicle_not_found' } });
        return { step: 'not_found' as const };
      }
      const tree = await provider.buildTree(decoded.value, since);
      if (tree.status === 'pending') return { step: 'waiting' as const };
      await vehicleLookups.run(at('tree_ready'), doc.vehicle_id, { type: 'RecordTree', data: { ...data, vehicle: decoded.value, tree: tree.value } });
      return { step: 'tree' as const };
    }
    if (doc.status === 'tree_ready' && doc.vehicle && doc.tree_ready_at) {
      const enrichments = await provider.enrich(doc.vehicle, doc.tree, new Date(doc.tree_ready_at));
      if (enrichments.status === 'pending') return { step: 'waiting' as const };
      await vehicleLookups.run(at('enriched'), doc.vehicle_id, { type: 'RecordEnrichments', data: { ...data, enrichments: enrichments.value } });
      return { step: 'enrichments' as const };
    }
    return { step: 'none' as const };
  },
});

/** The assemblies area's internal operations. */
export const assemblyLookupCommands = [lookupsAdvance];
