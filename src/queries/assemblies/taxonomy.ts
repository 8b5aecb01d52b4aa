// assemblies.experimental.search: free text over HCA names and synonyms, ranked, typo-tolerant, the match
// explained. The same SQL on PostgreSQL and PGlite: full-text search (english stemming) plus pg_trgm
// trigram similarity. hca_terms is a search index of the provider's taxonomy, refreshed when its version changes.
import type { Knex } from 'knex';
import { operation } from '../../contract/operation.ts';
import { ExperimentalSearchRequest, ExperimentalSearchResponse } from '../../contract/schemas/assemblies.ts';
import { assembliesErrors } from '../../domain/assemblies/errors.ts';
import type { HcaNode } from '../../vehicle-data/port.ts';

/** Below this trigram word similarity a term does not match (unless full-text does). */
const MIN_WORD_SIMILARITY = 0.4;

const loaded = new WeakMap<Knex, Promise<void>>();

// Fills hca_terms with the taxonomy's names and synonyms unless this version is there already (once per process).
async function ensureTerms(knex: Knex, version: string, nodes: HcaNode[]): Promise<void> {
  let p = loaded.get(knex);
  if (!p) {
    p = knex.transaction(async (trx) => {
      // One loader at a time across processes; a second finds the version in place.
      await trx.raw(`select pg_advisory_xact_lock(hashtext('hca_terms'))`);
      const have = await trx('hca_terms').where({ taxonomy_version: version }).count<{ n: string }[]>({ n: '*' });
      const rows = nodes.flatMap((n) => [{ field: 'name', term: n.name }, ...n.synonyms.map((s) => ({ field: 'synonym', term: s }))].map((t, i) => ({ id: `${n.hca_id}:${i}`, hca_id: n.hca_id, term: t.term, field: t.field, taxonomy_version: version })));
      if (Number(have[0]?.n ?? 0) === rows.length) return;
      await trx('hca_terms').del();
      for (let i = 0; i < rows.length; i += 500) await trx('hca_terms').insert(rows.slice(i, i + 500));
    });
    loaded.set(knex, p);
    p.catch(() => loaded.delete(knex));
  }
  await p;
}

interface TermMatch {
  hca_id: string;
  term: string;
  field: 'name' | 'synonym';
  exact: boolean;
  fts: boolean;
  similarity: number;
  score: number;
}

/** The best-matching term of each node for `query`, best nodes first. */
export async function searchTerms(knex: Knex, version: string, query: string, limit: number): Promise<TermMatch[]> {
  const q = query.toLowerCase();
  const res = await knex.raw(
    `with m as (
       select hca_id, term, field,
              lower(term) = :q as exact,
              to_tsvector('english', term) @@ plainto_tsquery('english', :q) as fts,
              greatest(similarity(:q, lower(term)), word_similarity(:q, lower(term))) as similarity
         from hca_terms
        where taxonomy_version = :version
          and (lower(term) % :q or word_similarity(:q, lower(term)) >= :min
               or to_tsvector('english', term) @@ plainto_tsquery('english', :q))
     ), scored as (
       select m.*, (case when exact then 1 else 0 end) + (case when fts then 0.5 else 0 end) + 0.49 * similarity
                   + (case when field = 'name' then 0.01 else 0 end) as score
         from m
     ), best as (
       select distinct on (hca_id) * from scored order by hca_id, score desc, term
     )
     select hca_id, term, field, exact, fts, cast(similarity as float8) as similarity, cast(score as float8) as score
       from best order by score desc, hca_id limit :limit`,
    { q, version, min: MIN_WORD_SIMILARITY, limit },
  );
  return (res.rows as TermMatch[]).map((r) => ({ ...r, similarity: Number(r.similarity), score: Number(r.score) }));
}

/** assemblies.experimental.search */
export const experimentalSearch = operation({
  id: 'assemblies.experimental.search',
  examples: {
    request: { query: 'brake pad' },
    response: {
      items: [
        {
          hca_id: '01934296-8ce2-7607-8788-808e486e8403',
          name: 'Front brake pads',
          level: 'part',
          path: ['Braking', 'Front brakes', 'Front brake pads'],
          score: 0.92,
          match: { field: 'name', term: 'brake pad', method: 'exact', similarity: 1 },
        },
      ],
      taxonomy_version: '2026.01',
    },
  },
  surface: 'core',
  tags: ['tier1'],
  summary: 'Experimental search: free text over HCA names and synonyms, ranked, typo-tolerant, each match explained.',
  description:
    'Matches whole terms, all words after English stemming (wings -> wing), and similar spellings (pg_trgm trigrams: bonet -> bonnet). Each node is scored by its best name or synonym: exact 1 + full-text 0.5 + 0.49 x trigram similarity (+0.01 for the name).',
  request: ExperimentalSearchRequest,
  response: ExperimentalSearchResponse,
  error: 'tier1.ExperimentalSearchError',
  errors: assembliesErrors.list('invalid_request'),
  access: 'org_user',
  async handle(ctx, req) {
    const { version, nodes } = await ctx.services.vehicleData.taxonomy();
    await ensureTerms(ctx.services.knex, version, nodes);
    const byId = new Map(nodes.map((n) => [n.hca_id, n]));
    const pathOf = (n: HcaNode): string[] => {
      const parent = n.parent_id === null ? undefined : byId.get(n.parent_id);
      return [...(parent ? pathOf(parent) : []), n.name];
    };
    const matches = await searchTerms(ctx.services.knex, version, req.query, req.limit);
    const items = matches.flatMap((m) => {
      const node = byId.get(m.hca_id);
      if (!node) return [];
      const method = m.exact ? ('exact' as const) : m.fts ? ('full_text' as const) : ('trigram' as const);
      return [{ hca_id: m.hca_id, name: node.name, level: node.level, path: pathOf(node), score: Math.round(m.score * 1000) / 1000, match: { field: m.field, term: m.term, method, similarity: Math.round(m.similarity * 1000) / 1000 } }];
    });
    return { items, taxonomy_version: version };
  },
});
