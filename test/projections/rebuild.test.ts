// Read models are disposable: replaying the log must reproduce exactly the rows live projection wrote.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ProjectionRunner } from '../../src/projections/engine/runner.ts';
import { projections } from '../../src/areas/index.ts';
import { billingCustomersProjection } from '../../src/projections/billing/customers.ts';
import { dumpReadModels, readModelTables, writeSampleData } from './support.ts';
import { ops } from '../support/ops.ts';
import type { Knex } from 'knex';

/** Every index and constraint of the read-model tables, as the catalog defines them. */
async function indexesAndConstraints(knex: Knex): Promise<unknown[]> {
  const tables = readModelTables();
  const indexes = await knex.raw(`select tablename, indexname, indexdef from pg_indexes where schemaname = current_schema() and tablename = any(?) order by 1, 2`, [tables]);
  const constraints = await knex.raw(
    `select conrelid::regclass::text as tablename, conname, pg_get_constraintdef(oid) as def from pg_constraint
     where connamespace = current_schema()::regnamespace and conrelid::regclass::text = any(?) order by 1, 2`,
    [tables],
  );
  expect(indexes.rows.length).to.be.greaterThan(tables.length); // every table has its primary key, some more
  return [...indexes.rows, ...constraints.rows];
}

for (const backend of backends()) {
  describe(`projection rebuild (${backend})`, () => {
    let svc: TestService;
    before(async () => {
      // selfUrl: the sandbox provider's notifications reach this instance (the sample adds cards).
      svc = await startService(backend, { selfUrl: true });
      await writeSampleData(svc);
    });
    after(async () => svc?.close());

    it('rebuilding every read model from the log yields exactly the rows live projection produced', async () => {
      const live = await dumpReadModels(svc.app.knex);
      const schema = await indexesAndConstraints(svc.app.knex);
      // The sample data fills every read model, so each comparison below compares something.
      for (const table of readModelTables()) expect(live[table]?.length, table).to.be.greaterThan(0);
      let progress = 0;
      await svc.app.runner.rebuild([], () => progress++);
      expect(progress).to.be.greaterThan(0);
      expect(await dumpReadModels(svc.app.knex)).to.deep.equal(live);
      // A replay into an empty table builds its indexes afterwards: the same indexes and constraints come back.
      expect(await indexesAndConstraints(svc.app.knex)).to.deep.equal(schema);
      // And the service still answers (the live loop follows the rebuilt checkpoints).
      const me = await svc.signUp();
      expect((await svc.call(ops['auth.sessions.get'], undefined, me.token)).status).to.equal(200);
    });

    it('rebuilds only the named projection and refuses unknown names', async () => {
      const before = await dumpReadModels(svc.app.knex);
      await svc.app.runner.rebuild(['billing.customers']);
      expect(await dumpReadModels(svc.app.knex)).to.deep.equal(before);
      let error: unknown;
      try {
        await svc.app.runner.rebuild(['no.such.projection']);
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(Error);
    });

    it('a bumped projection version is built beside the old one, which serves until the new one is swapped in', async () => {
      const before = await dumpReadModels(svc.app.knex);
      const schema = await indexesAndConstraints(svc.app.knex);
      const stored = await svc.app.knex('projection_checkpoints').where({ name: billingCustomersProjection.name }).first();
      await svc.app.runner.stop();
      try {
        const bumped = { ...billingCustomersProjection, version: billingCustomersProjection.version + 1 };
        const runner = new ProjectionRunner(svc.app.knex, svc.app.store, projections.map((p) => (p.name === bumped.name ? bumped : p)), { logger: svc.app.logger, clock: svc.clock, oneConnection: backend === 'pglite' });
        await runner.prepare();
        // The old rows still answer; the new version starts from the start of the log in its own schema.
        expect(await svc.app.knex('billing_customers').select('id')).to.have.length(before.billing_customers?.length ?? -1);
        expect(await svc.app.knex('projection_checkpoints').where({ name: bumped.name }).first()).to.include({ version: bumped.version, position: stored.position });
        expect(await svc.app.knex('projection_checkpoints').where({ name: `${bumped.name}@next` }).first()).to.include({ version: bumped.version, position: null });
        runner.start();
        await runner.builds();
        await runner.stop();
        expect(await svc.app.knex('projection_checkpoints').where({ name: `${bumped.name}@next` }).first()).to.equal(undefined);
        expect((await svc.app.knex.raw(`select count(*)::int as n from pg_namespace where nspname like 'rebuild_%'`)).rows[0].n).to.equal(0);
        expect(await dumpReadModels(svc.app.knex)).to.deep.equal(before);
        // The new tables were made with their keys only and got their other indexes once caught up: all are back.
        expect(await indexesAndConstraints(svc.app.knex)).to.deep.equal(schema);
      } finally {
        // Put the original version back for the rest of the suite.
        await svc.app.knex('projection_checkpoints').where({ name: billingCustomersProjection.name }).update({ version: billingCustomersProjection.version });
        await svc.app.runner.prepare();
        svc.app.runner.start();
      }
    });
  });
}
