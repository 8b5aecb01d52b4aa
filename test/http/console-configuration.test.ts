// The console's configuration page over HTTP: relationships with claims and decisions (a reason each), revisions on the
// timeline, a new revision from the form, resolve and preview answers, and the relationship's history.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { WebClient, hiddenFields, logIn } from '../support/web.ts';
import { type ConfiguredSeller, buyer, configuredSeller, pricing, relate } from '../support/configuration.ts';
import { ops } from '../support/ops.ts';

for (const backend of backends()) {
  describe(`billing console: configuration (${backend})`, () => {
    let svc: TestService;
    let web: WebClient;
    let c: ConfiguredSeller;
    before(async () => {
      svc = await startService(backend);
      c = await configuredSeller(svc);
      const clerk = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
      web = new WebClient(svc.url);
      await logIn(web, clerk.email, 'correct horse battery');
    });
    after(async () => svc?.close());

    it('shows relationships and the revision timeline, records a decision and a baseline with their reasons, and answers resolve and preview', async () => {
      const buyerId = await buyer(svc);
      const rel = await relate(svc, c, buyerId);
      const claimed = await svc.call(ops['billing.configuration.relationships.update'], { id: rel.id, action: 'claim_pre_existing', reason: 'Trading since 2019' }, c.billingStaff);
      expect(claimed.status, JSON.stringify(claimed.body)).to.equal(200);
      await pricing(svc, c);
      const url = `/console/configuration?subscription_id=${c.subscriptionId}`;
      const page = await web.get(url);
      expect(page.status).to.equal(200);
      expect(page.html).to.contain(buyerId).and.to.contain('Trading since 2019').and.to.contain('launch pricing');

      // Accepting needs committed evidence: the API's refusal is shown; rejecting with a reason is recorded.
      const accept = `/console/configuration/${c.subscriptionId}/relationships/${rel.id}/accept_claim`;
      const refused = await web.post(accept, { ...hiddenFields(page.html, accept), reason: 'Looks right' });
      expect(refused.status).to.equal(409);
      expect(refused.html).to.contain('evidence_required');
      const reject = `/console/configuration/${c.subscriptionId}/relationships/${rel.id}/reject_claim`;
      const fresh = await web.get(url);
      expect((await web.post(reject, { ...hiddenFields(fresh.html, reject), reason: ' ' })).status).to.equal(400);
      const rejected = await web.post(reject, { ...hiddenFields(fresh.html, reject), reason: 'No contract on file' });
      expect(rejected.status).to.equal(303);
      const list = await svc.call(ops['billing.configuration.relationships.list'], { subscription_id: c.subscriptionId }, c.billingStaff);
      expect(list.body[0]?.claim_status).to.equal('rejected');
      const h = await svc.call(ops['billing.history.get'], { subject: { type: 'relationship', id: rel.id } }, c.billingStaff);
      expect(h.body.items.map((e) => e.type)).to.deep.equal(['RelationshipRegistered', 'RelationshipClaimed', 'RelationshipClaimDecided']);
      expect(h.body.items[2]?.reason).to.equal('No contract on file');

      // A baseline from the form lands on the timeline with its reason.
      const base = `/console/configuration/${c.subscriptionId}/baselines`;
      const page2 = await web.get(url);
      const saved = await web.post(base, { ...hiddenFields(page2.html, base), effective_from: '2026-02-01', effective_to: '', currency: 'GBP', monthly_exempt_amount: '50000', supersedes: '', reason: 'Agreed in the Q1 review' });
      expect(saved.status, saved.html.slice(0, 500)).to.equal(303);
      const page3 = await web.get(url);
      expect(page3.html).to.contain('Agreed in the Q1 review').and.to.contain('£500.00 a month');
      const revisions = await svc.call(ops['billing.configuration.history.get'], { subscription_id: c.subscriptionId }, c.billingStaff);
      const revisionId = revisions.body.items.find((e) => e.kind === 'baseline')?.baseline?.id ?? '';
      const rh = await svc.call(ops['billing.history.get'], { subject: { type: 'revision', id: revisionId } }, c.billingStaff);
      expect(rh.body.items.map((e) => [e.type, e.reason])).to.deep.equal([['BaselineRevisionRecorded', 'Agreed in the Q1 review']]);
      expect(rh.body.state).to.include({ kind: 'baseline', revision_id: revisionId });

      // Resolve and preview answer on the page; preview writes nothing.
      const resolve = `/console/configuration/${c.subscriptionId}/resolve`;
      const resolved = await web.post(resolve, { ...hiddenFields(page3.html, resolve), seller: c.seller.orgId, buyer: buyerId, occurred_at: '2026-03-01T10:00', as_of: '' });
      expect(resolved.status).to.equal(200);
      expect(resolved.html).to.contain('platform introduced');
      const preview = `/console/configuration/${c.subscriptionId}/preview`;
      const previewed = await web.post(preview, { ...hiddenFields(page3.html, preview), samples: `${c.seller.orgId}, ${buyerId}, 10000, 2026-03-01T10:00`, as_of: '' });
      expect(previewed.status).to.equal(200);
      expect(previewed.html).to.contain('Preview (nothing was recorded)').and.to.contain('£5.00');
    });
  });
}
