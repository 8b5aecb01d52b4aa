// An event stored in an older shape reads as the current one, both when a command loads its aggregate and when a projection applies it.
import { expect } from 'chai';
import crypto from 'node:crypto';
import pino from 'pino';
import { TestClock } from '../../src/clock.ts';
import type { EventMetadata } from '../../src/eventstore/port.ts';
import { IdSource } from '../../src/ids.ts';
import type { CommandContext } from '../../src/context.ts';
import { loadAggregate, runCommand } from '../../src/commands/run.ts';
import { invoiceDecider } from '../../src/domain/billing/invoice.ts';
import { ProjectionRunner } from '../../src/projections/engine/runner.ts';
import { billingInvoicesProjection } from '../../src/projections/billing/invoices.ts';
import { usageDecider, usageKey } from '../../src/domain/billing/usage.ts';
import { billingUsageProjection } from '../../src/projections/billing/usage.ts';
import { backends, suiteStore } from '../support/db.ts';

const metadata: EventMetadata = { org_id: null, actor: { type: 'staff', id: 'u1' }, request_id: 'r1', correlation_id: 'r1', causation_id: null };
const NOW = new Date('2026-01-15T09:00:00.000Z');

for (const backend of backends()) {
  describe(`events stored in an old shape (${backend})`, function () {
    this.timeout(60_000);
    const opened = suiteStore(backend);

    it('an InvoiceDrafted stored before memo and metadata existed loads, decides and projects as an invoice with none', async () => {
      const id = crypto.randomUUID();
      const stream = `invoice-${id}`;
      const ref = { invoice_id: id, organization_id: crypto.randomUUID(), customer_id: crypto.randomUUID(), currency: 'GBP' };
      const lines = [{ kind: 'manual', description: 'Work', quantity: 2, unit_amount: 500, amount: 1000 }];
      // Written straight into the log, as the first version of the service wrote it: no memo, no metadata.
      await opened.store.appendToStream(stream, [{ id: crypto.randomUUID(), type: 'InvoiceDrafted', data: { ...ref, lines, subtotal: 1000, total: 1000, created_at: NOW.toISOString() }, metadata }], { expectedRevision: 'no_stream', now: NOW });

      const loaded = await loadAggregate(opened.store, invoiceDecider, stream);
      expect(loaded.state).to.include({ exists: true, status: 'draft', total: 1000, memo: null });
      expect(loaded.state.metadata).to.deep.equal({});

      // The current shape decides: clearing a memo that is already absent and setting the metadata it already has change nothing...
      const ctx: CommandContext = { store: opened.store, ids: IdSource.random(NOW), now: NOW, metadata };
      const same = await runCommand(ctx, invoiceDecider, stream, { type: 'UpdateInvoice', data: { memo: null, metadata: {}, now: NOW.toISOString() } });
      expect(same.events).to.deep.equal([]);
      // ...while a real memo is one change, next to the old event.
      const memo = await runCommand({ ...ctx, ids: IdSource.random(NOW) }, invoiceDecider, stream, { type: 'UpdateInvoice', data: { memo: 'Thanks', now: NOW.toISOString() } });
      expect(memo.events).to.deep.equal([{ type: 'InvoiceDetailsUpdated', data: { ...ref, memo: 'Thanks', updated_at: NOW.toISOString() } }]);

      const runner = new ProjectionRunner(opened.db.knex, opened.store, [billingInvoicesProjection], { logger: pino({ level: 'silent' }), clock: new TestClock(NOW) });
      await runner.prepare();
      await runner.catchUp();
      const row = (await opened.db.knex('billing_invoices').where({ id }).first()) as { doc: Record<string, unknown> };
      expect(row.doc).to.include({ id, status: 'draft', total: 1000, amount_remaining: 1000, memo: 'Thanks' });
      expect(row.doc.metadata).to.deep.equal({});
    });

    it('an order recorded before corrections existed is replaced by the current decider and projects with its revision', async () => {
      const orderId = `OLD-${crypto.randomUUID()}`;
      const stream = `usage-${usageKey(orderId)}`;
      const facts = { order_id: orderId, subscription_id: crypto.randomUUID(), seller: crypto.randomUUID(), buyer: crypto.randomUUID(), amount: 1000, currency: 'EUR', occurred_at: '2026-01-10T10:00:00.000Z' };
      // Written straight into the log, as the first version wrote it.
      await opened.store.appendToStream(stream, [{ id: crypto.randomUUID(), type: 'UsageRecorded', data: { ...facts, recorded_at: NOW.toISOString() }, metadata }], { expectedRevision: 'no_stream', now: NOW });
      const ctx: CommandContext = { store: opened.store, ids: IdSource.random(NOW), now: NOW, metadata };
      const replaced = await runCommand(ctx, usageDecider, stream, { type: 'ReplaceUsage', data: { facts: { currency: 'GBP' }, reason: 'Sent in EUR', invoice_id: null, now: NOW.toISOString() } });
      expect(replaced.events.map((e) => e.type)).to.deep.equal(['UsageReplaced']);
      const runner = new ProjectionRunner(opened.db.knex, opened.store, [billingUsageProjection], { logger: pino({ level: 'silent' }), clock: new TestClock(NOW) });
      await runner.prepare();
      await runner.catchUp();
      const row = (await opened.db.knex('billing_usage').where({ order_id: orderId }).first()) as { revision: number; voided: boolean; doc: Record<string, unknown> };
      expect([row.revision, row.voided, row.doc.currency, row.doc.amount]).to.deep.equal([1, false, 'GBP', 1000]);
    });
  });
}
