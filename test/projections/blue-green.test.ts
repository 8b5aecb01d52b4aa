// A projection's new version is built beside the live one under read and write load: every read answers from a
// whole read model (the old one until the swap, the new one after), writes keep answering with their own result,
// and the swapped-in model equals a rebuild from scratch. Prints the figures (build time, reads, p99) for the note.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { platformStaff } from '../support/catalogue.ts';
import { ops } from '../support/ops.ts';
import { newId } from '../../src/ids.ts';
import type { EventData, RecordedEvent } from '../../src/eventstore/port.ts';
import { billingProductsProjection } from '../../src/projections/billing/products.ts';

/** Products in the log before the load starts (appended as copies of a real product's event). */
const SEEDED = 3000;
const READERS = 3;

type Phase = 'before' | 'restart' | 'during' | 'after';

function p99(ms: number[]): number {
  const sorted = [...ms].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
}

for (const backend of backends()) {
  describe(`blue/green projection rebuild under load (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    let user: string;
    const names = new Map<string, string>();
    before(async () => {
      svc = await startService(backend);
      staff = await platformStaff(svc);
      user = (await svc.signUp()).token;
      const first = await svc.call(ops['billing.products.insert'], { name: 'Product 0' }, staff);
      expect(first.status).to.equal(200);
      names.set(first.body.id, 'Product 0');
      // More products through the store port, as copies of the one the command wrote: a log long enough for the build to take a while.
      let created: RecordedEvent | undefined;
      for await (const e of svc.app.store.readStream(`product-${first.body.id}`)) created ??= e;
      if (!created) throw new Error('no ProductCreated event');
      const copies: { stream: string; event: EventData }[] = [];
      for (let i = 1; i < SEEDED; i++) {
        const id = newId();
        const data = JSON.parse(JSON.stringify(created.data).replaceAll(first.body.id, id).replace('"Product 0"', `"Product ${i}"`)) as unknown;
        names.set(id, `Product ${i}`);
        copies.push({ stream: `product-${id}`, event: { id: newId(), type: created.type, data, metadata: created.metadata } });
      }
      for (let i = 0; i < copies.length; i += 50) {
        await Promise.all(copies.slice(i, i + 50).map((c) => svc.app.store.appendToStream(c.stream, [c.event], { expectedRevision: 'no_stream' })));
      }
      await svc.app.runner.catchUp();
    });
    after(async () => svc?.close());

    it('a bumped version is built beside the live one while every read answers from a whole model, then equals a rebuild from scratch', async () => {
      const acked = [...names.keys()];
      const latency: Record<Phase, number[]> = { before: [], restart: [], during: [], after: [] };
      const failures: string[] = [];
      let phase: Phase = 'before';
      let stop = false;
      const timed = async <T>(fn: () => Promise<T>): Promise<T> => {
        const at = phase;
        const t0 = performance.now();
        const out = await fn();
        latency[at].push(performance.now() - t0);
        return out;
      };
      const get = async (id: string) => {
        const res = await timed(() => svc.call(ops['billing.products.get'], id, user));
        if (res.status !== 200 || res.body.name !== names.get(id)) failures.push(`get ${id} (${phase}): ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      };
      const reader = async () => {
        while (!stop) {
          // The newest acknowledged write, any acknowledged one, and a full first page: a half-built model misses them.
          const newest = acked[acked.length - 1] ?? '';
          const any = acked[Math.floor(Math.random() * acked.length)] ?? '';
          await get(newest);
          await get(any);
          const list = await timed(() => svc.call(ops['billing.products.list'], { limit: 200 }, user));
          if (list.status !== 200 || list.body.items.length !== 200) failures.push(`list (${phase}): ${list.status} ${list.body.items?.length ?? JSON.stringify(list.body).slice(0, 200)}`);
        }
      };
      let written = 0;
      let laggedInRestart = 0;
      const writer = async () => {
        while (!stop) {
          const name = `Written ${written++}`;
          const at = phase;
          const res = await svc.call(ops['billing.products.insert'], { name }, staff);
          // While the runner restarts (stopped, then preparing) nothing applies the log: a write that waits longer than
          // PROJECTION_WAIT_MS is saved and answers 503 projection_lag, as during any restart of the only projector.
          if (res.status === 503 && res.body.code === 'projection_lag' && at === 'restart') {
            laggedInRestart++;
            continue;
          }
          if (res.status !== 200) {
            failures.push(`insert (${at}): ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
            continue;
          }
          names.set(res.body.id, name);
          acked.push(res.body.id);
          // Read-your-writes: the answer came once the model that serves reads shows it.
          await get(res.body.id);
        }
      };
      const load = Promise.all([...Array.from({ length: READERS }, reader), writer()]);
      try {
        await new Promise((r) => setTimeout(r, 2000));
        // A deploy with a new version of billing.products: the stored model is the previous version's.
        phase = 'restart';
        const restarted = performance.now();
        await svc.app.runner.stop();
        await svc.app.knex('projection_checkpoints').where({ name: billingProductsProjection.name }).update({ version: billingProductsProjection.version - 1 });
        await svc.app.runner.prepare();
        phase = 'during';
        const started = performance.now();
        svc.app.runner.start();
        await svc.app.runner.builds();
        const buildMs = performance.now() - started;
        phase = 'after';
        await new Promise((r) => setTimeout(r, 1000));
        stop = true;
        await load;
        const figures = {
          backend,
          log_events: SEEDED + written,
          restart_ms: Math.round(started - restarted),
          build_ms: Math.round(buildMs),
          reads_before: latency.before.length,
          reads_during: latency.during.length,
          writes: written,
          writes_lagged_in_restart: laggedInRestart,
          reads_in_restart: latency.restart.length,
          p99_before_ms: Math.round(p99(latency.before)),
          p99_during_ms: Math.round(p99(latency.during)),
          p99_after_ms: Math.round(p99(latency.after)),
        };
        console.log(`      figures: ${JSON.stringify(figures)}`);
        expect(failures).to.deep.equal([]);
        expect(latency.during.length).to.be.greaterThan(0);
      } finally {
        stop = true;
        await load;
      }
      const row = await svc.app.knex('projection_checkpoints').where({ name: billingProductsProjection.name }).first();
      expect(row.version).to.equal(billingProductsProjection.version);
      expect(await svc.app.knex('projection_checkpoints').where({ name: `${billingProductsProjection.name}@next` }).first()).to.equal(undefined);
      // Every acknowledged product is there, and the swapped-in model is the one a rebuild from scratch makes.
      const swapped = await svc.app.knex('billing_products').select('*').orderBy('id');
      expect(swapped.map((r: { id: string }) => r.id)).to.include.members(acked);
      expect(swapped).to.have.length(acked.length + laggedInRestart);
      await svc.app.runner.rebuild([billingProductsProjection.name]);
      expect(await svc.app.knex('billing_products').select('*').orderBy('id')).to.deep.equal(swapped);
    });
  });
}
