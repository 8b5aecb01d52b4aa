// Vehicle lookup and search deciders, and the sandbox provider's decoding: given events, when command, then events or error code.
import { expect } from 'chai';
import { type VehicleLookupCommand, type VehicleLookupEvent, vehicleLookupDecider } from '../../src/domain/assemblies/lookup.ts';
import { assemblySearchDecider } from '../../src/domain/assemblies/search.ts';
import { TestClock } from '../../src/clock.ts';
import { SandboxVehicleData } from '../../src/vehicle-data/sandbox.ts';
import { given } from './given.ts';

const V = '01900000-0000-7000-8000-00000000a001';
const ORG = '01900000-0000-7000-8000-000000000001';
const NOW = '2026-01-05T10:00:00.000Z';
const golf = { vrm: { plate: 'AB21CDE', location: { country: 'GB' } } };
const vehicle = { make: 'Volkswagen', model: 'Golf', variant: 'x', trim: null, colour: null, body: 'hatchback', fuel: 'petrol', year: 2021, vin: null, candidates: [], decoded_from: 'vrm' as const };
const queued: VehicleLookupEvent = { type: 'VehicleLookupQueued', data: { vehicle_id: V, identifier: golf, requested_by: 'preload', queued_at: NOW } };
const treeReady: VehicleLookupEvent = { type: 'AssemblyTreeReady', data: { vehicle_id: V, vehicle, tree: [], provider: 'sandbox', ready_at: NOW } };
const cmd = {
  queue: { type: 'QueueLookup', data: { vehicle_id: V, identifier: golf, requested_by: 'search', now: NOW } },
  tree: { type: 'RecordTree', data: { vehicle_id: V, vehicle, tree: [], provider: 'sandbox', now: NOW } },
  enrich: { type: 'RecordEnrichments', data: { vehicle_id: V, enrichments: [], provider: 'sandbox', now: NOW } },
  notFound: { type: 'RecordNotFound', data: { vehicle_id: V, reason: 'vehicle_not_found', provider: 'sandbox', now: NOW } },
} satisfies Record<string, VehicleLookupCommand>;

describe('vehicle lookup decider', () => {
  it('queues once: a second queue (another search, a preload) decides nothing', () => {
    given(vehicleLookupDecider, []).when(cmd.queue).then([{ type: 'VehicleLookupQueued', data: { vehicle_id: V, identifier: golf, requested_by: 'search', queued_at: NOW } }]);
    given(vehicleLookupDecider, [queued]).when(cmd.queue).then([]);
    given(vehicleLookupDecider, [queued, treeReady]).when(cmd.queue).then([]);
  });

  it('the tree comes after queueing and once; enrichments only after the tree and once', () => {
    given(vehicleLookupDecider, []).when(cmd.tree).thenError('lookup_not_queued');
    given(vehicleLookupDecider, [queued]).when(cmd.tree).then((events) => expect(events.map((e) => e.type)).to.deep.equal(['AssemblyTreeReady']));
    given(vehicleLookupDecider, [queued, treeReady]).when(cmd.tree).then([]);
    given(vehicleLookupDecider, [queued]).when(cmd.enrich).thenError('lookup_not_queued');
    given(vehicleLookupDecider, [queued, treeReady]).when(cmd.enrich).then((events) => expect(events.map((e) => e.type)).to.deep.equal(['AssemblyEnrichmentsReady']));
    const enriched: VehicleLookupEvent = { type: 'AssemblyEnrichmentsReady', data: { vehicle_id: V, enrichments: [], provider: 'sandbox', ready_at: NOW } };
    given(vehicleLookupDecider, [queued, treeReady, enriched]).when(cmd.enrich).then([]);
  });

  it('an unknown vehicle fails a queued lookup only', () => {
    given(vehicleLookupDecider, []).when(cmd.notFound).thenError('lookup_not_queued');
    given(vehicleLookupDecider, [queued]).when(cmd.notFound).then([{ type: 'VehicleLookupFailed', data: { vehicle_id: V, reason: 'vehicle_not_found', provider: 'sandbox', failed_at: NOW } }]);
    given(vehicleLookupDecider, [queued, treeReady]).when(cmd.notFound).then([]);
  });
});

describe('assembly search decider', () => {
  it('records a completed search once', () => {
    const data = { search_id: V, organization_id: ORG, vehicle_id: V, vehicle: golf, hca_ids: null, result_count: 3, enriched: true };
    const [e] = given(assemblySearchDecider, []).when({ type: 'RecordSearch', data: { ...data, now: NOW } }).then([{ type: 'AssembliesSearchCompleted', data: { ...data, completed_at: NOW } }]);
    given(assemblySearchDecider, e ? [e] : []).when({ type: 'RecordSearch', data: { ...data, now: NOW } }).then([]);
  });
});

describe('sandbox vehicle data', () => {
  const clock = new TestClock(NOW);
  const provider = new SandboxVehicleData(clock, { decodeMs: 500, treeMs: 2000, enrichMs: 3000 });
  const since = new Date(NOW);

  it('answers pending until its delay has passed on the clock, then the vehicle', async () => {
    const early = await provider.decode(golf, since);
    expect(early).to.deep.equal({ status: 'pending', ready_at: new Date(Date.parse(NOW) + 500) });
    clock.advance(500);
    const ready = await provider.decode({ vrm: { plate: 'ab21 cde', location: { country: 'gb' } } }, since);
    if (ready.status !== 'ready' || !ready.value) throw new Error('expected the Golf');
    expect(ready.value).to.include({ make: 'Volkswagen', variant: '1.5 TSI 130 Life', trim: 'Life', colour: 'Moonstone Grey' });
    expect((await provider.buildTree(ready.value, since)).status).to.equal('pending');
  });

  it('has hundreds of HCA nodes with the common synonyms, and a chassis prefix with two variants', async () => {
    const { nodes } = await provider.taxonomy();
    expect(nodes.length).to.be.greaterThan(250);
    const syn = (name: string) => nodes.find((n) => n.name === name)?.synonyms ?? [];
    expect(syn('Bonnet')).to.include('hood');
    expect(syn('Front wing, left')).to.include('fender left');
    expect(syn('Windscreen')).to.include('windshield');
    clock.advance(10_000);
    const vin = await provider.decode({ chassis_number: 'WBA5V7108LF000000' }, since);
    if (vin.status !== 'ready' || !vin.value) throw new Error('expected a BMW line');
    expect([vin.value.variant, vin.value.candidates.length]).to.deep.equal([null, 2]);
    expect(await provider.decode({ chassis_number: 'NOPE' }, since)).to.deep.equal({ status: 'ready', value: null });
  });
});
