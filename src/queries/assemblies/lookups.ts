// Reads assembly_lookups (owned by projections/assemblies/lookups.ts): a vehicle's lookup, and the lookups the worker must advance.
import type { Knex } from 'knex';
import type { LookupDoc } from '../../projections/assemblies/lookups.ts';

/** The lookup of one vehicle, or null when none was queued (or the read model has not seen it yet). */
export async function lookupOf(knex: Knex, vehicleId: string): Promise<LookupDoc | null> {
  const row = await knex('assembly_lookups').where({ id: vehicleId }).first<{ doc: LookupDoc } | undefined>('doc');
  return row?.doc ?? null;
}

/** Lookups waiting for the provider (queued, or tree ready and enrichments not), oldest first. */
export async function pendingLookups(knex: Knex, limit: number): Promise<LookupDoc[]> {
  const rows = await knex('assembly_lookups').whereIn('status', ['queued', 'tree_ready']).orderBy([{ column: 'updated_at' }, { column: 'id' }]).limit(limit).select<{ doc: LookupDoc }[]>('doc');
  return rows.map((r) => r.doc);
}
