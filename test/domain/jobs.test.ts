// Repair job, external id reservation and vehicle preload deciders: given events, when command, then events or error code.
import { expect } from 'chai';
import { type Decider, type DomainEvent } from '../../src/domain/decider.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { type JobCommand, type JobEvent, jobDecider } from '../../src/domain/jobs/job.ts';
import { jobExternalIdDecider, jobExternalIdStream } from '../../src/domain/jobs/external-id.ts';
import { vehiclePreloadDecider } from '../../src/domain/vehicles/preload.ts';
import { type VehicleIdentifier, isCountryCode, normaliseVehicleIdentifier, vehicleIdOf } from '../../src/domain/vehicles/identifier.ts';

/** Folds `given`, runs `when`; returns the new events or the refusal's code. */
function scenario<C, E extends DomainEvent, S>(decider: Decider<C, E, S>, given: E[], when: C): { events: E[] } | { error: string } {
  const state = given.reduce(decider.evolve, decider.initialState());
  try {
    return { events: decider.decide(when, state) };
  } catch (err) {
    if (err instanceof DomainError) return { error: err.code };
    throw err;
  }
}

const ORG = '01900000-0000-7000-8000-000000000001';
const OTHER_ORG = '01900000-0000-7000-8000-000000000002';
const INTEGRATION = '01900000-0000-7000-8000-0000000000aa';
const CLIENT = '01900000-0000-7000-8000-0000000000dd';
const JOB = '01900000-0000-7000-8000-0000000000b1';
const SITE = '01900000-0000-7000-8000-0000000000c1';
const SITE2 = '01900000-0000-7000-8000-0000000000c2';
const NOW = '2026-01-05T10:00:00.000Z';
const car = { identifier: { vrm: { plate: 'AB12CDE', location: { country: 'GB' } } } };
const van = { identifier: { chassis_number: 'WVWZZZ1JZXW000001' } };

function insert(over: Partial<JobCommand['data']> = {}): JobCommand {
  return {
    type: 'InsertJob',
    data: {
      job_id: JOB,
      organization_id: ORG,
      client_id: CLIENT,
      integration_id: INTEGRATION,
      external_id: { value: 'EXT-1' },
      fields: { site_id: SITE, vehicle: car, claim_number: { value: 'CLM-1' } },
      if_exists: 'update',
      create_if_missing: true,
      site_ids: [SITE, SITE2],
      now: NOW,
      ...over,
    },
  };
}

const created: JobEvent = {
  type: 'JobCreated',
  data: {
    job_id: JOB,
    organization_id: ORG,
    client_id: CLIENT,
    integration_id: INTEGRATION,
    external_id: { value: 'EXT-1' },
    claim_number: { value: 'CLM-1' },
    job_number: {},
    work_provider_id: {},
    site_id: SITE,
    vehicle: car,
    status: { type: 'draft' },
    created_at: NOW,
  },
};

