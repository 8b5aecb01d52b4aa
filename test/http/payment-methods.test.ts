// billing.payment-method-setups.* and billing.payment-methods.* over HTTP, with the sandbox provider's hosted page and signed notifications.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { WebClient } from '../support/web.ts';
import { systemContext } from '../support/system.ts';
import { createSession, createUser } from '../../src/commands/identity/identity.ts';
import { identityProjection } from '../../src/projections/identity/identity.ts';
import { TEST_CARDS, SANDBOX_SIGNATURE_HEADER, SANDBOX_WEBHOOK_PATH } from '../../src/payments/sandbox.ts';
import { signPayload } from '../../src/payments/signature.ts';

type SignUp = Awaited<ReturnType<TestService['signUp']>>;

for (const backend of backends()) {
  describe(`billing payment methods over HTTP (${backend})`, () => {
    let svc: TestService;
    let owner: SignUp;
    let staff: SignUp;
    let member: string;
    let customerId: string;
    const returnUrl = () => `${svc.url}/billing/return`;
    const streamTypes = async (id: string) => (await svc.app.knex('es_events').where({ stream_id: `paymentprofile-${id}` }).orderBy('revision').select('type')).map((r: { type: string }) => r.type);
    const start = async (token = owner.token, customer = customerId) => {
      const res = await svc.call(ops['billing.payment-method-setups.insert'], { customer_id: customer, return_url: returnUrl() }, token);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body;
    };
    const pageOf = (url: string) => new URL(url).pathname;
    const enterCard = async (url: string, number: string) => new WebClient(svc.url).post(pageOf(url), { number, expiry: '12/30', cvc: '123' });
    const redirectUrl = (next: unknown): string => {
      if (!next || typeof next !== 'object' || !('type' in next) || next.type !== 'redirect' || !('url' in next) || typeof next.url !== 'string') throw new Error('expected a redirect');
      return next.url;
    };
    const deliver = async (body: string, signature: string) =>
      fetch(`${svc.url}${SANDBOX_WEBHOOK_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signature }, body });

    before(async () => {
      svc = await startService(backend, { selfUrl: true });
      owner = await svc.signUp();
      staff = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
      const c = await svc.call(ops['billing.customers.insert'], { name: 'Acme Ltd', email: 'ap@acme.example', currency: 'GBP' }, owner.token);
      customerId = c.body.id;
      const u = await createUser(systemContext(svc.app), { email: 'pm-member@acme.example', password: 'correct horse battery', organizationId: owner.orgId, role: 'member' });
      await svc.app.runner.waitFor(u.position, [identityProjection], 10_000);
      member = (await createSession(svc.app.knex, { userId: u.id, organizationId: owner.orgId, now: svc.clock.now(), ttlHours: 24 })).token;
    });
    after(async () => svc?.close());

    it('starts a setup: requires_action with a redirect to the sandbox page; get answers the same', async () => {
      const setup = await start();
      expect(setup).to.include({ customer_id: customerId, type: 'card', status: 'requires_action', payment_method_id: null, failure: null });
      expect(setup.next_action).to.deep.include({ type: 'redirect', return_url: returnUrl() });
      expect(redirectUrl(setup.next_action)).to.match(new RegExp(`^${svc.url}/sandbox/setup/seti_sbx_[0-9a-f]{32}$`));
      const got = await svc.call(ops['billing.payment-method-setups.get'], { id: setup.id }, owner.token);
      expect(got.body).to.deep.equal(setup);
      const list = await svc.call(ops['billing.payment-methods.list'], { customer_id: customerId }, member);
      expect(list.body.resumable_setup?.id).to.equal(setup.id);
    });

    it('the succeeding card: the page returns the payer, get says succeeded, list shows brand/last4 with automatic collection on', async () => {
      const setup = await start();
      const page = await enterCard(redirectUrl(setup.next_action), TEST_CARDS.succeeds);
      expect(page.status).to.equal(303);
      expect(page.location).to.equal(returnUrl());
      // The notification already did it (list does not resume).
      expect((await svc.call(ops['billing.payment-methods.list'], { customer_id: customerId }, owner.token)).body.items).to.have.length(1);
      const got = await svc.call(ops['billing.payment-method-setups.get'], { id: setup.id }, owner.token);
      expect(got.body).to.include({ status: 'succeeded', next_action: null });
      const list = await svc.call(ops['billing.payment-methods.list'], { customer_id: customerId }, owner.token);
      expect(list.body.items).to.have.length(1);
      expect(list.body.items[0]).to.include({ id: got.body.payment_method_id, type: 'card', brand: 'visa', last4: '4242', is_default: true });
      expect(JSON.stringify(list.body)).not.to.include(TEST_CARDS.succeeds);
      expect(list.body.collection).to.deep.equal({ auto_collection: true, default_payment_method_id: got.body.payment_method_id });
      expect(list.body.resumable_setup?.status).to.equal('requires_action');
      expect(await streamTypes(customerId)).to.include.members(['PaymentMethodSetupProcessing', 'PaymentMethodSetupSucceeded', 'CollectionProfileChanged']);
    });

    it('the declined card: failed with card_declined and no method', async () => {
      const before = (await svc.call(ops['billing.payment-methods.list'], { customer_id: customerId }, owner.token)).body.items.length;
      const setup = await start();
      await enterCard(redirectUrl(setup.next_action), TEST_CARDS.declined);
      const got = await svc.call(ops['billing.payment-method-setups.get'], { id: setup.id }, owner.token);
      expect(got.body).to.include({ status: 'failed', payment_method_id: null });
      expect(got.body.failure?.code).to.equal('card_declined');
      expect((await svc.call(ops['billing.payment-methods.list'], { customer_id: customerId }, owner.token)).body.items).to.have.length(before);
    });

    it('the extra-step card stays requires_action until the payer authenticates', async () => {
      const setup = await start();
      const url = redirectUrl(setup.next_action);
      const web = new WebClient(svc.url);
      const first = await web.post(pageOf(url), { number: TEST_CARDS.requiresAction });
      expect(first.location).to.equal(pageOf(url));
      expect((await web.get(pageOf(url))).html).to.include('Complete authentication');
      expect((await svc.call(ops['billing.payment-method-setups.get'], { id: setup.id }, owner.token)).body.status).to.equal('requires_action');
      const done = await web.post(`${pageOf(url)}/authenticate`, { result: 'pass' });
      expect(done.location).to.equal(returnUrl());
      const got = await svc.call(ops['billing.payment-method-setups.get'], { id: setup.id }, owner.token);
      expect(got.body.status).to.equal('succeeded');
    });

    it('a forged, stale or tampered notification changes nothing, nor does a signed one the provider\'s record contradicts', async () => {
      const setup = await start();
      const ref = pageOf(redirectUrl(setup.next_action)).split('/').pop();
      const secret = svc.app.config.sandboxWebhookSecret;
      const owned = { setup_id: setup.id, customer_id: customerId, organization_id: owner.orgId };
      const method = { type: 'card', provider_ref: `pm_sbx_${ref}_4242`, brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, bank_name: null, mandate_reference: null };
      const succeeded = JSON.stringify({ id: 'evt_forged_1', type: 'setup.updated', setup: { ref, status: 'succeeded', next_action: null, method, failure: null, owner: owned } });
      const before = await streamTypes(customerId);
      const forged = await deliver(succeeded, signPayload('not-the-secret-at-all', succeeded, svc.clock.now()));
      expect(forged.status).to.equal(400);
      const stale = await deliver(succeeded, signPayload(secret, succeeded, new Date(svc.clock.now().getTime() - 10 * 60_000)));
      expect(stale.status).to.equal(400);
      const tampered = await deliver(succeeded.replace('4242', '1111'), signPayload(secret, succeeded, svc.clock.now()));
      expect(tampered.status).to.equal(400);
      const unsigned = await fetch(`${svc.url}${SANDBOX_WEBHOOK_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: succeeded });
      expect(unsigned.status).to.equal(400);
      expect(await streamTypes(customerId)).to.deep.equal(before);
      expect((await svc.call(ops['billing.payment-method-setups.get'], { id: setup.id }, owner.token)).body.status).to.equal('requires_action');
      // Signed, but the provider's record (requires_action) says otherwise: a hint, accepted, and the record (no change) applied.
      const processing = JSON.stringify({ id: 'evt_sbx_contradicted', type: 'setup.updated', setup: { ref, status: 'processing', next_action: null, method: null, failure: null, owner: owned } });
      expect((await deliver(processing, signPayload(secret, processing, svc.clock.now()))).status).to.equal(200);
      expect(await streamTypes(customerId)).to.deep.equal(before);
    });

    it('a bank debit mandate: confirmed on the sandbox page, listed with bank, last digits and mandate reference', async () => {
      const o = await svc.signUp();
      const c = await svc.call(ops['billing.customers.insert'], { name: 'Mandate Ltd', email: 'ap@mandate.example', currency: 'GBP' }, o.token);
      const setup = await svc.call(ops['billing.payment-method-setups.insert'], { customer_id: c.body.id, type: 'bank_debit', return_url: returnUrl() }, o.token);
      expect(setup.body).to.include({ type: 'bank_debit', status: 'requires_action' });
      const url = pageOf(redirectUrl(setup.body.next_action));
      const web = new WebClient(svc.url);
      expect((await web.get(url)).html).to.include('Confirm the mandate');
      expect((await web.post(`${url}/mandate`, {})).location).to.equal(returnUrl());
      expect((await svc.call(ops['billing.payment-method-setups.get'], { id: setup.body.id }, o.token)).body.status).to.equal('succeeded');
      const list = await svc.call(ops['billing.payment-methods.list'], { customer_id: c.body.id }, o.token);
      expect(list.body.items[0]).to.include({ type: 'bank_debit', bank_name: 'Sandbox Bank', last4: '6789', brand: null });
      expect(list.body.mandate?.reference).to.match(/^MD-/);
      expect(list.body.collection.auto_collection).to.equal(true);
    });

    it('access: plain members list but neither add nor remove; another organization gets 404; billing staff may add for any', async () => {
      const other = await svc.signUp();
      expect((await svc.call(ops['billing.payment-methods.list'], { customer_id: customerId }, member)).status).to.equal(200);
      expect((await svc.call(ops['billing.payment-method-setups.insert'], { customer_id: customerId, return_url: returnUrl() }, member)).status).to.equal(403);
      expect((await svc.call(ops['billing.payment-methods.remove'], { customer_id: customerId, id: 'pm_x' }, member)).status).to.equal(403);
      const foreign = await svc.call(ops['billing.payment-method-setups.insert'], { customer_id: customerId, return_url: returnUrl() }, other.token);
      expect(foreign.status).to.equal(404);
      expect(foreign.body.code).to.equal('customer_not_found');
      expect((await svc.call(ops['billing.payment-methods.list'], { customer_id: customerId }, other.token)).status).to.equal(404);
      const mine = await start();
      const hidden = await svc.call(ops['billing.payment-method-setups.get'], { id: mine.id }, other.token);
      expect(hidden.status).to.equal(404);
      expect(hidden.body.code).to.equal('setup_not_found');
      const byStaff = await start(staff.token);
      expect(byStaff.status).to.equal('requires_action');
    });

    it('bad input is 4xx and writes nothing: unknown customer, unknown setup, bad return_url, unknown fields', async () => {
      const before = await streamTypes(customerId);
      const unknown = await svc.call(ops['billing.payment-method-setups.insert'], { customer_id: '00000000-0000-4000-8000-000000000000', return_url: returnUrl() }, staff.token);
      expect(unknown.status).to.equal(404);
      expect((await svc.call(ops['billing.payment-method-setups.get'], { id: '00000000-0000-4000-8000-000000000000' }, owner.token)).body.code).to.equal('setup_not_found');
      const bad = await svc.send('billing.payment-method-setups.insert', { customer_id: customerId, return_url: 'javascript:alert(1)' }, owner.token);
      expect(bad.status).to.equal(400);
      const extra = await svc.send('billing.payment-method-setups.insert', { customer_id: customerId, return_url: returnUrl(), number: TEST_CARDS.succeeds }, owner.token);
      expect(extra.status).to.equal(400);
      expect(await streamTypes(customerId)).to.deep.equal(before);
    });

    it('removing the default method turns automatic collection off (an event); removing it twice is 404 with nothing written', async () => {
      const o = await svc.signUp();
      const c = await svc.call(ops['billing.customers.insert'], { name: 'Remover Ltd', email: 'ap@remover.example', currency: 'GBP' }, o.token);
      const first = await start(o.token, c.body.id);
      await enterCard(redirectUrl(first.next_action), TEST_CARDS.succeeds);
      const second = await start(o.token, c.body.id);
      await enterCard(redirectUrl(second.next_action), TEST_CARDS.succeeds);
      const listed = await svc.call(ops['billing.payment-methods.list'], { customer_id: c.body.id }, o.token);
      expect(listed.body.items).to.have.length(2);
      const def = listed.body.collection.default_payment_method_id;
      expect(def).to.be.a('string');
      const removed = await svc.call(ops['billing.payment-methods.remove'], { customer_id: c.body.id, id: def ?? '' }, o.token);
      expect(removed.status).to.equal(200);
      const after = await svc.call(ops['billing.payment-methods.list'], { customer_id: c.body.id }, o.token);
      expect(after.body.items).to.have.length(1);
      expect(after.body.collection).to.deep.equal({ auto_collection: false, default_payment_method_id: null });
      const types = await streamTypes(c.body.id);
      expect(types.slice(-2)).to.deep.equal(['PaymentMethodRemoved', 'CollectionProfileChanged']);
      const twice = await svc.call(ops['billing.payment-methods.remove'], { customer_id: c.body.id, id: def ?? '' }, o.token);
      expect(twice.status).to.equal(404);
      expect(twice.body.code).to.equal('payment_method_not_found');
      expect(await streamTypes(c.body.id)).to.deep.equal(types);
      const last = after.body.items[0]?.id ?? '';
      expect((await svc.call(ops['billing.payment-methods.remove'], { customer_id: c.body.id, id: last }, o.token)).status).to.equal(200);
      expect((await svc.call(ops['billing.payment-methods.list'], { customer_id: c.body.id }, o.token)).body.items).to.deep.equal([]);
    });
  });

  describe(`billing payment-method setups resume when notifications are lost (${backend})`, () => {
    let svc: TestService;
    // The provider cannot reach the service: notifications go to a closed port, so only get's resume moves the setup.
    before(async () => { svc = await startService(backend, { env: { BASE_URL: 'http://127.0.0.1:9' } }); });
    after(async () => svc?.close());

    it('get asks the provider and records the outcome once; repeating get appends nothing', async () => {
      const owner = await svc.signUp();
      const c = await svc.call(ops['billing.customers.insert'], { name: 'Lost Ltd', email: 'ap@lost.example', currency: 'GBP' }, owner.token);
      const setup = await svc.call(ops['billing.payment-method-setups.insert'], { customer_id: c.body.id, return_url: 'https://app.example/return' }, owner.token);
      const next = setup.body.next_action;
      if (next?.type !== 'redirect') throw new Error('expected a redirect');
      const page = await new WebClient(svc.url).post(new URL(next.url).pathname, { number: TEST_CARDS.succeeds });
      expect(page.location).to.equal('https://app.example/return');
      expect((await svc.call(ops['billing.payment-methods.list'], { customer_id: c.body.id }, owner.token)).body.items).to.have.length(0);
      const got = await svc.call(ops['billing.payment-method-setups.get'], { id: setup.body.id }, owner.token);
      expect(got.body.status).to.equal('succeeded');
      const types = async () => (await svc.app.knex('es_events').where({ stream_id: `paymentprofile-${c.body.id}` }).count<{ n: string }[]>({ n: '*' }))[0]?.n;
      const n = await types();
      expect((await svc.call(ops['billing.payment-method-setups.get'], { id: setup.body.id }, owner.token)).body).to.deep.equal(got.body);
      expect(await types()).to.equal(n);
      expect((await svc.call(ops['billing.payment-methods.list'], { customer_id: c.body.id }, owner.token)).body.collection.auto_collection).to.equal(true);
    });
  });
}
