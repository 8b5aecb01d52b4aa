// Migrations per event log: with EventStoreDB only the read-model schema is created; the Postgres log's tables come when needed.
import { expect } from 'chai';
import { openPglite, type Db } from '../../src/db.ts';
import { LOG_ONLY_MIGRATIONS, migrateLatest, migrationSource } from '../../migrations/index.ts';

async function tables(db: Db): Promise<string[]> {
  const res = await db.knex.raw(`select table_name from information_schema.tables where table_schema = 'public' order by 1`);
  return (res.rows as { table_name: string }[]).map((r) => r.table_name);
}

describe('migrations per event log', () => {
  let db: Db;
  beforeEach(async () => {
    db = await openPglite();
  });
  afterEach(async () => {
    await db.close();
  });

  it('with EventStoreDB create read models, checkpoints and infrastructure, but not the event-store tables', async () => {
    const all = await migrationSource.getMigrations([]);
    const applied = await migrateLatest(db.knex, 'esdb');
    expect(applied).to.deep.equal(all.filter((m) => !LOG_ONLY_MIGRATIONS.includes(m)));
    expect(applied).to.not.include('0001_eventstore');
    const t = await tables(db);
    expect(t).to.include.members(['projection_checkpoints', 'idempotency_keys', 'sessions', 'billing_invoices']);
    expect(t).to.not.include.members(['es_events']);
    expect(t).to.not.include('es_streams');
    expect(await migrateLatest(db.knex, 'esdb')).to.deep.equal([]);
    // Switching back to the Postgres log later creates its tables then.
    expect(await migrateLatest(db.knex, 'postgres')).to.deep.equal(LOG_ONLY_MIGRATIONS);
    expect(await tables(db)).to.include('es_events');
  });

  it('accept a database that once held the Postgres log when EventStoreDB is selected later', async () => {
    expect(await migrateLatest(db.knex)).to.include('0001_eventstore');
    expect(await migrateLatest(db.knex, 'esdb')).to.deep.equal([]);
  });
});
