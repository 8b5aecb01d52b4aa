// Issue 30: `MaxListenersExceededWarning` ("11 abort listeners added to [AbortSignal]") at start was a listener
// leak. The shapes that showed it run here in one process, watched through process.on('warning'): two projectors
// on one database (each moving checkpoints the other then follows), a `serve` app waiting for its writes, the
// workers on their loops, and many event streams opened and closed at once.
import { expect } from 'chai';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync } from 'node:fs';
import pino from 'pino';
import { backends } from '../support/db.ts';
import { startService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { openStream } from '../support/sse.ts';
import { type App, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { pause, pausesOn } from '../../src/pause.ts';

const golf = { vrm: { plate: 'ab21 cde', location: { country: 'gb' } } };

for (const backend of backends()) {
  describe(`no listener warnings under work (${backend})`, function () {
    this.timeout(300_000);
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    before(() => process.on('warning', onWarning));
    after(() => process.off('warning', onWarning));

    it('two projectors, a serve app, the workers on their loops and streams opened and closed: no MaxListenersExceededWarning', async () => {
      // Generous waits for read models: two projectors on a busy machine (the test is about warnings, not lag).
      const svc = await startService(backend, { env: { PROJECTION_WAIT_MS: '60000' } });
      const config = loadConfig({ DATA_DIR: '/tmp/core-server-test-unused', LOG_LEVEL: 'silent', PROJECTION_WAIT_MS: '60000', OBJECT_STORE: `file:${mkdtempSync(path.join(os.tmpdir(), 'core-objects-'))}` });
      const logger = pino({ level: 'silent' });
      const others: App[] = [];
      try {
        // A second projector (two `project` processes: on PostgreSQL only, the embedded database is one process's),
        // a `serve` and a `work` process, on the same database.
        const project = backend === 'postgres' ? await createApp(config, { db: svc.db, clock: svc.clock, http: false, migrate: false, logger }) : null;
        if (project) others.push(project);
        const serve = await createApp(config, { db: svc.db, clock: svc.clock, projections: false, migrate: false, logger });
        others.push(serve);
        const work = await createApp(config, { db: svc.db, clock: svc.clock, http: false, projections: false, migrate: false, workers: true, workerIntervalMs: 20, logger });
        others.push(work);
        const serveUrl = await serve.listen(0, '127.0.0.1');

        const owners = await Promise.all(Array.from({ length: 16 }, () => svc.signUp()));
        // Writes through both HTTP apps at once: the projectors move each other's checkpoints, many times.
        const post = async (i: number, op: string, body: unknown, via = i) => {
          const res = await fetch(`${via % 2 ? serveUrl : svc.url}/api/v1/${op}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${owners[i]!.token}` }, body: JSON.stringify(body) });
          return { status: res.status, body: (await res.json()) as { id: string; code?: string } };
        };
        const customers = await Promise.all(owners.map((_, i) => post(i, ops['billing.customers.insert'].id, { name: `Busy ${i} Ltd`, email: `busy${i}@example.com`, currency: 'GBP' })));
        expect(customers.map((c) => c.status), JSON.stringify(customers.filter((c) => c.status !== 200))).to.deep.equal(owners.map(() => 200));
        for (let round = 0; round < 3; round++) {
          const updated = await Promise.all(customers.map((c, i) => post(i, ops['billing.customers.update'].id, { id: c.body.id, payment_terms_days: 14 + round }, i + round)));
          expect(updated.map((u) => u.status), JSON.stringify(updated.filter((u) => u.status !== 200))).to.deep.equal(owners.map(() => 200));
        }
        // Event streams opened and closed, a dozen at a time.
        for (let round = 0; round < 3; round++) {
          const streams = await Promise.all(owners.slice(0, 12).map((o) => openStream(svc, 'assemblies.v4.updates.stream', { vehicle: golf }, o.token)));
          expect(streams.map((s) => s.status)).to.deep.equal(streams.map(() => 200));
          for (const s of streams) s.close();
        }
        // The workers' loops have made passes (each loop waits on the same stop signal between them).
        while (work.workers.status().filter((w) => w.last_success).length < work.workers.names().length) await new Promise((r) => setTimeout(r, 20));
      } finally {
        for (const a of others.reverse()) await a.close();
        await svc.close();
      }
      const leaks = warnings.filter((w) => w.name === 'MaxListenersExceededWarning');
      expect(leaks.map((w) => w.message)).to.deep.equal([]);
    });
  });
}

describe('pause on a shared stop signal', () => {
  it('fifty loops pausing on one signal add one listener, and all wake when it aborts', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const stop = new AbortController();
      const woken: number[] = [];
      const pauses = Array.from({ length: 50 }, (_, i) => pause(600_000, stop.signal).then(() => woken.push(i)));
      expect(pausesOn(stop.signal)).to.equal(50);
      stop.abort();
      await Promise.all(pauses);
      expect(woken).to.have.length(50);
      expect(pausesOn(stop.signal)).to.equal(0);
      // Pauses that end by their own time leave nothing behind either.
      const other = new AbortController();
      await Promise.all(Array.from({ length: 50 }, () => pause(1, other.signal)));
      expect(pausesOn(other.signal)).to.equal(0);
      await pause(600_000, stop.signal); // already aborted: at once
      await new Promise((r) => setImmediate(r)); // warnings are emitted on the next turn
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).to.deep.equal([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