describe('job decider', () => {
  it('creates a draft job with empty identifiers when none exists', () => {
    expect(scenario(jobDecider, [], insert())).to.deep.equal({ events: [created] });
  });

  it('refuses to create a job by our id (create_if_missing false): job_not_found', () => {
    expect(scenario(jobDecider, [], insert({ create_if_missing: false }))).to.deep.equal({ error: 'job_not_found' });
  });

  it('refuses a new job without a site or a vehicle: job_data_incomplete', () => {
    expect(scenario(jobDecider, [], insert({ fields: { vehicle: car } }))).to.deep.equal({ error: 'job_data_incomplete' });
    expect(scenario(jobDecider, [], insert({ fields: { site_id: SITE } }))).to.deep.equal({ error: 'job_data_incomplete' });
  });

  it('refuses a site that is not one of the organization\'s: site_not_found', () => {
    expect(scenario(jobDecider, [], insert({ site_ids: [SITE2] }))).to.deep.equal({ error: 'site_not_found' });
    expect(scenario(jobDecider, [created], insert({ fields: { site_id: SITE }, site_ids: [] }))).to.deep.equal({ error: 'site_not_found' });
  });

  it('update merges only the given fields that changed', () => {
    const res = scenario(jobDecider, [created], insert({ fields: { job_number: { value: 'J-9' }, claim_number: { value: 'CLM-1' } } }));
    expect(res).to.deep.equal({ events: [{ type: 'JobUpdated', data: { changes: { job_number: { value: 'J-9' } }, updated_at: NOW } }] });
  });

  it('update with nothing new appends nothing', () => {
    expect(scenario(jobDecider, [created], insert({ fields: { claim_number: { value: 'CLM-1' }, vehicle: car } }))).to.deep.equal({ events: [] });
  });

  it('update with an empty identifier clears it', () => {
    const res = scenario(jobDecider, [created], insert({ fields: { claim_number: {} } }));
    expect(res).to.deep.equal({ events: [{ type: 'JobUpdated', data: { changes: { claim_number: {} }, updated_at: NOW } }] });
  });

  it('replace overwrites the data: omitted identifiers become empty', () => {
    const res = scenario(jobDecider, [created], insert({ if_exists: 'replace', fields: { site_id: SITE2, vehicle: van, job_number: { value: 'J-2' } } }));
    expect(res).to.deep.equal({
      events: [{ type: 'JobReplaced', data: { data: { claim_number: {}, job_number: { value: 'J-2' }, work_provider_id: {}, site_id: SITE2, vehicle: van }, replaced_at: NOW } }],
    });
  });

  it('replace needs a site and a vehicle', () => {
    expect(scenario(jobDecider, [created], insert({ if_exists: 'replace', fields: { job_number: { value: 'J-2' } } }))).to.deep.equal({ error: 'job_data_incomplete' });
  });

  it('replace with identical data appends nothing', () => {
    expect(scenario(jobDecider, [created], insert({ if_exists: 'replace', fields: { site_id: SITE, vehicle: car, claim_number: { value: 'CLM-1' } } }))).to.deep.equal({ events: [] });
  });

  it('treats another organization\'s job as missing, even when creating is allowed', () => {
    expect(scenario(jobDecider, [created], insert({ organization_id: OTHER_ORG }))).to.deep.equal({ error: 'job_not_found' });
  });

  it('evolves update and replace into the current data', () => {
    const events: JobEvent[] = [
      created,
      { type: 'JobUpdated', data: { changes: { job_number: { value: 'J-1' } }, updated_at: NOW } },
      { type: 'JobReplaced', data: { data: { claim_number: {}, job_number: {}, work_provider_id: { value: 'WP' }, site_id: SITE2, vehicle: van }, replaced_at: NOW } },
      { type: 'JobUpdated', data: { changes: { claim_number: { value: 'C' } }, updated_at: NOW } },
    ];
    const state = events.reduce(jobDecider.evolve, jobDecider.initialState());
    expect(state.data).to.deep.equal({ claim_number: { value: 'C' }, job_number: {}, work_provider_id: { value: 'WP' }, site_id: SITE2, vehicle: van });
  });
});

describe('job external id reservation decider', () => {
  const reserve = (jobId: string) => ({ type: 'ReserveJobExternalId' as const, data: { organization_id: ORG, client_id: CLIENT, integration_id: INTEGRATION, external_id: 'EXT-1', job_id: jobId, now: NOW } });

  it('reserves a free external id for the job', () => {
    expect(scenario(jobExternalIdDecider, [], reserve(JOB))).to.deep.equal({
      events: [{ type: 'JobExternalIdReserved', data: { organization_id: ORG, client_id: CLIENT, integration_id: INTEGRATION, external_id: 'EXT-1', job_id: JOB, reserved_at: NOW } }],
    });
  });

  it('leaves a taken external id with its first job', () => {
    const given = [{ type: 'JobExternalIdReserved' as const, data: { organization_id: ORG, client_id: CLIENT, integration_id: INTEGRATION, external_id: 'EXT-1', job_id: JOB, reserved_at: NOW } }];
    expect(scenario(jobExternalIdDecider, given, reserve('01900000-0000-7000-8000-0000000000b2'))).to.deep.equal({ events: [] });
    expect(given.reduce(jobExternalIdDecider.evolve, jobExternalIdDecider.initialState()).jobId).to.equal(JOB);
  });

  it('keys the stream by organization, integration (client app) and value', () => {
    const a = jobExternalIdStream(ORG, CLIENT, 'EXT-1');
    expect(a).to.match(/^jobexternal-[0-9a-f-]{36}$/);
    expect(jobExternalIdStream(ORG, CLIENT, 'EXT-1')).to.equal(a);
    expect(jobExternalIdStream(OTHER_ORG, CLIENT, 'EXT-1')).to.not.equal(a);
    expect(jobExternalIdStream(ORG, '01900000-0000-7000-8000-0000000000ab', 'EXT-1')).to.not.equal(a);
    expect(jobExternalIdStream(ORG, CLIENT, 'EXT-2')).to.not.equal(a);
  });
});

