// Child process of the HTTP phases: the real service (createApp, default log level) over the bench
// database, with pre-created organizations and a billing-staff token; tells the parent over IPC.
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { createApp } from '../src/app.ts';
import { openPglite, openPostgres } from '../src/db.ts';
import { systemContext } from '../src/seed.ts';
import { createOrganization, createSession, createUser } from '../src/commands/identity/identity.ts';
import { IDENTITY } from '../src/queries/identity/identity.ts';
import { POOL_SIZE } from './support.ts';

/** What the child tells the parent once it listens. */
export interface ServerReady {
  url: string;
  staffToken: string;
  orgIds: string[];
}

async function main(): Promise<void> {
  const backend = process.env.BENCH_BACKEND;
  const orgCount = Number(process.env.BENCH_ORGS ?? '1000');
  const db = backend === 'postgres' ? openPostgres(process.env.BENCH_SERVER_DB!, POOL_SIZE) : await openPglite();
  const config = loadConfig({ ...process.env, DATABASE_URL: undefined, PORT: '0', HOST: '127.0.0.1' });
  // The service's own logger at its configured level (info by default), written to a file as in production.
  const logFile = process.env.BENCH_LOG_FILE ?? '/dev/null';
  const logger = pino({ level: config.logLevel, base: { service: 'core-server' } }, pino.destination({ dest: logFile, sync: false }));
  const app = await createApp(config, { db, logger });
  const ctx = systemContext(app, 'bench set-up');
  const platform = await createOrganization(ctx, { name: 'Bench platform', kind: 'platform' });
  const staff = await createUser(ctx, { email: 'bench-staff@example.com', password: 'bench-password', organizationId: platform.id, role: 'member', staff: ['billing_staff'] });
  // Organizations in bulk, straight into the log (set-up, not measured).
  const res = await db.knex.raw(ORGS, [orgCount]);
  const orgIds = (res.rows as { id: string }[]).map((r) => r.id);
  await db.knex.raw(`insert into es_streams (stream_id, revision) select stream_id, 0 from es_events where type = 'OrganizationCreated' and metadata->>'actor' like '%bench-bulk%'`);
  const head = await app.store.headPosition();
  await app.runner.waitFor(head, [IDENTITY], 120_000);
  await app.runner.waitFor(staff.position, [IDENTITY], 10_000);
  const session = await createSession(app.knex, { userId: staff.id, organizationId: platform.id, now: app.clock.now(), ttlHours: 24 });
  const url = await app.listen(0, '127.0.0.1');
  const ready: ServerReady = { url, staffToken: session.token, orgIds };
  process.send!({ ready });
  const stop = async () => {
    await app.close();
    await db.close();
    logger.flush();
    process.exit(0);
  };
  process.on('message', (m) => {
    if (m === 'stop') void stop();
  });
  process.on('disconnect', () => void stop());
}

const ORGS = `
  insert into es_events (stream_id, revision, event_id, type, data, metadata, created_at)
  select 'organization-' || id, 0, gen_random_uuid(), 'OrganizationCreated',
    jsonb_build_object('organization_id', id::text, 'name', 'Bench org ' || i, 'kind', 'repairer', 'created_at', now()),
    jsonb_build_object('org_id', id::text, 'actor', jsonb_build_object('type', 'system', 'id', 'bench-bulk'), 'request_id', null, 'correlation_id', null, 'causation_id', null),
    now()
  from (select i, gen_random_uuid() as id from generate_series(1, ?::int) as i) s
  returning data->>'organization_id' as id`;

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
