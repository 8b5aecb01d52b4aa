// Assemblies read models, given lookup and search events: what searches, the updates stream and the subscribe replay read.
import { backends } from '../../support/db.ts';
import type { VehicleLookupEvent } from '../../../src/domain/assemblies/lookup.ts';
import type { AssemblySearchEvent } from '../../../src/domain/assemblies/search.ts';
import { assemblyLookupsProjection } from '../../../src/projections/assemblies/lookups.ts';
import { assemblySearchesProjection } from '../../../src/projections/assemblies/searches.ts';
import { on, projectionSpec } from '../spec.ts';
import { ORG, ORG2 } from './fixtures.ts';

const V1 = '0190c6a2-0000-7000-8000-00000000b001';
const V2 = '0190c6a2-0000-7000-8000-00000000b002';
const S1 = '0190c6a2-0000-7000-8000-00000000c001';
const S2 = '0190c6a2-0000-7000-8000-00000000c002';
const golf = { vrm: { plate: 'AB21CDE', location: { country: 'GB' } } };
const nobody = { chassis_number: 'XXXXXXXXXXXXXXXXX' };
const vehicle = { make: 'Volkswagen', model: 'Golf', variant: '1.5 TSI 130 Life', trim: 'Life', colour: 'Moonstone Grey', body: 'hatchback', fuel: 'petrol', year: 2021, vin: 'WVWZZZCDZMW000001', candidates: [{ variant: '1.5 TSI 130 Life', fuel: 'petrol', body: 'hatchback' }], decoded_from: 'vrm' as const };
const tree = [
  { hca_id: '01', parent_id: null, level: 'system' as const, name: 'Body panels', synonyms: ['bodywork'] },
  { hca_id: '01.01', parent_id: '01', level: 'assembly' as const, name: 'Front end', synonyms: [] },
  { hca_id: '01.01.01', parent_id: '01.01', level: 'part' as const, name: 'Bonnet', synonyms: ['hood'] },
];
const enrichments = [{ hca_id: '01.01.01', part_numbers: ['VOL-ABC-123456'], images: ['https://img.example/1.svg'] }];
const T0 = '2026-01-15T09:00:00.000Z';
const T1 = '2026-01-15T09:00:02.000Z';
const T2 = '2026-01-15T09:00:05.000Z';

for (const backend of backends()) {
  describe(`assemblies projection spec (${backend})`, function () {
    this.timeout(60_000);
    const spec = projectionSpec(backend);

    it('a lookup queued twice stays one, gets its tree then enrichments; an unknown vehicle fails', async () => {
      await spec.given(assemblyLookupsProjection, [
        ...on<VehicleLookupEvent>(`vehiclelookup-${V1}`, [
          { type: 'VehicleLookupQueued', data: { vehicle_id: V1, identifier: golf, requested_by: 'preload', queued_at: T0 } },
          { type: 'VehicleLookupQueued', data: { vehicle_id: V1, identifier: golf, requested_by: 'search', queued_at: T1 } },
          { type: 'AssemblyTreeReady', data: { vehicle_id: V1, vehicle, tree, provider: 'sandbox', ready_at: T1 } },
          { type: 'AssemblyEnrichmentsReady', data: { vehicle_id: V1, enrichments, provider: 'sandbox', ready_at: T2 } },
        ]),
        ...on<VehicleLookupEvent>(`vehiclelookup-${V2}`, [
          { type: 'VehicleLookupQueued', data: { vehicle_id: V2, identifier: nobody, requested_by: 'search', queued_at: T0 } },
          { type: 'VehicleLookupFailed', data: { vehicle_id: V2, reason: 'vehicle_not_found', provider: 'sandbox', failed_at: T1 } },
        ]),
      ]).then({
        assembly_lookups: [
          { status: 'enriched', doc: { vehicle_id: V1, identifier: golf, status: 'enriched', requested_by: 'preload', queued_at: T0, tree_ready_at: T1, enriched_at: T2, vehicle, tree, enrichments } },
          { status: 'not_found', doc: { vehicle_id: V2, identifier: nobody, status: 'not_found', requested_by: 'search', queued_at: T0, tree_ready_at: T1, enriched_at: null, vehicle: null, tree: [], enrichments: [] } },
        ],
      }, { without: ['changed_at_position'], columns: ['status'] });
    });

    it('completed searches keep their organization for the subscribe replay', async () => {
      const done = (search_id: string, organization_id: string, enriched: boolean): AssemblySearchEvent => ({
        type: 'AssembliesSearchCompleted',
        data: { search_id, organization_id, vehicle_id: V1, vehicle: golf, hca_ids: enriched ? null : ['01.01'], result_count: enriched ? 3 : 2, enriched, completed_at: T1 },
      });
      await spec.given(assemblySearchesProjection, [...on(`assemblysearch-${S1}`, [done(S1, ORG, false)], { orgId: ORG }), ...on(`assemblysearch-${S2}`, [done(S2, ORG2, true)], { orgId: ORG2 })]).then({
        assembly_searches: [
          { organization_id: ORG, doc: { ...done(S1, ORG, false).data } },
          { organization_id: ORG2, doc: { ...done(S2, ORG2, true).data } },
        ],
      }, { without: ['position'], columns: ['organization_id'] });
    });
  });
}
