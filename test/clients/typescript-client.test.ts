// The typed client in clients/typescript (openapi-typescript + openapi-fetch) is in step with the documents, and drives a
// billing flow and the subscribe stream against the real service, as an integrating engineer would.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { coreClient, sseEvents, type CoreComponents } from '../../clients/typescript/index.ts';
import { CLIENT_DIR, generatedModules } from '../../clients/typescript/generate.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { billingStaff } from '../support/billing.ts';
import { runLookupPass } from '../../src/workers/assemblies/lookups.ts';

describe('typed client: in step with the OpenAPI documents', function () {
  this.timeout(300_000);
  it('regenerates to exactly the checked-in modules (run `npm run client` after changing an operation)', async () => {
    const modules = await generatedModules();
    expect(Object.keys(modules).sort()).to.deep.equal(['core.ts', 'integrations.ts']);
    for (const [file, text] of Object.entries(modules)) {
      const checkedIn = fs.readFileSync(path.join(CLIENT_DIR, file), 'utf8');
      expect(checkedIn === text, `clients/typescript/${file} is stale: run npm run client`).to.equal(true);
    }
  });
});

const golf = { vrm: { plate: 'AB21CDE', location: { country: 'GB' } } };

for (const backend of backends()) {
  describe(`typed client against the service (${backend})`, function () {
    this.timeout(180_000);
    let svc: TestService;
    before(async () => {
      svc = await startService(backend, { env: { VEHICLE_DATA_TREE_DELAY_MS: '1000' } });
    });
    after(async () => svc?.close());

    it('creates a customer, drafts, finalizes and pays an invoice; errors arrive typed with their code', async () => {
      const org = await svc.signUp();
      const client = coreClient(svc.url, { token: org.token });
      const staff = coreClient(svc.url, { token: await billingStaff(svc) });
      // The README's body: payment_terms_days and metadata have defaults, so the client lets them be left out.
      const customer = await client.POST('/billing.customers.insert', { body: { name: 'Acme Repairs Ltd', email: 'ap@acme.example', currency: 'GBP' }, headers: { 'Idempotency-Key': 'client-test-customer' } });
      expect(customer.response.status, JSON.stringify(customer.error)).to.equal(200);
      const customerId = customer.data?.id ?? '';
      expect(customer.data?.payment_terms_days).to.equal(30);
      const draft = await staff.POST('/billing.invoices.insert', { body: { customer_id: customerId, lines: [{ description: 'Platform fee', unit_amount: 12_000 }] } });
      expect(draft.data?.status, JSON.stringify(draft.error)).to.equal('draft');
      const invoiceId = draft.data?.id ?? '';
      const open = await staff.POST('/billing.invoices.update', { body: { id: invoiceId, action: 'finalize' } });
      expect(open.data?.status, JSON.stringify(open.error)).to.equal('open');
      expect(open.data?.total).to.equal(12_000);
      const paid = await staff.POST('/billing.payments.insert', {
        body: { invoice_id: invoiceId, amount: 12_000, currency: 'GBP', method: 'bank_transfer', reference: 'BACS 4411', received_on: svc.clock.now().toISOString().slice(0, 10) },
      });
      expect(paid.response.status, JSON.stringify(paid.error)).to.equal(200);
      const got = await client.POST('/billing.invoices.get', { body: invoiceId });
      expect(got.data).to.include({ status: 'paid', amount_remaining: 0 });
      // An error is the operation's error body: its code is one of the documented ones.
      const missing = await client.POST('/billing.invoices.get', { body: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329' });
      const error: CoreComponents['schemas']['billing.InvoiceGetError'] | undefined = missing.error;
      expect([missing.response.status, error?.type, error?.code]).to.deep.equal([404, 'billing.InvoiceGetError', 'invoice_not_found']);
      expect(missing.response.headers.get('x-request-id')).to.equal(error?.request_id);
    });

    it('follows the subscribe stream: a completed search arrives as a typed search_completed event', async () => {
      const org = await svc.signUp();
      const client = coreClient(svc.url, { token: org.token });
      // The vehicle's tree is made ready first, so a search completes. As an integrator would, wait for the vehicle's
      // `changed` (sent once searches read the tree) rather than searching straight after the worker's pass.
      await client.POST('/assemblies.v4.search', { body: { vehicle: golf } });
      svc.clock.advance(1_000);
      await runLookupPass(svc.app);
      const watch = new AbortController();
      const updates = await client.POST('/assemblies.v4.updates.stream', { body: { vehicle: golf }, parseAs: 'stream', signal: watch.signal });
      expect(updates.response.status).to.equal(200);
      const changed = (await sseEvents<CoreComponents['schemas']['tier1.AssembliesUpdate']>(updates.data ?? new ReadableStream()).next()).value;
      watch.abort();
      expect(changed?.data).to.include({ type: 'changed', status: 'tree_ready' });
      const abort = new AbortController();
      const stream = await client.POST('/assemblies.subscribe.stream', { body: {}, parseAs: 'stream', signal: abort.signal });
      expect(stream.response.status).to.equal(200);
      expect(stream.response.headers.get('content-type')).to.contain('text/event-stream');
      const search = await client.POST('/assemblies.v4.search', { body: { vehicle: golf, hca_ids: ['01.01'] } });
      expect(search.data?.in_progress, JSON.stringify(search.error)).to.equal(false);
      const events = sseEvents<CoreComponents['schemas']['tier1.AssemblySubscribeEvent']>(stream.data ?? new ReadableStream());
      const first = (await events.next()).value;
      abort.abort();
      expect(first?.event).to.equal('search_completed');
      expect(first?.data).to.deep.include({ hca_ids: ['01.01'], result_count: 11 });
      expect(first?.id).to.equal(first?.data.resume_point);
    });
  });
}
