// Schemas of the assemblies (tier1) operations and streams, named as the spec names them.
import { z } from 'zod';
import { Timestamp, Uuid } from './common.ts';
import { VehicleIdentifierV1 } from './jobs.ts';

/** Most HCA ids one search may filter by. */
export const MAX_SEARCH_HCA_IDS = 200;

const HcaId = z.string().regex(/^\d{2}(\.\d{2}){0,2}$/, 'must be an HCA id such as 01.02.03').describe('HCA id: system `01`, assembly `01.02`, part `01.02.03`.');

/** tier1.AssembliesSearchRequest */
export const AssembliesSearchRequest = z
  .strictObject({
    vehicle: VehicleIdentifierV1.describe('The vehicle; a VRM gives a more precise answer (variant, trim, colour) than a chassis number.'),
    hca_ids: z.array(HcaId).min(1).max(MAX_SEARCH_HCA_IDS).optional().describe(`Only these nodes with their ancestors and descendants (1-${MAX_SEARCH_HCA_IDS}); omit for the whole tree.`),
  })
  .meta({ id: 'tier1.AssembliesSearchRequest' });

/** A decoded vehicle. */
export const VehicleDetails = z
  .object({
    make: z.string().describe('Manufacturer.'),
    model: z.string().describe('Model.'),
    variant: z.string().nullable().describe('Variant; null when the identifier stands for several (see `candidates`): search by VRM to tell them apart.'),
    trim: z.string().nullable().describe('Trim level; known from a VRM only.'),
    colour: z.string().nullable().describe('Colour; known from a VRM only.'),
    body: z.string().describe('Body style (hatchback, saloon, estate, suv, coupe).'),
    fuel: z.string().describe('petrol, diesel, hybrid, plug-in hybrid, electric; `unknown` while the variant is.'),
    year: z.int().describe('Model year.'),
    vin: z.string().nullable().describe('Chassis number (VIN) when known.'),
    candidates: z.array(z.object({ variant: z.string().describe('Variant.'), fuel: z.string().describe('Fuel.'), body: z.string().describe('Body style.') })).describe('Every variant the identifier may be; one when known.'),
    decoded_from: z.enum(['vrm', 'chassis_number']).describe('Which identifier was decoded.'),
  })
  .meta({ id: 'tier1.VehicleDetails' });

/** One node of the answer's tree. */
export const AssemblyNode = z
  .object({
    hca_id: z.string().describe('HCA id.'),
    parent_id: z.string().nullable().describe('HCA id of the parent node; null for a vehicle system.'),
    level: z.enum(['system', 'assembly', 'part']).describe('Vehicle system, assembly, or part.'),
    name: z.string().describe('Name.'),
    synonyms: z.array(z.string()).describe('Other names people use (wing/fender, bonnet/hood, ...).'),
    part_numbers: z.array(z.string()).describe('Part numbers (parts only); empty until the enrichments are ready.'),
    images: z.array(z.string()).describe('Image URLs; empty until the enrichments are ready.'),
  })
  .meta({ id: 'tier1.AssemblyNode' });

/** The answer while the lookup runs. */
export const AssembliesSearchInProgress = z
  .object({
    in_progress: z.literal(true).describe('The lookup is running; ask again after `retry_after` seconds, or when the updates stream says `changed`.'),
    retry_after: z.int().min(1).describe('Seconds to wait before searching again.'),
  })
  .meta({ id: 'tier1.AssembliesSearchInProgress' });

/** The answer once the tree is ready. */
export const AssembliesSearchResult = z
  .object({
    in_progress: z.literal(false).describe('The answer is ready.'),
    vehicle_id: Uuid.describe('Stable id of the vehicle (the same for equal identifiers after normalising).'),
    vehicle: VehicleDetails.describe('What the identifier decoded to.'),
    enriched: z.boolean().describe('Whether part numbers and images are in (they arrive after the tree).'),
    assemblies: z.array(AssemblyNode).describe('The tree as a list, parents before children (`parent_id` links them).'),
    unmatched_hca_ids: z.array(z.string()).describe('Requested HCA ids this vehicle has no node for.'),
  })
  .meta({ id: 'tier1.AssembliesSearchResult' });

/** tier1.AssembliesSearchResponse */
export const AssembliesSearchResponse = z.union([AssembliesSearchInProgress, AssembliesSearchResult]).describe('In progress (with `retry_after`), or the answer.').meta({ id: 'tier1.AssembliesSearchResponse' });