describe('vehicle identifiers', () => {
  it('normalises plates and chassis numbers to upper case without spaces', () => {
    expect(normaliseVehicleIdentifier({ vrm: { plate: ' ab12 cde ', location: { country: 'gb', region: ' eng ' } } })).to.deep.equal({
      vrm: { plate: 'AB12CDE', location: { country: 'GB', region: 'ENG' } },
    });
    expect(normaliseVehicleIdentifier({ chassis_number: 'wvw zzz1jzxw000001' })).to.deep.equal({ chassis_number: 'WVWZZZ1JZXW000001' });
  });

  it('gives one vehicle id to spellings of one plate, different ids to different places', () => {
    const a = vehicleIdOf({ vrm: { plate: 'AB12CDE', location: { country: 'GB' } } });
    expect(vehicleIdOf({ vrm: { plate: 'ab12 cde', location: { country: 'gb' } } })).to.equal(a);
    expect(vehicleIdOf({ vrm: { plate: 'AB12CDE', location: { country: 'IE' } } })).to.not.equal(a);
    expect(vehicleIdOf({ chassis_number: 'AB12CDE' })).to.not.equal(a);
  });

  it('accepts ISO 3166-1 alpha-2 countries only', () => {
    for (const c of ['GB', 'de', 'IE', 'US']) expect(isCountryCode(c), c).to.equal(true);
    for (const c of ['UK', 'EU', 'ZZ', 'XX', 'GBR', '']) expect(isCountryCode(c), c).to.equal(false);
  });
});

describe('vehicle preload decider', () => {
  const request = (identifiers: VehicleIdentifier[]) => ({
    type: 'RequestVehiclePreload' as const,
    data: { preload_id: 'p1', identifiers, organization_id: ORG, integration_id: INTEGRATION, now: NOW },
  });

  it('records one event per distinct identifier after normalisation', () => {
    const res = scenario(vehiclePreloadDecider, [], request([
      { vrm: { plate: 'ab12 cde', location: { country: 'gb' } } },
      { vrm: { plate: 'AB12CDE', location: { country: 'GB' } } },
      { chassis_number: 'WVWZZZ1JZXW000001' },
      { chassis_number: 'wvwzzz1jzxw000001' },
    ]));
    if (!('events' in res)) throw new Error(`refused: ${res.error}`);
    expect(res.events.map((e) => e.data.identifier)).to.deep.equal([
      { vrm: { plate: 'AB12CDE', location: { country: 'GB' } } },
      { chassis_number: 'WVWZZZ1JZXW000001' },
    ]);
    expect(res.events.every((e) => e.type === 'VehiclePreloadRequested' && e.data.preload_id === 'p1' && e.data.organization_id === ORG)).to.equal(true);
  });

  it('refuses 0 and 101 identifiers, accepts 100', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ chassis_number: `VIN${i}` }));
    expect(scenario(vehiclePreloadDecider, [], request([]))).to.deep.equal({ error: 'invalid_identifier_count' });
    expect(scenario(vehiclePreloadDecider, [], request(many(101)))).to.deep.equal({ error: 'invalid_identifier_count' });
    const ok = scenario(vehiclePreloadDecider, [], request(many(100)));
    expect('events' in ok && ok.events.length).to.equal(100);
  });

  it('records a preload once', () => {
    const first = scenario(vehiclePreloadDecider, [], request([{ chassis_number: 'A' }]));
    if (!('events' in first)) throw new Error('refused');
    expect(scenario(vehiclePreloadDecider, first.events, request([{ chassis_number: 'A' }]))).to.deep.equal({ events: [] });
  });
});
