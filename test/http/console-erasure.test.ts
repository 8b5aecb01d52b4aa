// The customer page's "Erase personal data" (issue 32) over plain HTTP: the danger zone asks the legal basis, a reason and a
// ticked box, checked by the server (without any of them nothing is erased and the form comes back as typed); with them
// billing.customers.erase runs through invoke as the signed-in clerk, and the page then says what happened.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { WebClient, hiddenFields, logIn } from '../support/web.ts';
import { ops } from '../support/ops.ts';

const PASSWORD = 'correct horse battery';

for (const backend of backends()) {
  describe(`console: erase a customer's personal data (${backend})`, () => {
    let svc: TestService;
    let staff: WebClient;
    let staffToken: string;
    let staffId: string;
    let customerId: string;
    before(async () => {
      svc = await startService(backend);
      const s = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
      staffToken = s.token;
      staffId = s.userId;
      const owner = await svc.signUp();
      const c = await svc.call(ops['billing.customers.insert'], { name: 'Erin Example Ltd', email: 'erin@console-erase.example', currency: 'GBP' }, owner.token);
      customerId = c.body.id;
      staff = new WebClient(svc.url);
      await logIn(staff, s.email, PASSWORD);
    });
    after(async () => svc?.close());

    const action = () => `/console/customers/${customerId}/erase`;

    it('shows the action in the danger zone, with the legal bases, a reason and the confirmation box', async () => {
      const page = await staff.get(`/console/customers/${customerId}`);
      expect(page.status).to.equal(200);
      const zone = page.html.slice(page.html.indexOf('id="danger"'));
      expect(zone).to.contain(`action="${action()}"`).and.contain('Erase personal data');
      expect(zone).to.contain('name="legal_basis"').and.contain('Consent withdrawn (Art. 17(1)(b))');
      expect(zone).to.contain('name="reason"').and.contain('type="checkbox" id="erase-confirm" name="confirm" value="yes" required');
    });

    it('erases nothing without the ticked box, a reason or a legal basis, and fills the form again as typed', async () => {
      const page = await staff.get(`/console/customers/${customerId}`);
      const fields = hiddenFields(page.html, action());
      const unticked = await staff.post(action(), { ...fields, legal_basis: 'consent_withdrawn', reason: 'Ticket 300' });
      expect(unticked.status).to.equal(400);
      expect(unticked.html).to.contain('Tick the box to confirm').and.contain('value="Ticket 300"');
      expect(unticked.html).to.contain('<option value="consent_withdrawn" selected>');
      const noReason = await staff.post(action(), { ...fields, legal_basis: 'consent_withdrawn', confirm: 'yes' });
      expect(noReason.status).to.equal(400);
      expect(noReason.html).to.contain('Say why');
      const noBasis = await staff.post(action(), { ...fields, reason: 'Ticket 300', confirm: 'yes' });
      expect(noBasis.status).to.equal(400);
      expect(noBasis.html).to.contain('Choose the legal basis');
      // A basis the API does not know comes back refused by the operation's validation.
      const bogus = await staff.post(action(), { ...fields, legal_basis: 'because', reason: 'Ticket 300', confirm: 'yes' });
      expect(bogus.status).to.equal(400);
      expect((await svc.call(ops['billing.customers.get'], { id: customerId }, staffToken)).body.email).to.equal('erin@console-erase.example');
    });

    it('erases through billing.customers.erase as the clerk with a ticked box, once however often the form is sent', async () => {
      const page = await staff.get(`/console/customers/${customerId}`);
      const form = { ...hiddenFields(page.html, action()), legal_basis: 'consent_withdrawn', reason: 'Ticket 301: asked by phone', confirm: 'yes' };
      const ok = await staff.post(action(), form);
      expect(ok.status).to.equal(303);
      expect(ok.location).to.equal(`/console/customers/${customerId}?done=customer_erased`);
      // A double click: the same answer, one erasure.
      expect((await staff.post(action(), form)).status).to.equal(303);
      const after = await staff.follow(ok);
      expect(after.html).to.contain('Personal data erased.').and.not.contain('erin@console-erase.example');
      expect(after.html).to.contain('personal data was erased').and.not.contain(`action="${action()}"`);
      const h = await svc.call(ops['billing.history.get'], { subject: { type: 'customer', id: customerId } }, staffToken);
      const erasures = h.body.items.filter((i) => i.type === 'DataSubjectErased');
      expect(erasures).to.have.length(1);
      expect(erasures[0]?.actor).to.deep.include({ type: 'staff', id: staffId });
      expect(erasures[0]?.data).to.deep.include({ legal_basis: 'consent_withdrawn', reason: 'Ticket 301: asked by phone' });
      const history = await staff.get(`/console/history?type=customer&id=${customerId}`);
      expect(history.html).to.contain('Personal data erased (legal basis: consent withdrawn; reason: Ticket 301: asked by phone)');
    });
  });
}
