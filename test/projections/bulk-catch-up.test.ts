// A projection that fell behind by thousands of documents (a long outage of the projector, a restore) catches up in
// bulk onto the rows it already has: on PostgreSQL the write goes by COPY into a temporary table and one upsert from
// it. What it leaves must be what a rebuild from the log leaves, updated rows and new ones alike.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { billedOrg } from '../support/billing.ts';
import { ops } from '../support/ops.ts';
import { newId } from '../../src/ids.ts';
import type { EventData, RecordedEvent } from '../../src/eventstore/port.ts';
import { billingCustomersProjection } from '../../src/projections/billing/customers.ts';
import { dumpReadModels } from './support.ts';

/** More than one write chunk (5,000 rows): the bulk write's COPY path. */
const BEHIND = 5_200;

for (const backend of backends()) {
  describe(`bulk catch-up onto rows already there (${backend})`, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService(backend);
    });
    after(async () => svc?.close());

    it('thousands of new and changed customers caught up at once read as a rebuild from the log has them', async () => {
      const org = await billedOrg(svc);
      const renamed = await svc.call(ops['billing.customers.update'], { id: org.customerId, name: 'Before the outage Ltd' }, org.token);
      expect(renamed.status, JSON.stringify(renamed.body)).to.equal(200);
      const stream: RecordedEvent[] = [];
      for await (const e of svc.app.store.readStream(`customer-${org.customerId}`)) stream.push(e);
      const [created, update] = stream;
      if (!created || !update) throw new Error('no CustomerCreated and CustomerUpdated events');
      const before = Number((await svc.app.knex('billing_customers').count({ n: '*' }))[0]!.n);

      // The projector is down while the log grows: copies of the customer, and a rename of the one it has a row for.
      await svc.app.runner.stop();
      try {
        const copies: { stream: string; event: EventData }[] = [];
        for (let i = 0; i < BEHIND; i++) {
          const id = newId();
          const data = JSON.parse(JSON.stringify(created.data).replaceAll(org.customerId, id).replace(/"name":"[^"]*"/, `"name":"Caught up ${i} Ltd"`)) as unknown;
          copies.push({ stream: `customer-${id}`, event: { id: newId(), type: created.type, data, metadata: created.metadata } });
        }
        for (let i = 0; i < copies.length; i += 50) {
          await Promise.all(copies.slice(i, i + 50).map((c) => svc.app.store.appendToStream(c.stream, [c.event], { expectedRevision: 'no_stream' })));
        }
        const rename = JSON.parse(JSON.stringify(update.data).replace('Before the outage Ltd', 'After the outage Ltd')) as unknown;
        await svc.app.store.appendToStream(update.streamId, [{ id: newId(), type: update.type, data: rename, metadata: update.metadata }], { expectedRevision: update.revision });
        await svc.app.runner.catchUp();
      } finally {
        await svc.app.runner.prepare();
        svc.app.runner.start();
      }

      const rows = (await svc.app.knex('billing_customers').select('id', 'name')) as { id: string; name: string }[];
      expect(rows).to.have.length(before + BEHIND);
      expect(rows.find((r) => r.id === org.customerId)?.name).to.equal('After the outage Ltd');
      expect(rows.filter((r) => /^Caught up \d+ Ltd$/.test(r.name))).to.have.length(BEHIND);
      const caughtUp = await dumpReadModels(svc.app.knex);
      await svc.app.runner.rebuild([billingCustomersProjection.name]);
      expect((await dumpReadModels(svc.app.knex)).billing_customers).to.deep.equal(caughtUp.billing_customers);
    });
  });
}
