// Repair job, external id reservation and vehicle preload deciders: given events, when command, then events or error code.
import { expect } from 'chai';
import { type JobCommand, type JobEvent, jobDecider } from '../../src/domain/jobs/job.ts';
import { jobExternalIdDecider, jobExternalIdStream } from '../../src/domain/jobs/external-id.ts';
import { vehiclePreloadDecider } from '../../src/domain/vehicles/preload.ts';
import { type VehicleIdentifier, isCountryCode, normaliseVehicleIdentifier, vehicleIdOf } from '../../src/domain/vehicles/identifier.ts';
import { given } from './given.ts';


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
    given(jobDecider, []).when(insert()).then([created]);
  });

  it('refuses to create a job by our id (create_if_missing false): job_not_found', () => {
    given(jobDecider, []).when(insert({ create_if_missing: false })).thenError('job_not_found');
  });

  it('refuses a new job without a site or a vehicle: job_data_incomplete', () => {
    given(jobDecider, []).when(insert({ fields: { vehicle: car } })).thenError('job_data_incomplete');
    given(jobDecider, []).when(insert({ fields: { site_id: SITE } })).thenError('job_data_incomplete');
  });

  it('refuses a site that is not one of the organization\'s: site_not_found', () => {
    given(jobDecider, []).when(insert({ site_ids: [SITE2] })).thenError('site_not_found');
    given(jobDecider, [created]).when(insert({ fields: { site_id: SITE }, site_ids: [] })).thenError('site_not_found');
  });

  it('update merges only the given fields that changed', () => {
    given(jobDecider, [created]).when(insert({ fields: { job_number: { value: 'J-9' }, claim_number: { value: 'CLM-1' } } }))
      .then([{ type: 'JobUpdated', data: { changes: { job_number: { value: 'J-9' } }, updated_at: NOW } }]);
  });

  it('update with nothing new appends nothing', () => {
    given(jobDecider, [created]).when(insert({ fields: { claim_number: { value: 'CLM-1' }, vehicle: car } })).thenNothing();
  });

  it('update with an empty identifier clears it', () => {
    given(jobDecider, [created]).when(insert({ fields: { claim_number: {} } })).then([{ type: 'JobUpdated', data: { changes: { claim_number: {} }, updated_at: NOW } }]);
  });

  it('replace overwrites the data: omitted identifiers become empty', () => {
    given(jobDecider, [created]).when(insert({ if_exists: 'replace', fields: { site_id: SITE2, vehicle: van, job_number: { value: 'J-2' } } })).then([
      { type: 'JobReplaced', data: { data: { claim_number: {}, job_number: { value: 'J-2' }, work_provider_id: {}, site_id: SITE2, vehicle: van }, replaced_at: NOW } },
    ]);
  });

  it('replace needs a site and a vehicle', () => {
    given(jobDecider, [created]).when(insert({ if_exists: 'replace', fields: { job_number: { value: 'J-2' } } })).thenError('job_data_incomplete');
  });

  it('replace with identical data appends nothing', () => {
    given(jobDecider, [created]).when(insert({ if_exists: 'replace', fields: { site_id: SITE, vehicle: car, claim_number: { value: 'CLM-1' } } })).thenNothing();
  });

  it('treats another organization\'s job as missing, even when creating is allowed', () => {
    given(jobDecider, [created]).when(insert({ organization_id: OTHER_ORG })).thenError('job_not_found');
  });

  it('evolves update and replace into the current data', () => {
    const events: JobEvent[] = [
      created,
      { type: 'JobUpdated', data: { changes: { job_number: { value: 'J-1' } }, updated_at: NOW } },
      { type: 'JobReplaced', data: { data: { claim_number: {}, job_number: {}, work_provider_id: { value: 'WP' }, site_id: SITE2, vehicle: van }, replaced_at: NOW } },
      { type: 'JobUpdated', data: { changes: { claim_number: { value: 'C' } }, updated_at: NOW } },
    ];
    expect(given(jobDecider, events).state.data).to.deep.equal({ claim_number: { value: 'C' }, job_number: {}, work_provider_id: { value: 'WP' }, site_id: SITE2, vehicle: van });
  });
});

describe('job external id reservation decider', () => {
  const reserve = (jobId: string) => ({ type: 'ReserveJobExternalId' as const, data: { organization_id: ORG, client_id: CLIENT, integration_id: INTEGRATION, external_id: 'EXT-1', job_id: jobId, now: NOW } });

  it('reserves a free external id for the job', () => {
    given(jobExternalIdDecider, []).when(reserve(JOB)).then([
      { type: 'JobExternalIdReserved', data: { organization_id: ORG, client_id: CLIENT, integration_id: INTEGRATION, external_id: 'EXT-1', job_id: JOB, reserved_at: NOW } },
    ]);
  });

  it('leaves a taken external id with its first job', () => {
    const reserved = [{ type: 'JobExternalIdReserved' as const, data: { organization_id: ORG, client_id: CLIENT, integration_id: INTEGRATION, external_id: 'EXT-1', job_id: JOB, reserved_at: NOW } }];
    const taken = given(jobExternalIdDecider, reserved);
    taken.when(reserve('01900000-0000-7000-8000-0000000000b2')).thenNothing();
    expect(taken.state.jobId).to.equal(JOB);
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
    given(vehiclePreloadDecider, []).when(request([
      { vrm: { plate: 'ab12 cde', location: { country: 'gb' } } },
      { vrm: { plate: 'AB12CDE', location: { country: 'GB' } } },
      { chassis_number: 'WVWZZZ1JZXW000001' },
      { chassis_number: 'wvwzzz1jzxw000001' },
    ])).then((events) => {
      expect(events.map((e) => e.data.identifier)).to.deep.equal([
        { vrm: { plate: 'AB12CDE', location: { country: 'GB' } } },
        { chassis_number: 'WVWZZZ1JZXW000001' },
      ]);
      expect(events.every((e) => e.type === 'VehiclePreloadRequested' && e.data.preload_id === 'p1' && e.data.organization_id === ORG)).to.equal(true);
    });
  });

  it('refuses 0 and 101 identifiers, accepts 100', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ chassis_number: `VIN${i}` }));
    given(vehiclePreloadDecider, []).when(request([])).thenError('invalid_identifier_count');
    given(vehiclePreloadDecider, []).when(request(many(101))).thenError('invalid_identifier_count');
    given(vehiclePreloadDecider, []).when(request(many(100))).then((events) => expect(events).to.have.length(100));
  });

  it('records a preload once', () => {
    const first = given(vehiclePreloadDecider, []).when(request([{ chassis_number: 'A' }])).then((events) => expect(events).to.have.length(1));
    given(vehiclePreloadDecider, first).when(request([{ chassis_number: 'A' }])).thenNothing();
  });
});
