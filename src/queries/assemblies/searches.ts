// Reads assembly_searches (owned by projections/assemblies/searches.ts): the replay of assemblies.subscribe.stream
// and the edge of its retained history.
import type { Knex } from 'knex';
import type { LogPosition } from '../../eventstore/port.ts';
import type { SearchDoc } from '../../projections/assemblies/searches.ts';

/** Completed searches of an organization after `after` (exclusive) up to `upTo` (inclusive), in log order. */
export async function searchesBetween(knex: Knex, organizationId: string, after: LogPosition | null, upTo: LogPosition | null, limit: number): Promise<SearchDoc[]> {
  if (upTo === null) return [];
  const q = knex('assembly_searches').where({ organization_id: organizationId }).andWhere('position', '<=', upTo);
  if (after !== null) q.andWhere('position', '>', after);
  const rows = await q.orderBy('position').limit(limit).select<{ doc: SearchDoc }[]>('doc');
  return rows.map((r) => r.doc);
}

/**
 * The newest position of the organization's searches that fell out of retained history (the newest
 * `retained` are kept for replay), or null when nothing did. A resume point before it would miss searches.
 */
export async function retentionEdge(knex: Knex, organizationId: string, retained: number): Promise<LogPosition | null> {
  const row = await knex('assembly_searches').where({ organization_id: organizationId }).orderBy('position', 'desc').offset(retained).first<{ position: string } | undefined>('position');
  return row?.position ?? null;
}
