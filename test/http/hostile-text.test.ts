// Finding 1: lone UTF-16 surrogates and NUL in any text field (values and keys) are a 400 naming the field,
// never a 500, and write nothing; error log lines never carry request or event data.
import { expect } from 'chai';
import { Writable } from 'node:stream';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { billedOrg, billingStaff, draft, openInvoice, paymentBody, type BilledOrg } from '../support/billing.ts';
import { installIntegration, integrationHeaders } from '../support/integrations.ts';
import { createLogger } from '../../src/logging.ts';
import { ops } from '../support/ops.ts';
import { grantEntitlement } from '../support/entitlements.ts';
import { VEHICLE_DATA_PRELOAD } from '../../src/commands/vehicles/preload.ts';

const HOSTILE = ['\ud800', 'tail \udfff', 'a\ud83d', '\udc00\ud800', 'nul \u0000 here'];

for (const backend of backends()) {
  describe(`ill-formed text is refused at the edge (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let staff: string;
    let acme: BilledOrg;
    const events = async () => Number((await svc.app.knex('es_events').count({ n: '*' }))[0]?.n ?? 0);
    before(async () => {
      svc = await startService(backend);
      staff = await billingStaff(svc);
      acme = await billedOrg(svc);
    });
    after(async () => svc?.close());

    it('answers 400 invalid_request with the field path on every affected core operation, and appends nothing', async () => {
      const inv = await openInvoice(svc, staff, acme.customerId, [5000]);
      const drafted = await draft(svc, staff, acme.customerId, [100]);
      const note = await svc.call(ops['billing.notes.insert'], { subject: { type: 'customer', id: acme.customerId }, body: 'hello' }, acme.token);
      const payment = await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 100), staff);
      const cnr = await svc.call(ops['billing.credit-note-requests.insert'], { invoice_id: inv.id, amount: 100, currency: 'GBP', reason: 'other', description: 'x' }, acme.token);
      expect([note.status, payment.status, cnr.status]).to.deep.equal([200, 200, 200]);
      const cases: [string, string, (s: string) => unknown, string][] = [
        ['billing.notes.insert', acme.token, (s) => ({ subject: { type: 'customer', id: acme.customerId }, body: s }), 'body'],
        ['billing.notes.update', acme.token, (s) => ({ id: note.body.id, body: s }), 'body'],
        ['billing.customers.update', acme.token, (s) => ({ id: acme.customerId, name: s }), 'name'],
        ['billing.customers.update', acme.token, (s) => ({ id: acme.customerId, metadata: { [s]: 'v' } }), `metadata.${'KEY'}`],
        ['billing.invoices.insert', staff, (s) => ({ customer_id: acme.customerId, memo: s, lines: [{ description: 'ok', unit_amount: 1 }] }), 'memo'],
        ['billing.invoices.insert', staff, (s) => ({ customer_id: acme.customerId, lines: [{ description: s, unit_amount: 1 }] }), 'lines.0.description'],
        ['billing.invoices.update', staff, (s) => ({ id: drafted.id, memo: s }), 'memo'],
        ['billing.payments.insert', staff, (s) => paymentBody(inv.id, 100, { reference: s }), 'reference'],
        ['billing.payments.update', staff, (s) => ({ id: payment.body.payment.id, reference: s, reason: 'typo' }), 'reference'],
        ['billing.credit-note-requests.insert', acme.token, (s) => ({ invoice_id: inv.id, amount: 10, currency: 'GBP', reason: 'other', description: s }), 'description'],
        ['billing.credit-note-requests.update', acme.token, (s) => ({ id: cnr.body.id, description: s }), 'description'],
      ];
      for (const [op, token, body, field] of cases) {
        for (const s of HOSTILE) {
          const before = await events();
          const res = await svc.send(op, body(s), token);
          const what = `${op} ${field} <- ${JSON.stringify(s)}: ${res.status} ${JSON.stringify(res.body)}`;
          expect(res.status, what).to.equal(400);
          expect(res.body.code, what).to.equal('invalid_request');
          expect(res.body.issues?.[0]?.path, what).to.equal(field === 'metadata.KEY' ? `metadata.${s}` : field);
          expect(await events(), `${what}: appended events`).to.equal(before);
        }
      }
    });

    it('answers 400 on jobs.insert and vehicles.preload, and the refused external id is still free afterwards', async () => {
      const owner = await svc.signUp();
      const repairer = await installIntegration(svc, { token: owner.token, scopes: ['repairer'] });
      const supplier = await installIntegration(svc, { token: owner.token, scopes: ['supplier'] });
      await grantEntitlement(svc, owner.orgId, VEHICLE_DATA_PRELOAD);
      const vehicle = { identifier: { vrm: { plate: 'AB12CDE', location: { country: 'GB' } } } };
      for (const s of HOSTILE) {
        const before = await events();
        const job = await svc.callIntegration(ops['jobs.insert'], { identity: { external: { value: `EXT-${s}` } }, if_: { exists: 'update' }, data: { repairer_site_id: owner.siteId, vehicle } }, integrationHeaders(repairer));
        expect(job.status, JSON.stringify(job.body)).to.equal(400);
        expect(job.body.issues?.[0]?.path).to.equal('identity.external.value');
        const claim = await svc.callIntegration(ops['jobs.insert'], { identity: { external: { value: 'EXT-OK' } }, if_: { exists: 'update' }, data: { repairer_site_id: owner.siteId, vehicle, claim_number: { value: s } } }, integrationHeaders(repairer));
        expect(claim.status, JSON.stringify(claim.body)).to.equal(400);
        expect(claim.body.issues?.[0]?.path).to.equal('data.claim_number.value');
        const preload = await svc.callIntegration(ops['vehicles.preload'], { identifiers: [{ chassis_number: s }] }, integrationHeaders(supplier));
        expect(preload.status, JSON.stringify(preload.body)).to.equal(400);
        expect(preload.body.issues?.[0]?.path).to.equal('identifiers.0.chassis_number');
        expect(await events()).to.equal(before);
      }
      // Nothing was half made: the external id used in the refused requests can be created whole.
      const ok = await svc.callIntegration(ops['jobs.insert'], { identity: { external: { value: 'EXT-OK' } }, if_: { exists: 'update' }, data: { repairer_site_id: owner.siteId, vehicle } }, integrationHeaders(repairer));
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
      expect((await svc.callIntegration(ops['jobs.get'], { identity: { external: { value: 'EXT-OK' } } }, integrationHeaders(repairer))).body.id).to.equal(ok.body.id);
    });

    it('accepts well-formed text outside the BMP (surrogate pairs)', async () => {
      const res = await svc.call(ops['billing.notes.insert'], { subject: { type: 'customer', id: acme.customerId }, body: 'emoji \ud83d\ude97 ok' }, acme.token);
      expect(res.status).to.equal(200);
      expect(res.body.body).to.equal('emoji \ud83d\ude97 ok');
    });

    it('logs a failed database statement without the values it carried', async () => {
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      });
      const logger = createLogger('error', sink);
      const secret = 'Customer Secret Street 42';
      const err = await svc.app.knex
        .raw('select ?::int as n, ?::jsonb as j', [secret, `{"body":"${secret}"`])
        .then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(Error);
      logger.error({ err, operation: 'test' }, 'operation failed');
      await new Promise((r) => setImmediate(r));
      expect(lines).to.have.length(1);
      expect(lines[0]).to.not.contain('Secret Street');
      expect(JSON.parse(lines[0] ?? '{}').err.code).to.match(/^[0-9A-Z]{5}$/);
    });
  });
}
