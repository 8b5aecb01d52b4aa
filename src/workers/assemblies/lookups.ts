// Vehicle lookup worker: advances queued lookups through the vehicle-data provider (decode and tree, then
// enrichments), appending each step with ids derived from the vehicle, so a repeated or racing pass appends once.
import type { CommandContext, Services } from '../../context.ts';
import { vehicleLookups, lookupStepIds } from '../../commands/assemblies/handlers.ts';
import type { LookupDoc } from '../../projections/assemblies/lookups.ts';
import { pendingLookups } from '../../queries/assemblies/lookups.ts';
import type { Worker } from '../worker.ts';
import { systemMetadata } from '../../pipeline/invoke.ts';

/** Lookups advanced per pass at most (the rest wait for the next pass). */
const BATCH = 200;

/** What one pass did, by step. */
export interface LookupPassResult {
  trees: number;
  enrichments: number;
  not_found: number;
  waiting: number;
}

/** One pass over the pending lookups: ask the provider for each next step; record what is ready. */
export async function runLookupPass(services: Services): Promise<LookupPassResult> {
  const provider = services.vehicleData;
  const out: LookupPassResult = { trees: 0, enrichments: 0, not_found: 0, waiting: 0 };
  for (const doc of await pendingLookups(services.knex, BATCH)) {
    const now = services.clock.now();
    const ctx = (step: LookupDoc['status']): CommandContext => ({
      store: services.store,
      ids: lookupStepIds(doc.vehicle_id, step),
      now,
      metadata: systemMetadata({ job: 'assembly-lookup-worker', correlationId: doc.vehicle_id }),
    });
    const data = { vehicle_id: doc.vehicle_id, provider: provider.name };
    if (doc.status === 'queued') {
      const since = new Date(doc.queued_at);
      const decoded = await provider.decode(doc.identifier, since);
      if (decoded.status === 'pending') {
        out.waiting++;
        continue;
      }
      if (decoded.value === null) {
        await vehicleLookups.run(ctx('not_found'), doc.vehicle_id, { type: 'RecordNotFound', data: { ...data, reason: 'vehicle_not_found' } });
        out.not_found++;
        continue;
      }
      const tree = await provider.buildTree(decoded.value, since);
      if (tree.status === 'pending') {
        out.waiting++;
        continue;
      }
      await vehicleLookups.run(ctx('tree_ready'), doc.vehicle_id, { type: 'RecordTree', data: { ...data, vehicle: decoded.value, tree: tree.value } });
      out.trees++;
    } else if (doc.status === 'tree_ready' && doc.vehicle && doc.tree_ready_at) {
      const enrichments = await provider.enrich(doc.vehicle, doc.tree, new Date(doc.tree_ready_at));
      if (enrichments.status === 'pending') {
        out.waiting++;
        continue;
      }
      await vehicleLookups.run(ctx('enriched'), doc.vehicle_id, { type: 'RecordEnrichments', data: { ...data, enrichments: enrichments.value } });
      out.enrichments++;
    }
  }
  return out;
}

/** The lookup worker as the composition root runs it: every second under `start`/`work` (lookups take seconds, not minutes). */
export const assemblyLookupWorker: Worker<LookupPassResult> = { name: 'assemblies.lookups', runOnce: runLookupPass, intervalMs: 1_000 };