/** tier1.AssembliesUpdatesRequest */
export const AssembliesUpdatesRequest = z
  .strictObject({ vehicle: VehicleIdentifierV1.describe('The vehicle to follow (as given to assemblies.v4.search).') })
  .meta({ id: 'tier1.AssembliesUpdatesRequest' });

/** tier1.AssembliesUpdate */
export const AssembliesUpdate = z
  .object({
    type: z.enum(['changed', 'heartbeat']).describe('`changed`: search again for the new answer; `heartbeat`: every 30 s.'),
    vehicle_id: Uuid.describe('The vehicle followed.'),
    status: z.enum(['queued', 'tree_ready', 'enriched', 'not_found']).nullable().describe('Where the lookup is now (null on heartbeats).'),
    at: Timestamp.describe('When it happened.'),
  })
  .meta({ id: 'tier1.AssembliesUpdate' });

/** tier1.AssembliesSubscribeRequest */
export const AssembliesSubscribeRequest = z
  .strictObject({
    resume_point: z.string().max(100).optional().describe('The `id` of the last event received: replay starts right after it. The `Last-Event-ID` header wins over it. Omit to start from now.'),
  })
  .meta({ id: 'tier1.AssembliesSubscribeRequest' });

/** tier1.AssemblySubscribeEvent */
export const AssemblySubscribeEvent = z
  .object({
    resume_point: z.string().describe('Log position of this search: the SSE `id`, to resume after it.'),
    search_id: Uuid.describe('The search.'),
    vehicle_id: Uuid.describe('Stable id of the vehicle searched.'),
    vehicle: VehicleIdentifierV1.describe('The identifier searched (normalised).'),
    hca_ids: z.array(z.string()).nullable().describe('The HCA filter of the search; null for the whole tree.'),
    result_count: z.int().describe('Nodes in the answer.'),
    enriched: z.boolean().describe('Whether the answer carried part numbers and images.'),
    completed_at: Timestamp.describe('When the search was answered.'),
  })
  .meta({ id: 'tier1.AssemblySubscribeEvent' });

/** tier1.ExperimentalSearchRequest */
export const ExperimentalSearchRequest = z
  .strictObject({
    query: z.string().trim().min(1).max(200).describe('Free text, e.g. `fender`, `bonet catch`, `rear lamp left`; typos are tolerated.'),
    limit: z.int().min(1).max(50).default(10).describe('Most results (1-50, default 10).'),
  })
  .meta({ id: 'tier1.ExperimentalSearchRequest' });

/** One ranked match. */
export const ExperimentalSearchItem = z
  .object({
    hca_id: z.string().describe('HCA id of the node.'),
    name: z.string().describe('Its name.'),
    level: z.enum(['system', 'assembly', 'part']).describe('Vehicle system, assembly, or part.'),
    path: z.array(z.string()).describe('Names from the vehicle system down to the node.'),
    score: z.number().describe('Relevance, higher first (0-2).'),
    match: z
      .object({
        field: z.enum(['name', 'synonym']).describe('What matched: the name or a synonym.'),
        term: z.string().describe('The name or synonym that matched best.'),
        method: z.enum(['exact', 'full_text', 'trigram']).describe('exact: the whole term; full_text: all words (stemmed, e.g. wings -> wing); trigram: similar spelling (typos).'),
        similarity: z.number().describe('Trigram word similarity of the query to the term (0-1).'),
      })
      .describe('Why this node matched.'),
  })
  .meta({ id: 'tier1.ExperimentalSearchItem' });

/** tier1.ExperimentalSearchResponse */
export const ExperimentalSearchResponse = z
  .object({ items: z.array(ExperimentalSearchItem).describe('Best first.'), taxonomy_version: z.string().describe('Version of the HCA taxonomy searched.') })
  .meta({ id: 'tier1.ExperimentalSearchResponse' });

/** assemblies.lookups.advance (internal): the lookup worker's next step of one vehicle's lookup. */
export const LookupAdvanceRequest = z.strictObject({ vehicle_id: z.string().min(1).max(200) });
/** What the step did: a tree or enrichments recorded, the vehicle not found, the provider not ready yet, or nothing to do. */
export const LookupAdvanced = z.object({ step: z.enum(['tree', 'enrichments', 'not_found', 'waiting', 'none']) });
