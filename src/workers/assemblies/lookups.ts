// Vehicle lookup worker: for each pending lookup invokes assemblies.lookups.advance as the system (job `assembly-lookup-worker`),
// caused by the lookup's last event (its queueing, or its tree), which asks the provider for the next step and records it when ready.
import { type Services, systemAuth } from '../../context.ts';
import { vehicleLookups } from '../../commands/assemblies/handlers.ts';
import { lookupsAdvance } from '../../commands/assemblies/lookups.ts';
import { newId } from '../../ids.ts';
import { causedBy } from '../../pipeline/causation.ts';
import { pendingLookups } from '../../queries/assemblies/lookups.ts';
import type { Worker } from '../worker.ts';

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
  const out: LookupPassResult = { trees: 0, enrichments: 0, not_found: 0, waiting: 0 };
  const pass = newId();
  for (const doc of await pendingLookups(services.knex, BATCH)) {
    const causation = await causedBy(services.store, vehicleLookups.stream(doc.vehicle_id));
    const { body } = await services.invoke(lookupsAdvance, { vehicle_id: doc.vehicle_id }, { auth: systemAuth('assembly-lookup-worker'), requestId: pass, causation });
    if (body.step === 'tree') out.trees++;
    else if (body.step === 'enrichments') out.enrichments++;
    else if (body.step === 'not_found') out.not_found++;
    else if (body.step === 'waiting') out.waiting++;
  }
  return out;
}

/** The lookup worker as the composition root runs it: every second under `start`/`work` (lookups take seconds, not minutes). */
export const assemblyLookupWorker: Worker<LookupPassResult> = { name: 'assemblies.lookups', runOnce: runLookupPass, intervalMs: 1_000 };
