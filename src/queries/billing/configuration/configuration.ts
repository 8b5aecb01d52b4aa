// The one reader of billing_config_relationships, billing_config_revisions and billing_config_history (written by
// projections/billing/configuration/configuration.ts); the other query modules of the area read through these.
import type { Knex } from 'knex';
import type { ClaimStatus } from '../../../domain/billing/configuration/snapshot.ts';
import type { HistoryDoc, RelationshipDoc, RevisionDoc } from '../../../projections/billing/configuration/configuration.ts';

/** Narrows what is loaded for one resolve (see SnapshotScope). */
export interface DocScope {
  pairs?: { seller: string; buyer: string }[];
  at?: string[];
}

/** A subscription's relationships (only those of `scope.pairs` when given). */
export async function relationshipDocsOf(knex: Knex, subscriptionId: string, scope: DocScope = {}): Promise<RelationshipDoc[]> {
  const q = knex('billing_config_relationships').where({ subscription_id: subscriptionId }).select('doc');
  if (scope.pairs) {
    const pairs = scope.pairs;
    if (pairs.length === 0) return [];
    q.whereRaw(`(seller, buyer) in (${pairs.map(() => '(?::uuid, ?::uuid)').join(', ')})`, pairs.flatMap((p) => [p.seller, p.buyer]));
  }
  return ((await q) as { doc: RelationshipDoc }[]).map((r) => r.doc);
}

/** A subscription's revisions of both kinds (only those whose range contains one of `scope.at` when given). */
export async function revisionDocsOf(knex: Knex, subscriptionId: string, scope: DocScope = {}): Promise<RevisionDoc[]> {
  const q = knex('billing_config_revisions').where({ subscription_id: subscriptionId }).select('doc');
  if (scope.at) {
    const at = scope.at;
    if (at.length === 0) return [];
    q.where((w) => {
      for (const t of at) {
        w.orWhere((x) => {
          x.where('effective_from', '<=', t).andWhere((y) => { y.whereNull('effective_to').orWhere('effective_to', '>', t); });
        });
      }
    });
  }
  return ((await q) as { doc: RevisionDoc }[]).map((r) => r.doc);
}

const IN_FORCE = `select doc from billing_config_revisions
  where subscription_id = ?::uuid and kind = ? and recorded_at <= ?::timestamptz and effective_from <= ?::timestamptz and (effective_to is null or effective_to > ?::timestamptz)
  order by sequence desc limit 1`;

/** What one resolve needs, in one round trip: the pair's relationship and the revision of each kind in force at `at` as known at `asOf`. */
export async function resolveDocs(
  knex: Knex,
  subscriptionId: string,
  pair: { seller: string; buyer: string },
  at: string,
  asOf: string,
): Promise<{ relationship: RelationshipDoc | null; baseline: RevisionDoc | null; pricing: RevisionDoc | null }> {
  const res = await knex.raw(
    `select (select doc from billing_config_relationships where subscription_id = ?::uuid and seller = ?::uuid and buyer = ?::uuid) as relationship,
      (${IN_FORCE}) as baseline, (${IN_FORCE}) as pricing`,
    [subscriptionId, pair.seller, pair.buyer, subscriptionId, 'baseline', asOf, at, at, subscriptionId, 'pricing', asOf, at, at],
  );
  const row = (res.rows as { relationship: RelationshipDoc | null; baseline: RevisionDoc | null; pricing: RevisionDoc | null }[])[0];
  return { relationship: row?.relationship ?? null, baseline: row?.baseline ?? null, pricing: row?.pricing ?? null };
}

/** A stored relationship by id, or null. */
export async function relationshipDoc(knex: Knex, id: string): Promise<RelationshipDoc | null> {
  const row = await knex('billing_config_relationships').where({ id }).first('doc');
  return (row?.doc as RelationshipDoc | undefined) ?? null;
}

/** Stored revisions by id (any kind). */
export async function revisionDocs(knex: Knex, ids: string[]): Promise<Map<string, RevisionDoc>> {
  if (ids.length === 0) return new Map();
  const rows = (await knex('billing_config_revisions').whereIn('id', ids).select('doc')) as { doc: RevisionDoc }[];
  return new Map(rows.map((r) => [r.doc.revision_id, r.doc]));
}

/** One slice of a subscription's relationships, oldest first, after `after` (a stored relationship) when given. */
export async function relationshipSlice(
  knex: Knex,
  subscriptionId: string,
  opts: { limit: number; buyer?: string; claim_status?: ClaimStatus; after?: RelationshipDoc },
): Promise<RelationshipDoc[]> {
  const q = knex('billing_config_relationships').where({ subscription_id: subscriptionId }).select('doc').orderBy([{ column: 'created_at' }, { column: 'id' }]).limit(opts.limit);
  if (opts.buyer) q.where({ buyer: opts.buyer });
  if (opts.claim_status) q.whereRaw(`doc->>'claim_status' = ?`, [opts.claim_status]);
  if (opts.after) q.whereRaw('(created_at, id) > (?::timestamptz, ?::uuid)', [opts.after.recorded_at, opts.after.relationship_id]);
  return ((await q) as { doc: RelationshipDoc }[]).map((r) => r.doc);
}

/** History entries recorded by `asOf`, newest first, before the (recorded_at, id) key `before` when given; `limit + 1` rows to see a next page. */
export async function historySlice(knex: Knex, subscriptionId: string, opts: { asOf: string; limit: number; before?: [string, string] }): Promise<{ id: string; recorded_at: Date; doc: HistoryDoc }[]> {
  const q = knex('billing_config_history').where({ subscription_id: subscriptionId }).andWhere('recorded_at', '<=', opts.asOf).select('id', 'recorded_at', 'doc');
  if (opts.before) q.whereRaw('(recorded_at, id) < (?::timestamptz, ?::uuid)', opts.before);
  return (await q.orderBy([{ column: 'recorded_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(opts.limit + 1)) as { id: string; recorded_at: Date; doc: HistoryDoc }[];
}
