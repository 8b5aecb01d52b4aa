// runCommand: load, decide, append with the expected revision; lost races are re-decided (bounded); retries are no-ops.
import { expect } from 'chai';
import crypto from 'node:crypto';
import { WrongExpectedVersionError, type EventMetadata } from '../../src/eventstore/port.ts';
import { IdSource } from '../../src/ids.ts';
import type { CommandContext } from '../../src/context.ts';
import { commandHandler, runCommand } from '../../src/commands/run.ts';
import { customerDecider, type CustomerCommand } from '../../src/domain/billing/customer.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { exchangeRateDecider } from '../../src/domain/billing/exchange-rate.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { backends, suiteStore } from '../support/db.ts';

const metadata: EventMetadata = { org_id: null, actor: { type: 'user', id: 'u1' }, request_id: 'r1', correlation_id: 'r1', causation_id: null };
const NOW = new Date('2026-01-15T09:00:00.000Z');

for (const backend of backends()) {
  describe(`runCommand (${backend})`, function () {
    this.timeout(60_000);
    const opened = suiteStore(backend);
    const ctx = (ids = IdSource.random(NOW)): CommandContext => ({ store: opened.store, ids, now: NOW, metadata });
    const create = (orgId: string): CustomerCommand => ({
      type: 'CreateCustomer',
      data: { customer_id: crypto.randomUUID(), organization_id: orgId, name: 'A', email: 'a@example.com', billing_address: null, currency: 'GBP', payment_terms_days: 30, tax_id: null, metadata: {}, now: NOW.toISOString() },
    });
    const rename = (name: string): CustomerCommand => ({ type: 'UpdateCustomer', data: { changes: { name }, now: NOW.toISOString() } });
    const typesOf = async (stream: string) => (await opened.db.knex('es_events').where({ stream_id: stream }).orderBy('revision').pluck('type')) as string[];

    it('refuses a decision its own event schema would not read back (year 0000), and appends nothing', async () => {
      const stream = `exchangerate-${crypto.randomUUID()}`;
      const err = await runCommand(ctx(), exchangeRateDecider, stream, { type: 'RecordExchangeRate', data: { base: 'EUR', target: 'GBP', rate: '0.85', as_of: '0000-01-01T00:00:00.000Z', source: 'typo', now: NOW.toISOString() } }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(DomainError);
      expect(err instanceof DomainError && err.code).to.equal('invalid_request');
      expect(err instanceof DomainError && err.issues?.map((i) => i.path)).to.deep.equal(['as_of']);
      expect(await typesOf(stream)).to.deep.equal([]);
    });

    it('appends the decided events with the org and actor metadata', async () => {
      const stream = `customer-${crypto.randomUUID()}`;
      const orgId = crypto.randomUUID();
      const res = await runCommand(ctx(), customerDecider, stream, create(orgId), { orgId, reason: 'test' });
      expect(res.duplicate).to.equal(false);
      expect(res.state.status).to.equal('active');
      const [row] = await opened.db.knex('es_events').where({ stream_id: stream }).select('metadata');
      expect(row.metadata).to.deep.equal({ ...metadata, org_id: orgId, reason: 'test' });
      // A command that decides nothing appends nothing.
      const none = await runCommand(ctx(), customerDecider, stream, rename('A'));
      expect(none.events).to.deep.equal([]);
      expect(none.duplicate).to.equal(false);
      expect(await typesOf(stream)).to.deep.equal(['CustomerCreated']);
    });

    it('re-decides a lost race on fresh state: 5 concurrent changes all succeed', async () => {
      const stream = `customer-${crypto.randomUUID()}`;
      await runCommand(ctx(), customerDecider, stream, create(crypto.randomUUID()));
      const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => runCommand(ctx(), customerDecider, stream, rename(`Name ${i}`))));
      expect(results.map((r) => r.status)).to.deep.equal(Array(5).fill('fulfilled'));
      expect(await typesOf(stream)).to.have.length(6);
    });

    it('gives up after a bounded number of lost races with WrongExpectedVersionError', async () => {
      const stream = `customer-${crypto.randomUUID()}`;
      await runCommand(ctx(), customerDecider, stream, create(crypto.randomUUID()));
      const results = await Promise.allSettled(Array.from({ length: 16 }, (_, i) => runCommand(ctx(), customerDecider, stream, rename(`Name ${i}`))));
      const ok = results.filter((r) => r.status === 'fulfilled').length;
      for (const r of results) if (r.status === 'rejected') expect(r.reason).to.be.instanceOf(WrongExpectedVersionError);
      expect(ok).to.be.at.least(5);
      expect(await typesOf(stream)).to.have.length(1 + ok);
    });

    it('a retry of the same request (same id seed) is a no-op that reports the stored position', async () => {
      const stream = `customer-${crypto.randomUUID()}`;
      await runCommand(ctx(), customerDecider, stream, create(crypto.randomUUID()));
      const seed = crypto.randomUUID();
      const first = await runCommand(ctx(new IdSource(seed, NOW.getTime())), customerDecider, stream, rename('Once'));
      const again = await runCommand(ctx(new IdSource(seed, NOW.getTime())), customerDecider, stream, rename('Once'));
      expect(again.duplicate).to.equal(true);
      expect(again.position).to.equal(first.position);
      expect(await typesOf(stream)).to.deep.equal(['CustomerCreated', 'CustomerUpdated']);
    });

    it('loaded: decides on the caller\'s read; a stale read conflicts and is decided again on the stream; a retry is a no-op', async () => {
      const handler = commandHandler(customerDecider, (id: string) => `customer-${id}`);
      const id = crypto.randomUUID();
      const stream = handler.stream(id);
      await runCommand(ctx(), customerDecider, stream, create(crypto.randomUUID()));
      const read = await handler.read(ctx(), id);
      expect(read.revision).to.equal(0n);
      const seed = crypto.randomUUID();
      const first = await handler.run(ctx(new IdSource(seed, NOW.getTime())), id, { type: 'UpdateCustomer', data: { changes: { name: 'B' } } }, { loaded: read });
      expect(first.state.fields?.name).to.equal('B');
      // The same read again is stale now (revision 0 of 1): the append conflicts, the stream is read and the command decided on it.
      const second = await handler.run(ctx(), id, { type: 'UpdateCustomer', data: { changes: { name: 'C' } } }, { loaded: read });
      expect(second.duplicate).to.equal(false);
      expect(await typesOf(stream)).to.deep.equal(['CustomerCreated', 'CustomerUpdated', 'CustomerUpdated']);
      // The first request retried with a fresh read: recognized by its event ids, nothing appended; it
      // reports the stream's last position, as a retry without `loaded` does (a wait then sees both writes).
      const fresh = await handler.read(ctx(), id);
      const again = await handler.run(ctx(new IdSource(seed, NOW.getTime())), id, { type: 'UpdateCustomer', data: { changes: { name: 'B' } } }, { loaded: fresh });
      expect(again.duplicate).to.equal(true);
      expect(again.position).to.equal(fresh.position);
      expect(again.position).to.equal(second.position);
      expect(await typesOf(stream)).to.have.length(3);
    });

    it('decides on what this process last read or wrote; a change another process made since is never lost or repeated', async () => {
      // Another process: its own store on the same database, so it remembers nothing of this one's reads and writes.
      const other = new PostgresEventStore(opened.db);
      const otherCtx = (): CommandContext => ({ ...ctx(), store: other });
      const handler = commandHandler(customerDecider, (id: string) => `customer-${id}`);
      try {
        const id = crypto.randomUUID();
        const stream = handler.stream(id);
        // Read here before it exists, created by the other process: an update here is decided on the stream, not refused.
        expect((await handler.read(ctx(), id)).revision).to.equal(null);
        await runCommand(otherCtx(), customerDecider, stream, create(crypto.randomUUID()));
        const updated = await handler.run(ctx(), id, { type: 'UpdateCustomer', data: { changes: { name: 'B' } } });
        expect(updated.state.fields?.name).to.equal('B');
        // Remembered here as B, renamed to C there: renaming it back to B decides nothing on what is remembered,
        // but the stream says C, so it is appended.
        await runCommand(otherCtx(), customerDecider, stream, rename('C'));
        const back = await runCommand(ctx(), customerDecider, stream, rename('B'));
        expect(back.events.map((e) => e.type)).to.deep.equal(['CustomerUpdated']);
        // Renamed to D there: renaming it to D here conflicts, and on the stream there is nothing left to do.
        await runCommand(otherCtx(), customerDecider, stream, rename('D'));
        const same = await runCommand(ctx(), customerDecider, stream, rename('D'));
        expect(same.events).to.deep.equal([]);
        expect(same.state.fields?.name).to.equal('D');
        // Removed there: a rename here is refused as the stream says, nothing appended.
        await runCommand(otherCtx(), customerDecider, stream, { type: 'RemoveCustomer', data: { now: NOW.toISOString(), open_invoices: 0 } });
        const refused = await runCommand(ctx(), customerDecider, stream, rename('E')).then(() => null, (err: unknown) => err);
        expect(refused).to.be.instanceOf(Error);
        expect(await typesOf(stream)).to.deep.equal(['CustomerCreated', 'CustomerUpdated', 'CustomerUpdated', 'CustomerUpdated', 'CustomerUpdated', 'CustomerRemoved']);
      } finally {
        await other.close();
      }
    });

    it('expectNew: creates without reading; on an existing stream answers exactly as a load would; a retry is a no-op', async () => {
      const stream = `customer-${crypto.randomUUID()}`;
      const seed = crypto.randomUUID();
      const first = await runCommand(ctx(new IdSource(seed, NOW.getTime())), customerDecider, stream, create(crypto.randomUUID()), { expectNew: true });
      expect(first.duplicate).to.equal(false);
      expect(first.state.status).to.equal('active');
      // The same request again (same id seed): the stored append, with the stream's state.
      const again = await runCommand(ctx(new IdSource(seed, NOW.getTime())), customerDecider, stream, create(crypto.randomUUID()), { expectNew: true });
      expect(again.duplicate).to.equal(true);
      expect(again.position).to.equal(first.position);
      expect(again.state.status).to.equal('active');
      // Another create on the existing stream: refused as the decider refuses it on the stored state.
      const other = await runCommand(ctx(), customerDecider, stream, create(crypto.randomUUID()), { expectNew: true }).then(() => null, (err: unknown) => err);
      const plain = await runCommand(ctx(), customerDecider, stream, create(crypto.randomUUID())).then(() => null, (err: unknown) => err);
      expect(other).to.be.instanceOf(Error);
      expect((other as Error).message).to.equal((plain as Error).message);
      expect(await typesOf(stream)).to.deep.equal(['CustomerCreated']);
    });
  });
}
