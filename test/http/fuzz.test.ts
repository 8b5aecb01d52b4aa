// Fuzzing every operation of both API surfaces (generated from the registry): malformed and hostile values
// in every field never give a 5xx, every 4xx has the error body, and a 4xx appends no event.
import { expect } from 'chai';
import fc from 'fast-check';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { billedOrg, billingStaff, openInvoice, paymentBody } from '../support/billing.ts';
import { installIntegration, integrationHeaders } from '../support/integrations.ts';
import { requestBodies } from '../support/fuzz.ts';
import { createSession } from '../../src/commands/identity/identity.ts';
import type { Operation } from '../../src/api/operation.ts';
import { ops } from '../support/ops.ts';

/** Cases per operation; the seed makes a failure reproducible. */
const CASES = Number(process.env.FUZZ_CASES ?? 30);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);

for (const backend of backends()) {
  describe(`fuzzing every operation (${backend})`, function () {
    this.timeout(600_000);
    let svc: TestService;
    before(async () => {
      svc = await startService(backend);
    });
    after(async () => svc?.close());

    it(`answers ${CASES} generated bodies per operation with a 200 or a 4xx error body, never a 5xx; a 4xx appends nothing`, async () => {
      const staffUser = await svc.signUp({ kind: 'platform', role: 'owner', staff: ['billing_staff'] });
      const staff = await billingStaff(svc);
      const acme = await billedOrg(svc);
      const inv = await openInvoice(svc, staff, acme.customerId, [5000]);
      const pay = await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 100), staff);
      const note = await svc.call(ops['billing.notes.insert'], { subject: { type: 'customer', id: acme.customerId }, body: 'n' }, acme.token);
      const owner = await svc.signUp();
      let integration = await installIntegration(svc, { token: owner.token, scopes: ['repairer', 'supplier'] });
      const ids = [acme.customerId, inv.id, pay.body.payment.id, String(note.body.id), acme.orgId, owner.siteId, integration.integrationId];
      const events = async () => Number((await svc.app.knex('es_events').count({ n: '*' }))[0]?.n ?? 0);

      const registered: Operation[] = [...svc.app.registry.list('core'), ...svc.app.registry.list('integrations')];
      expect(registered.length).to.be.greaterThan(30);
      const table: Record<string, Record<number, number>> = {};
      const failures: string[] = [];
      for (const [i, op] of registered.entries()) {
        const bodies = fc.sample(requestBodies(op.request, ids), { seed: SEED + i, numRuns: CASES });
        const counts: Record<number, number> = {};
        for (const body of bodies) {
          const before = await events();
          let res;
          if (op.surface === 'core') {
            // A fresh session each time: auth.sessions.remove may end it.
            const s = await createSession(svc.app.knex, { userId: staffUser.userId, organizationId: staffUser.orgId, now: svc.clock.now(), ttlHours: 1 });
            res = await svc.send(op.id, body, s.token);
          } else {
            res = await svc.send(op.id, body, null, integrationHeaders(integration), 'integrations');
          }
          counts[res.status] = (counts[res.status] ?? 0) + 1;
          const what = `${op.id} <- ${JSON.stringify(body)?.slice(0, 200)} -> ${res.status} ${JSON.stringify(res.body)?.slice(0, 200)}`;
          if (res.status !== 200 && !(res.status >= 400 && res.status < 500)) failures.push(what);
          else if (res.status !== 200) {
            if (typeof res.body?.code !== 'string' || typeof res.body?.type !== 'string' || res.body?.request_id !== res.headers.get('x-request-id')) failures.push(`no error body: ${what}`);
            if ((await events()) !== before) failures.push(`4xx appended events: ${what}`);
          }
          // An uninstall by the fuzzer: install again so the rest of the run has a key.
          if (op.id === 'integrations.remove' && res.status === 200) integration = await installIntegration(svc, { token: owner.token, scopes: ['repairer', 'supplier'] });
        }
        table[op.id] = counts;
      }
      const statuses = [...new Set(Object.values(table).flatMap((c) => Object.keys(c)))].sort();
      console.log(`      fuzz (${backend}, seed ${SEED}, ${CASES} cases per operation):`);
      console.log(`      ${'operation'.padEnd(40)} ${statuses.map((s) => s.padStart(5)).join('')}`);
      for (const [id, c] of Object.entries(table)) console.log(`      ${id.padEnd(40)} ${statuses.map((s) => String(c[Number(s)] ?? '').padStart(5)).join('')}`);
      expect(failures, failures.slice(0, 10).join('\n')).to.deep.equal([]);
    });
  });
}
