// Reads assembly_lookups (owned by projections/assemblies/lookups.ts): a vehicle's lookup, and the lookups the worker must advance.
import type { Knex } from 'knex';
import type { LookupDoc } from '../../projections/assemblies/lookups.ts';

/** Finished lookups (enriched or not found) kept in memory per database, newest use last: they never change again. */
const FINISHED_CACHE = 256;
const finished = new WeakMap<Knex, Map<string, LookupDoc>>();

/** The lookup of one vehicle, or null when none was queued (or the read model has not seen it yet). */
export async function lookupOf(knex: Knex, vehicleId: string): Promise<LookupDoc | null> {
  let cache = finished.get(knex);
  if (!cache) finished.set(knex, (cache = new Map()));
  const hit = cache.get(vehicleId);
  if (hit) {
    // Refresh its place: the least recently used goes first.
    cache.delete(vehicleId);
    cache.set(vehicleId, hit);
    return hit;
  }
  const row = await knex('assembly_lookups').where({ id: vehicleId }).first<{ doc: LookupDoc } | undefined>('doc');
  const doc = row?.doc ?? null;
  if (doc && (doc.status === 'enriched' || doc.status === 'not_found')) {
    cache.set(vehicleId, doc);
    if (cache.size > FINISHED_CACHE) cache.delete(cache.keys().next().value ?? vehicleId);
  }
  return doc;
}

/** Lookups waiting for the provider (queued, or tree ready and enrichments not), oldest first. */
export async function pendingLookups(knex: Knex, limit: number): Promise<LookupDoc[]> {
  const rows = await knex('assembly_lookups').whereIn('status', ['queued', 'tree_ready']).orderBy([{ column: 'updated_at' }, { column: 'id' }]).limit(limit).select<{ doc: LookupDoc }[]>('doc');
  return rows.map((r) => r.doc);
}
