// The webhook outbox commits most of the tail's batches in the tail's one statement (stage) and the rest (an endpoint
// changed, a customer erased) through apply in a transaction. Both must give the outbox the same rows: logs of every
// event type (schema-drawn data) with endpoints that want every public type are run live through the tail twice, once
// as shipped and once with apply alone, and the outbox tables compared, on both backends.
import { expect } from 'chai';
import fc from 'fast-check';
import pino from 'pino';
import { TestClock } from '../../src/clock.ts';
import { ProjectionRunner } from '../../src/projections/engine/runner.ts';
import type { Projection } from '../../src/projections/projection.ts';
import { billingWebhookOutboxProjection } from '../../src/projections/billing/webhook-outbox.ts';
import { WEBHOOK_EVENT_TYPES } from '../../src/domain/billing/webhook-endpoint.ts';
import { backends, suiteStore } from '../support/db.ts';
import { AGGREGATES, ID_POOL, type PhasedEvent, eventLogs } from './all-events.ts';

const RUNS = Number(process.env.OUTBOX_STAGE_RUNS ?? 4);
const START = '2026-01-15T09:00:00.000Z';
const metadata = { org_id: ID_POOL[0]!, actor: { type: 'staff' as const, id: ID_POOL[1]! }, request_id: null, correlation_id: null, causation_id: null };

/** Endpoints of the first organization and of billing staff (every organization) that want every public type. */
function endpoints(): PhasedEvent[] {
  return [ID_POOL[0]!, null].map((org, i) => ({
    stream: `webhookendpoint-0190c6a2-0000-7000-8000-0000000000e${i}`, type: 'WebhookEndpointRegistered', phase: 0, metadata,
    data: { endpoint_id: `0190c6a2-0000-7000-8000-0000000000e${i}`, organization_id: org, url: 'https://hooks.example/in', event_types: [...WEBHOOK_EVENT_TYPES], description: '', secret: 'whsec_test', registered_at: START },
  }));
}

const TABLES = ['billing_webhook_targets', 'billing_webhook_messages', 'billing_webhook_redeliveries', 'billing_webhook_feed_facts'];

for (const backend of backends()) {
  describe(`webhook outbox: one-statement and transaction commits agree (${backend})`, function () {
    this.timeout(Math.max(300_000, RUNS * 30_000));
    const opened = suiteStore(backend);

    /** The outbox's rows after the live tail applied the whole log with `projection`. */
    async function outbox(projection: Projection): Promise<Record<string, unknown[]>> {
      const { db, store } = opened;
      await db.knex.raw(`truncate projection_checkpoints, ${TABLES.join(', ')}`);
      const failures: string[] = [];
      const logger = pino({ level: 'warn' }, { write: (line: string) => void failures.push(line) });
      const runner = new ProjectionRunner(db.knex, store, [projection], { logger, clock: new TestClock(START), batchSize: 8, bulkBatchSize: 8 });
      await runner.prepare();
      // Live from the start of the log: the tail commits batch by batch, as the daemon does.
      runner.start();
      try {
        await runner.waitFor(await store.headPosition(), [projection], 60_000);
      } finally {
        await runner.stop();
      }
      expect(failures, 'projection failures').to.deep.equal([]);
      const out: Record<string, unknown[]> = {};
      for (const t of TABLES) out[t] = (await db.knex(t).select('*').orderBy('id')) as unknown[];
      return out;
    }

    it(`gives the same outbox for logs of every event type (${RUNS} logs)`, async () => {
      const applyOnly: Projection = { ...billingWebhookOutboxProjection, stage: undefined, stages: undefined };
      let compared = 0;
      await fc.assert(
        fc.asyncProperty(eventLogs(AGGREGATES, 1), async (log) => {
          const { db, store } = opened;
          await db.knex.raw('truncate es_events');
          const clock = new TestClock(START);
          let n = 0;
          for (const e of [...endpoints(), ...log]) {
            const id = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
            await store.appendToStream(e.stream, [{ id, type: e.type, data: e.data, metadata: e.metadata }], { expectedRevision: 'any', now: clock.now() });
            clock.advance(1000);
          }
          const staged = await outbox(billingWebhookOutboxProjection);
          const applied = await outbox(applyOnly);
          expect(staged).to.deep.equal(applied);
          compared += (staged.billing_webhook_messages ?? []).length;
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
      // The logs gave the endpoints messages to compare, not only empty tables.
      expect(compared).to.be.greaterThan(RUNS * 10);
      // Drawn logs hold histories no command writes (values after an erasure, a payment before its invoice), whose read
      // models other projections build differently depending on where batches end: npm test's whole-suite check
      // compares a projection of every suite's log with a rebuild, so this suite leaves no log behind.
      await opened.db.knex.raw(`truncate es_events, projection_checkpoints, ${TABLES.join(', ')}`);
    });
  });
}
